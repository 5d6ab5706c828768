// NCCL's double binary tree (`dbtree`, cost/collective_plan.hpp) and NCCL's ring-or-tree choice
// for `auto` (cost/decision.hpp): the trees are ncclGetDtree's, every round is one-port, the closed
// form counts the rounds and SimGrid simulates them to 1e-6, and the choice follows tuning.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "plan_layout.hpp"
#include "cost/collective_plan.hpp"
#include "cost/collectives.hpp"
#include "cost/decision.hpp"
#include "simgrid/simgrid_backend.hpp"
#include "system/platform.hpp"

using namespace ddlsim;

namespace {

using testutil::layout_of;
using testutil::topology;

}  // namespace

// dbt_depth's closed form against its definition: the edges from the deepest node of either tree
// to its root, walked for every node count up to 2,049 and a few larger.
TEST(NcclTree, DepthIsTheDeepestNodesWalkInEitherTree) {
  for (int nodes = 1; nodes <= 2100; nodes += nodes < 2049 ? 1 : 51) {
    int deepest = 0;
    for (int t = 0; t < 2; ++t)
      for (int v = 0; v < nodes; ++v) {
        int d = 0;
        for (int u = dbt_parent(t, v, nodes); u >= 0; u = dbt_parent(t, u, nodes)) ++d;
        deepest = std::max(deepest, d);
      }
    ASSERT_EQ(dbt_depth(nodes), deepest) << nodes << " nodes";
  }
  EXPECT_EQ(dbt_depth(65536), 16);
  EXPECT_EQ(dbt_depth(65537), 17);  // rank 1 climbs to 65,536, then the root
}

// The pictures of NVIDIA/nccl src/graph/trees.cc: 13 ranks (odd: tree 1 is tree 0 shifted by one)
// and 12 ranks (even: tree 1 is tree 0 mirrored).
TEST(NcclTree, TreesAreNcclsDoubleBinaryTree) {
  EXPECT_EQ(dbt_parent(0, 0, 13), -1);
  EXPECT_EQ(dbt_parent(0, 8, 13), 0);
  EXPECT_EQ(dbt_parent(0, 4, 13), 8);
  EXPECT_EQ(dbt_parent(0, 12, 13), 8);
  EXPECT_EQ(dbt_parent(0, 10, 13), 12);
  EXPECT_EQ(dbt_parent(0, 13 - 1, 13), 8);
  EXPECT_EQ(dbt_parent(0, 11, 13), 10);
  EXPECT_EQ(dbt_parent(1, 1, 13), -1);  // shifted root
  EXPECT_EQ(dbt_parent(1, 9, 13), 1);
  EXPECT_EQ(dbt_parent(1, 0, 13), 9);
  EXPECT_EQ(dbt_parent(1, 11, 13), 0);
  EXPECT_EQ(dbt_parent(1, 11, 12), -1);  // mirrored root
  EXPECT_EQ(dbt_parent(1, 3, 12), 11);
  EXPECT_EQ(dbt_parent(1, 7, 12), 3);
  EXPECT_EQ(dbt_parent(1, 0, 12), 1);
  EXPECT_EQ(dbt_depth(4), 2);
  EXPECT_EQ(dbt_depth(13), 4);
  // Every node is interior (has children) in at most one tree.
  for (int n = 2; n <= 70; ++n) {
    std::vector<int> children0(n, 0), children1(n, 0);
    for (int v = 0; v < n; ++v) {
      if (const int u = dbt_parent(0, v, n); u >= 0) ++children0[u];
      if (const int u = dbt_parent(1, v, n); u >= 0) ++children1[u];
    }
    for (int v = 0; v < n; ++v) {
      EXPECT_LE(children0[v], 2);
      EXPECT_LE(children1[v], 2);
      EXPECT_LE(children0[v] + children1[v], 2) << "n=" << n << " v=" << v;
    }
  }
}

// Every rank sends at most one and receives at most one message per round, so on a
// contention-free platform a round takes alpha + m / B; both colours are used from 3 nodes on.
TEST(NcclTree, EveryRoundIsOnePort) {
  for (int g : {1, 2, 4})
    for (int nodes : {1, 2, 3, 4, 5, 8, 13, 16, 33, 64}) {
      Layout l;
      l.ranks = nodes * g;
      l.gpus_per_node = g;
      if (l.ranks == 1) continue;
      std::set<int> colours;
      for (const Round& r : collective_plan(Algorithm::DoubleBinaryTree, l, 8e6)) {
        if (r.kind == RoundKind::DbtUp) colours.insert(r.param);
        int busy = 0;
        for (int me = 0; me < l.ranks; ++me) {
          const RoundOps ops = round_ops(r, l, me);
          EXPECT_LE(ops.sends.size(), 1u);
          EXPECT_LE(ops.recvs.size(), 1u);
          busy += !ops.recvs.empty();
        }
        EXPECT_GT(busy, 0) << "an empty round, nodes=" << nodes << " g=" << g;
      }
      if (nodes > 1) EXPECT_EQ(int(colours.size()), nodes == 2 ? 1 : 2) << "nodes=" << nodes;
    }
}

