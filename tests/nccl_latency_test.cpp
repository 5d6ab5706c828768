// NCCL's own latencies (spec/comm.hpp nccl_tuning, from tuning.cc): each round of a collective on
// a route lasts at least NCCL's per-step latency for that kind of hop, a call pays NCCL's base
// latency once; other libraries and comm.round_latency = network keep the links' latency alone.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cost/collectives.hpp"
#include "plan_layout.hpp"
#include "simgrid/simgrid_backend.hpp"
#include "system/platform.hpp"
#include "system/system.hpp"
#include "test_util.hpp"

using namespace ddlsim;

// A DGX A100: NVLink 3 links of 0.235 us (a GPU-to-GPU route 0.47 us, NCCL's LL step) and HDR
// ports of 1 us (a route between nodes 0.47 + 2 = 2.47 us). With NCCL the rounds last 3.4 us inside
// the node (tuning.cc hwLat NVLink Ring Simple) and 14.0 us between nodes (NET); MPI keeps 0.47 and
// 2.47 us.
TEST(NcclLatency, RoundsLastAtLeastNcclsPerStepLatency) {
  ClusterDescription nccl = find_cluster("dgx-a100", "test"), mpi = nccl, network = nccl;
  use_library_factors(nccl, "nccl");
  use_library_factors(mpi, "mpi");
  use_library_factors(network, "nccl", true);
  EXPECT_NEAR(nccl.intra_route().step_latency_s(), 3.4e-6, 1e-15);
  EXPECT_NEAR(nccl.inter_route().step_latency_s(), 14.0e-6, 1e-15);
  EXPECT_NEAR(nccl.intra_route().latency_s, 0.47e-6, 1e-15);  // the network's share is unchanged
  EXPECT_NEAR(mpi.intra_route().step_latency_s(), 0.47e-6, 1e-15);
  EXPECT_NEAR(mpi.inter_route().step_latency_s(), 2.47e-6, 1e-15);
  EXPECT_NEAR(network.inter_route().step_latency_s(), 2.47e-6, 1e-15);
  // PCIe inside a node: 5.7 us; a slower network keeps its own, larger latency (1 GbE: 54 us).
  ClusterDescription tupi = find_cluster("tupi", "test");
  use_library_factors(tupi, "nccl");
  EXPECT_NEAR(tupi.intra_route().step_latency_s(), 5.7e-6, 1e-15);
  EXPECT_NEAR(tupi.inter_route().step_latency_s(), tupi.inter_route().latency_s, 1e-15);
  EXPECT_GT(tupi.inter_route().latency_s, 14.0e-6);
}

// `collective` on one DGX A100, 256 MiB (the Simple protocol: tests/nccl_protocol_test.cpp has the
// others), NCCL's ring: 8.4 us per call + 14 steps x (3.4 us + 256 MiB / 8 at 230 GB/s)
// = 8.4 + 47.6 + 2042.4 us (without NCCL's latencies: 14 x (0.47 us + the same)).
TEST(NcclLatency, CollectiveCountsTheCallAndEveryStep) {
  const double n = 268435456;
  const auto r = testutil::run_ddlsim("collective --cluster.platform=dgx-a100 --cluster.nodes=1 --sizes 256M --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto row = nlohmann::json::parse(r.out)[0];
  EXPECT_EQ(row["protocol"], "Simple");
  EXPECT_NEAR(row["time_s"].get<double>() * 1e6, 8.4 + 14 * (3.4 + n / 8 / 230e9 * 1e6), 1e-6);
  const auto old = testutil::run_ddlsim("collective --cluster.platform=dgx-a100 --cluster.nodes=1 --sizes 256M --format json "
                                        "--comm.round_latency=network --comm.per_call_us=0");
  ASSERT_EQ(old.code, 0) << old.out;
  EXPECT_NEAR(nlohmann::json::parse(old.out)[0]["time_s"].get<double>() * 1e6, 14 * (0.47 + n / 8 / 230e9 * 1e6), 1e-6);
}

// Two-level algorithms pay the intra route's rounds inside a node and the network's between: the
// SimGrid rounds sleep each round's own overhead, so SimGrid still equals the closed form (the
// dbtree closed form counted the links' latency alone before: a netfit-measured overhead was
// missing from it). Nodes of
// 4 V100 on PCIe 3 (2 x 0.5 us a route: NCCL's 5.7 us adds 4.7 us a round) and 25 GbE (2 x 5 us
// and a PCIe link at each end, 11 us a route: NCCL's 14.0 adds 3 us), NCCL's double binary tree at
// fast fidelity.
TEST(NcclLatency, SimGridKeepsEachRoutesOverhead) {
  for (int nodes : {1, 2, 3}) {
    System sys;
    sys.cluster = find_cluster("cluster4x25g", "test");
    use_library_factors(sys.cluster, "nccl");
    sys.nodes = nodes;
    const CommTopology t = comm_topology(sys, nodes, 4, nodes);
    EXPECT_NEAR(t.intra.step_overhead_s, 4.7e-6, 1e-15);
    EXPECT_NEAR(t.inter.step_overhead_s, 3e-6, 1e-15);
    for (Bytes n : {64e3, 20e6}) {
      const double closed = collective_time_s(Algorithm::DoubleBinaryTree, t, n);
      EXPECT_NEAR(plan_time_s(collective_plan(Algorithm::DoubleBinaryTree, testutil::layout_of(t), n), t), closed,
                  1e-12 * closed);
      SimGridOptions o;
      o.fidelity = Fidelity::Fast;
      EXPECT_NEAR(simgrid_collective_s(Algorithm::DoubleBinaryTree, t, n, sys, o), closed, 1e-6 * closed)
          << "nodes=" << nodes << " n=" << n;
    }
  }
}
