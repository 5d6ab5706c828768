// NCCL's NVLS across nodes (`nvls_tree`, cost/collective_plan.cpp nvls_tree_plan): the closed form
// by hand, equal to its plan, SimGrid (fast and full) on DGX H100 nodes equal to it, NCCL's `auto`
// taking it across NVLink 4 nodes, and scenarios refusing it where it cannot run.
#include <gtest/gtest.h>

#include <string>

#include "cost/collective_plan.hpp"
#include "cost/collectives.hpp"
#include "cost/decision.hpp"
#include "collective_cli.hpp"
#include "plan_layout.hpp"
#include "simgrid_check.hpp"
#include "system/platform.hpp"
#include "system/system.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {
// Nodes of 8 GPUs on an NVLink SHARP switch, 1 us and 300 GB/s a GPU's link; each GPU's rail
// 2 us and 40 GB/s.
CommTopology h100_like(int nodes, bool in_flight) {
  CommTopology t = testutil::nodes_with_rails(nodes, 8, Route{1e-6, 300e9}, Route{2e-6, 40e9}, in_flight);
  t.switch_reduction = true;
  return t;
}
}  // namespace

// 2 nodes, n = 8 GiB: 512 loops of c = 16 MiB (NCCL's 16 NVLS channels x 8 heads x 128 KiB). A
// loop's NVLink SHARP hop holds a GPU's link c 9/16 / (300e9 x 51/64) = 39.4758024 us (half of its
// 9/8 c each way, at NVLS's 51/64 share of the link), a rail hop c / 16 / 40e9 = 26.2144 us (one
// tree's half of the GPU's eighth). The two trees share the one edge, so a rail carries 2 of those
// a loop: period max(2 x 39.4758024, 2 x 26.2144) = 78.9516047 us.
//   T = 25 + 2 (1 + 39.4758024) + 2 x 1 x (2 + 26.2144) + 511 x 78.9516047 = 40 506.650 us.
// 4 nodes: NCCL's chunk is 64 KiB from 4 nodes, so 1024 loops of c = 8 MiB (hops 19.7379012 and
// 13.1072 us); a node interior in one tree sends 4 halves a loop: period 4 x 13.1072 = 52.4288 us,
// the rails bound it; the trees are dbt_depth(4) = 2 edges deep:
//   T = 25 + 2 (1 + 19.7379012) + 2 x 2 x (2 + 13.1072) + 1023 x 52.4288 = 53 761.567 us.
// Lockstep (one phase after the other, the whole vector): 2 (1 + 12.5 + n 9/16 / (300e9 x 51/64)
// us) + 2 x 1 x 1 x (2 + n / 16 / 40e9 us) = 67 297.767 us on 2 nodes.
TEST(NvlsTree, ClosedFormByHand) {
  const Bytes n = 8.0 * 1073741824;
  EXPECT_EQ(nvls_tree_chunks(n, 2, 8), 512);
  EXPECT_EQ(nvls_tree_chunks(n, 4, 8), 1024);
  EXPECT_EQ(dbt_depth(4), 2);
  const double hop2_us = 8 * 3.93216 * 64 / 51, hop4_us = hop2_us / 2;
  EXPECT_NEAR(collective_time_s(Algorithm::NvlsTree, h100_like(2, true), n) * 1e6,
              25 + 2 * (1 + hop2_us) + 2 * (2 + 26.2144) + 511 * 2 * hop2_us, 1e-6);
  EXPECT_NEAR(collective_time_s(Algorithm::NvlsTree, h100_like(2, true), n) * 1e6, 40506.6504, 1e-4);
  EXPECT_NEAR(collective_time_s(Algorithm::NvlsTree, h100_like(4, true), n) * 1e6,
              25 + 2 * (1 + hop4_us) + 2 * 2 * (2 + 13.1072) + 1023 * 52.4288, 1e-6);
  // NCCL's chunk shrinks with the message: 64 KiB below 4 x 128 chunks of 128 KiB (64 MiB), 32 KiB
  // below 128 chunks of 64 KiB (8 MiB).
  EXPECT_EQ(nvls_tree_chunk_bytes(64.0 * 1048576, 2, 8), 131072);
  EXPECT_EQ(nvls_tree_chunk_bytes(63.0 * 1048576, 2, 8), 65536);
  EXPECT_EQ(nvls_tree_chunk_bytes(8.0 * 1048576, 2, 8), 65536);
  EXPECT_EQ(nvls_tree_chunk_bytes(7.0 * 1048576, 2, 8), 32768);
  EXPECT_EQ(nvls_tree_chunks(7.0 * 1048576, 2, 8), 2);
  EXPECT_NEAR(collective_time_s(Algorithm::NvlsTree, h100_like(2, false), n) * 1e6, 67297.7672, 1e-4);
  // Not on one node (nvls) nor on nodes of one GPU.
  EXPECT_EQ(collective_plan(Algorithm::NvlsTree, Layout{8, 8}, n).size(), 0u);
  EXPECT_EQ(collective_plan(Algorithm::NvlsTree, Layout{8, 1}, n).size(), 0u);
}