// Hand calculation, 4 nodes of 1 GPU, n = 16 MiB, alpha = 10 us, B = 1 GB/s:
//   trees of depth D = 2 (0 <- 2 <- {1, 3} and its mirror 3 <- 1 <- {0, 2}); NCCL's depth for the
//   chunk D + 1 = 3; each tree carries 8 MiB: 8 MiB / 512 KiB = 16 < 8 x 3, so 256 KiB
//   (32 >= 24 and 32 >= 12): K = 32 chunks of m = 262144 B;
//   2 phases x 2 colours x (K + D - 1) = 132 rounds x (10 us + 262.144 us) = 35.923008 ms.
// With 4 GPUs per node (intra alpha 2 us, 20 GB/s): depth 2 + 4 = 6, 16 and 32 < 48, so
//   128 KiB: K = 64, m = 131072 B; chain 2 x (2K + g - 2) = 260 rounds x (2 us + 6.5536 us), trees
//   2 x 2 x (64 + 1) = 260 rounds x (10 us + 131.072 us).
TEST(NcclTree, ClosedFormByHand) {
  const Route inter{10e-6, 1e9}, intra{2e-6, 20e9};
  EXPECT_NEAR(collective_time_s(Algorithm::DoubleBinaryTree, topology(4, 1, intra, inter), 16 * 1048576.0),
              132 * (10e-6 + 262144 / 1e9), 1e-12);
  EXPECT_NEAR(collective_time_s(Algorithm::DoubleBinaryTree, topology(4, 4, intra, inter), 16 * 1048576.0),
              260 * (2e-6 + 131072 / 20e9) + 260 * (10e-6 + 131072 / 1e9), 1e-12);
  // Large messages: the bandwidth term approaches NCCL's 2 n / B.
  const double big = collective_time_s(Algorithm::DoubleBinaryTree, topology(16, 1, intra, Route{0, 1e9}), 1e9);
  EXPECT_NEAR(big, 2 * 1e9 / 1e9, 0.02);
}

TEST(NcclTree, ClosedFormCountsThePlansRounds) {
  Route inter{7e-6, 3e9}, intra{1e-6, 40e9};
  inter.exchange_factor = 0.55;
  inter.duplex_factor = 0.85;
  for (int g : {1, 2, 4, 8})
    for (int nodes : {1, 2, 3, 4, 5, 8, 16, 31}) {
      const CommTopology t = topology(nodes, g, intra, inter);
      if (t.ranks() == 1) continue;
      for (Bytes n : {8.0, 4e3, 1e6, 12.5e6, 300e6}) {
        const double closed = collective_time_s(Algorithm::DoubleBinaryTree, t, n);
        const double rounds = plan_time_s(collective_plan(Algorithm::DoubleBinaryTree, layout_of(t), n), t);
        EXPECT_NEAR(closed, rounds, 1e-12 * rounds) << "nodes=" << nodes << " g=" << g << " n=" << n;
      }
    }
}

// SimGrid runs the very rounds. Fast fidelity (a barrier around each distinct round) gives the
// closed form to 1e-6 on contention-free platforms (tupi: one GPU per node; cluster4x25g: 4 GPUs
// per node). KNOWN GAP: full fidelity runs the rounds without barriers, and a GPU idle in one edge
// colour's round starts its next round early, so the pipeline drains up to a few rounds sooner
// than the closed form counts (measured: 1 round of 8 on 4 nodes at 64 KB, 0.3-10 %): there the
// closed form is an upper bound, not yet an equality.
TEST(NcclTree, SimGridSimulatesTheClosedFormToOnePartInAMillion) {
  struct Case {
    const char* platform;
    int nodes;
  };
  for (const Case& c : {Case{"tupi", 2}, Case{"tupi", 3}, Case{"tupi", 4}, Case{"tupi", 8}, Case{"tupi", 16},
                        Case{"cluster4x25g", 1}, Case{"cluster4x25g", 2}, Case{"cluster4x25g", 3},
                        Case{"cluster4x25g", 4}}) {
    System sys;
    sys.cluster = find_cluster(c.platform, "test");
    sys.nodes = c.nodes;
    const CommTopology t =
        topology(c.nodes, sys.cluster.gpus_per_node, sys.cluster.intra_route(), sys.cluster.inter_route());
    for (Bytes n : {64e3, 20e6}) {
      const double closed = collective_time_s(Algorithm::DoubleBinaryTree, t, n);
      for (Fidelity f : {Fidelity::Fast, Fidelity::Full}) {
        SimGridOptions o;
        o.fidelity = f;
        const double sg = simgrid_collective_s(Algorithm::DoubleBinaryTree, t, n, sys, o);
        if (f == Fidelity::Full) {
          EXPECT_LE(sg, closed * (1 + 1e-6));
          EXPECT_GE(sg, 0.85 * closed) << c.platform << " nodes=" << c.nodes << " n=" << n;
          continue;
        }
        EXPECT_NEAR(sg, closed, 1e-6 * closed)
            << c.platform << " nodes=" << c.nodes << " n=" << n << " fidelity " << int(f);
      }
    }
  }
}

