// Closed forms checked against hand-computed values.
#include <gtest/gtest.h>

#include "cost/collectives.hpp"

using namespace ddlsim;

namespace {
const Route kRoute{50e-6, 117.5e6};  // 1 GbE route
const Bytes kN = 100e6;
}  // namespace

TEST(Collectives, RingClosedForm) {
  // 2 (p-1) (alpha + n/(pB)), p = 4: 6 x (50e-6 + 100e6 / 470e6)
  EXPECT_DOUBLE_EQ(ring_allreduce_s(4, kN, kRoute), 6 * (50e-6 + 100e6 / 470e6));
  EXPECT_DOUBLE_EQ(ring_allreduce_s(2, kN, kRoute), 2 * (50e-6 + 100e6 / 235e6));
  EXPECT_EQ(ring_allreduce_s(1, kN, kRoute), 0);
}

TEST(Collectives, HalvingDoublingPowerOfTwo) {
  // 2 log2(8) alpha + 2 n 7 / (8 B)
  EXPECT_DOUBLE_EQ(halving_doubling_allreduce_s(8, kN, kRoute), 6 * 50e-6 + 2 * kN * 7 / (8 * 117.5e6));
}

TEST(Collectives, HalvingDoublingFoldsExtraRanks) {
  // p = 6: q = 4 core plus fold-in/out 2 (alpha + n/B)
  const double core = 4 * 50e-6 + 2 * kN * 3 / (4 * 117.5e6);
  EXPECT_DOUBLE_EQ(halving_doubling_allreduce_s(6, kN, kRoute), core + 2 * (50e-6 + kN / 117.5e6));
}

TEST(Collectives, TreeClosedForm) {
  EXPECT_DOUBLE_EQ(tree_allreduce_s(5, kN, kRoute), 2 * 3 * (50e-6 + kN / 117.5e6));
  EXPECT_DOUBLE_EQ(tree_allreduce_s(4, kN, kRoute), 2 * 2 * (50e-6 + kN / 117.5e6));
}

TEST(Collectives, HierarchicalClosedForm) {
  const Route intra{2e-6, 24e9};
  const double local = 2 * 2 * (2e-6 + kN / 24e9);  // g = 4
  EXPECT_DOUBLE_EQ(hierarchical_allreduce_s(3, 4, kN, intra, kRoute), local + ring_allreduce_s(3, kN, kRoute));
  EXPECT_DOUBLE_EQ(hierarchical_allreduce_s(3, 1, kN, intra, kRoute), ring_allreduce_s(3, kN, kRoute));
}

TEST(Collectives, ParameterServerClosedForm) {
  // 8 workers, 2 servers: each server link carries 4 n
  EXPECT_DOUBLE_EQ(parameter_server_s(8, 2, kN, kRoute), 2 * (50e-6 + 4 * kN / 117.5e6));
  // more servers than workers: the worker's own link is the limit
  EXPECT_DOUBLE_EQ(parameter_server_s(2, 4, kN, kRoute), 2 * (50e-6 + kN / 117.5e6));
}

TEST(Collectives, TopologyPicksTheSlowRouteAcrossNodes) {
  CommTopology t;
  t.nodes = 2;
  t.gpus_per_node = 4;
  t.intra = {2e-6, 24e9};
  t.inter = kRoute;
  EXPECT_DOUBLE_EQ(collective_time_s(Algorithm::Ring, t, kN), ring_allreduce_s(8, kN, kRoute));
  t.nodes = 1;
  EXPECT_DOUBLE_EQ(collective_time_s(Algorithm::Ring, t, kN), ring_allreduce_s(4, kN, t.intra));
}

TEST(Collectives, BusBandwidthAsNcclTests) {
  const double t = ring_allreduce_s(4, kN, {0, 1e9});  // alpha 0: busbw equals link bandwidth
  EXPECT_DOUBLE_EQ(algbw_Bps(kN, t), kN / t);
  EXPECT_NEAR(busbw_Bps(kN, t, 4), 1e9, 1e-3);
}

TEST(Collectives, MoreBandwidthIsNeverSlower) {
  for (auto a : {Algorithm::Ring, Algorithm::HalvingDoubling, Algorithm::Tree, Algorithm::Hierarchical,
                 Algorithm::ParameterServer}) {
    for (int nodes : {2, 3, 5, 16}) {
      CommTopology slow{nodes, 2, {2e-6, 12e9}, {50e-6, 117.5e6}, 1};
      CommTopology fast = slow;
      fast.inter.bw_Bps *= 10;
      EXPECT_LE(collective_time_s(a, fast, kN), collective_time_s(a, slow, kN)) << to_string(a);
    }
  }
}

// A network plugin's rendezvous (Route::rendezvous_bytes, rendezvous_s): a pipelined step of more
// than the limit holds its route the rendezvous longer; at or below it, its bytes alone. 1 GB/s,
// a 1,000-byte limit, 10 us.
TEST(Collectives, RendezvousHoldsAStepAboveTheLimit) {
  Route r{2e-6, 1e9};
  r.rendezvous_bytes = 1000;
  r.rendezvous_s = 10e-6;
  EXPECT_DOUBLE_EQ(ring_hop(r, 1000).serial_s, 1e-6);
  EXPECT_DOUBLE_EQ(ring_hop(r, 2000).serial_s, 2e-6 + 10e-6);
  EXPECT_DOUBLE_EQ(ring_hop(r, 2000).fixed_s, 2e-6);  // the latency is not the rendezvous
  r.rendezvous_s = 0;                                 // none
  EXPECT_DOUBLE_EQ(ring_hop(r, 2000).serial_s, 2e-6);
  // A pipelined ring bound by its network hop pays it on every step: 7 steps of 2,000 bytes.
  const RingHop intra{1e-6, 1e-7}, inter = ring_hop(Route{2e-6, 1e9, 1, 1, 0, 1000, 10e-6}, 2000);
  EXPECT_NEAR(pipelined_ring_s(7, 4, intra, inter) - pipelined_ring_s(7, 4, intra, ring_hop(Route{2e-6, 1e9}, 2000)),
              7 * 10e-6, 1e-15);
}