TEST(NvlsTree, ClosedFormEqualsItsPlan) {
  testutil::expect_closed_form_equals_plan_on_rails(Algorithm::NvlsTree, h100_like);
}

// Every GPU of a DGX H100 node sends its rail's share at once over the node's 8 NDR NICs (SimGrid:
// the node's one uplink), each at uplink / 8; NVLink SHARP's traffic shares each GPU's link. SimGrid
// (fast and full) composes the pipeline from the same hops and equals the closed form; lockstep it
// runs the rounds. Sizes with whole bytes per message.
TEST(NvlsTree, SimGridSimulatesTheClosedFormOnDgxH100s) {
  System sys;
  sys.cluster = find_cluster("dgx-h100", "test");
  sys.nodes = 2;
  EXPECT_NEAR(comm_topology(sys, 2, 8, 1).rail.bw_Bps, 48e9, 1);  // min(NVLink 4's 345, 8 x 48 / 8)
  testutil::expect_simgrid_equals_closed_form_across("dgx-h100", Algorithm::NvlsTree, [](ClusterDescription&) {});
}

// NCCL (2.18+) runs NVLS with trees between nodes where the switch reduces; `auto` takes it where
// its closed form beats the ring-or-tree choice: large messages on 2 and 4 DGX H100, never on DGX
// A100s. On 2 DGX H100 at 8 GiB (NCCL's floors, 8.4 us a call): busbw 456.6 GB/s (the ring's 344):
// each GPU's link carries 9/8 n at NVLS's 51/64 of 345 GB/s, its rail n / 8 at 48.
TEST(NvlsTree, NcclAutoTakesItAcrossNvlink4Nodes) {
  const auto run = [](const std::string& args) { return testutil::collective_row("--sizes 8G " + args); };
  const auto two = run("--cluster.platform=dgx-h100 --cluster.nodes=2");
  EXPECT_EQ(two["algorithm"], "nvls_tree");
  EXPECT_NEAR(two["busbw_GBps"].get<double>(), 456.57, 0.01);
  EXPECT_EQ(run("--cluster.platform=dgx-h100 --cluster.nodes=4")["algorithm"], "nvls_tree");
  EXPECT_NE(run("--cluster.platform=dgx-a100 --cluster.nodes=2")["algorithm"], "nvls_tree");
  EXPECT_EQ(run("--cluster.platform=dgx-h100 --cluster.nodes=1")["algorithm"], "nvls");
}

TEST(NvlsTree, ScenariosRefuseItWhereItCannotRun) {
  for (const char* args : {"--cluster.platform=dgx-a100 --cluster.nodes=2", "--cluster.platform=dgx-h100 --cluster.nodes=1",
                           "--cluster.platform=dgx-h100 --cluster.nodes=2 --cluster.gpus_per_node=1"})
    testutil::expect_collective_refused(std::string("--comm.algorithm=nvls_tree ") + args, "nvls_tree needs several nodes");
}

// More bandwidth on either link is never slower, and more latency never faster.
TEST(NvlsTree, MoreBandwidthIsNeverSlower) {
  for (int nodes : {2, 3, 8})
    for (bool in_flight : {true, false})
      for (Bytes n : {8.0, 1048576.0, 1e9}) testutil::expect_monotone_in_links(Algorithm::NvlsTree, h100_like(nodes, in_flight), n);
}