// NCCL's choice (tuning.cc at master, Simple protocol) on 64 nodes of 1 GPU over 100 Gb/s (12.5 GB/s):
//   ring: 8.4 + 126 x 14 = 1772.4 us (x 1.9 = 3367.6 us from 64/16 x 64 KiB = 256 KiB on: the
//         intra link below Ampere's), algbw 12.5 x 64/126 GB/s;
//   tree: 8.4 + 2 x log2(64) x 14 = 176.4 us, algbw min(0.9 x 12.5, 80) / 2 = 5.625 GB/s x correction.
//   At 64 KiB: ring 1772.4 + 10 us, tree 176.4 + 65536 / (5.625 GB/s x 0.6) = 195.8 us: tree.
//   At 16 MiB: ring 3367.6 + 2642 us, tree 176.4 + 16 MiB / (5.625 GB/s x 0.7) = 4437 us: tree.
//   At 32 MiB: ring 3367.6 + 5285 = 8652 us, tree 176.4 + 8522 = 8698 us: ring, and from there on
//   (at 256 MiB: ring 3.4 + 42.3 ms, tree 0.2 + 53.0 ms). The crossover: between 16 and 32 MiB.
// One node of 8 GPUs: tree 8.4 + 2 x 7 x 4.0 = 64.4 us of latency against the ring's 8.4 + 14 x
// 3.4 = 56 us, and less bandwidth: the ring at every size.
TEST(NcclTree, NcclAutoPicksTreeForSmallMessagesAcrossManyNodesAndRingForLarge) {
  const Route net{2e-6, 12.5e9}, nvlink{1e-6, 100e9};
  const CommTopology many = topology(64, 1, nvlink, net);
  const CommMethod nccl{Library::Nccl, Algorithm::Auto};
  EXPECT_EQ(concrete_algorithm(nccl, Collective::Allreduce, many, 8), Algorithm::DoubleBinaryTree);
  EXPECT_EQ(concrete_algorithm(nccl, Collective::Allreduce, many, 65536), Algorithm::DoubleBinaryTree);
  EXPECT_EQ(concrete_algorithm(nccl, Collective::Allreduce, many, 256.0 * 1048576), Algorithm::Ring);
  EXPECT_NEAR(nccl_model_time_s(Algorithm::Ring, many, 65536), 1772.4e-6 + 65536 / (12.5e9 * 64 / 126), 1e-9);
  EXPECT_NEAR(nccl_model_time_s(Algorithm::DoubleBinaryTree, many, 65536), 176.4e-6 + 65536 / (5.625e9 * 0.6), 1e-9);
  // The crossover, for the report: the largest power of two still on the tree.
  double last_tree = 0;
  for (double n = 8; n <= 1e10; n *= 2)
    if (nccl_allreduce(many, n) == Algorithm::DoubleBinaryTree) last_tree = n;
  std::cout << "NCCL auto, 64 x 1 GPU at 12.5 GB/s: the tree up to " << last_tree << " B\n";
  EXPECT_EQ(last_tree, 16.0 * 1048576);  // Simple alone (the rule above)
  // With NCCL's protocols (cost/protocol.hpp) the tree runs LL128 (NVLink inside the node): latency
  // 14.0 + 2 x 6 x 8.5 = 116 us, algbw 11.25 x 120/128 / 2 = 5.27 GB/s x 0.9 (correction) from
  // 16 MiB: at 32 MiB 116 + 7070 us against the ring's best, LL128 (one GPU a node: 0.7 of the
  // link), 518 + 7550; at 64 MiB 14 256 against the Simple ring's 13 937: the tree up to 32 MiB.
  CommTopology with_protocols = many;
  with_protocols.nccl_protocols = true;
  last_tree = 0;
  for (double n = 8; n <= 1e10; n *= 2)
    if (nccl_allreduce(with_protocols, n) == Algorithm::DoubleBinaryTree) last_tree = n;
  EXPECT_EQ(last_tree, 32.0 * 1048576);
  EXPECT_EQ(nccl_allreduce_choice(with_protocols, 32.0 * 1048576).protocol, Protocol::LL128);
  const CommTopology one_node = topology(1, 8, nvlink, net);
  for (double n = 8; n <= 1e10; n *= 4) EXPECT_EQ(nccl_allreduce(one_node, n), Algorithm::Ring) << n;
  // Other libraries keep their own rules: gloo (PyTorch) runs its ring.
  EXPECT_EQ(concrete_algorithm({Library::Gloo, Algorithm::Auto}, Collective::Allreduce, many, 8), Algorithm::Ring);
  EXPECT_EQ(concrete_algorithm({Library::Nccl, Algorithm::Ring}, Collective::Allreduce, many, 8), Algorithm::Ring);
}
