// NCCL's CollNet Direct (`collnet`, cost/collective_plan.cpp collnet_plan) on InfiniBand switches
// that reduce (SHARP): the closed form by hand, equal to its plan, SimGrid (fast and full) on DGX
// A100 nodes equal to it, NCCL's `auto` taking it where the fabric has it, and scenarios refusing
// it where it cannot run.
#include <gtest/gtest.h>

#include <string>

#include "cost/collective_plan.hpp"
#include "cost/collectives.hpp"
#include "collective_cli.hpp"
#include "plan_layout.hpp"
#include "simgrid_check.hpp"
#include "system/platform.hpp"
#include "system/system.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {
// Nodes of 8 GPUs on an NVSwitch, 1 us and 200 GB/s a GPU's link; each GPU's rail 2 us and
// `rail_Bps` to the reducing switch.
CommTopology a100_like(int nodes, bool in_flight, BytesPerSecond rail_Bps = 25e9) {
  CommTopology t = testutil::nodes_with_rails(nodes, 8, Route{1e-6, 200e9}, Route{2e-6, rail_Bps}, in_flight);
  t.network_reduction = true;
  return t;
}
}  // namespace

// n = 1 GiB on 8 GPUs a node: 256 chunks of c = 4 MiB (8 heads x 512 KiB). NCCL's latency
// L = 2 (3.7 + 7 x 0.4) + 31 = 44 us. A chunk's scatter holds a GPU's link 7 x 512 KiB / 200e9 =
// 18.35008 us and its gather as long (period 2 x 18.35008 = 36.70016 us); its rail carries 512 KiB
// up and the total down at once, 512 KiB / 25e9 = 20.97152 us:
//   T = 44 + 2 (1 + 18.35008) + (2 + 20.97152) + 255 x 36.70016 = 9 464.21248 us (NVLink-bound).
// Rails at 10 GB/s: 52.4288 us a chunk bounds the period:
//   T = 44 + 2 (1 + 18.35008) + (2 + 52.4288) + 255 x 52.4288 = 13 506.47296 us.
// Lockstep (one phase after the other, the whole vector): 44 + 2 (1 + 7 x 128 MiB / 200e9 us) +
// (2 + 128 MiB / 25e9 us) = 44 + 2 x 4 698.62048 + 5 370.70912 = 14 811.95008 us.
TEST(Collnet, ClosedFormByHand) {
  const Bytes n = 1073741824;
  EXPECT_EQ(collnet_chunks(n, 8), 256);
  EXPECT_NEAR(collnet_latency_s(8) * 1e6, 44, 1e-9);
  EXPECT_NEAR(collective_time_s(Algorithm::CollnetDirect, a100_like(2, true), n) * 1e6, 9464.21248, 1e-6);
  EXPECT_NEAR(collective_time_s(Algorithm::CollnetDirect, a100_like(2, true, 10e9), n) * 1e6, 13506.47296, 1e-6);
  EXPECT_NEAR(collective_time_s(Algorithm::CollnetDirect, a100_like(2, false), n) * 1e6, 14811.95008, 1e-6);
  // The switch reduces: past two nodes (whose rails exchange), the node count does not matter.
  EXPECT_DOUBLE_EQ(collective_time_s(Algorithm::CollnetDirect, a100_like(3, true), n),
                   collective_time_s(Algorithm::CollnetDirect, a100_like(32, true), n));
  // Not on one node nor on nodes of one GPU.
  EXPECT_EQ(collective_plan(Algorithm::CollnetDirect, Layout{8, 8}, n).size(), 0u);
  EXPECT_EQ(collective_plan(Algorithm::CollnetDirect, Layout{8, 1}, n).size(), 0u);
}

TEST(Collnet, ClosedFormEqualsItsPlan) {
  testutil::expect_closed_form_equals_plan_on_rails(Algorithm::CollnetDirect, [](int nodes, bool in_flight) {
    return a100_like(nodes, in_flight);
  });
}

// Every GPU of a DGX A100 node sends its piece at once over the node's 8 HDR NICs (SimGrid: the
// node's one uplink), each at uplink / 8, and the scatter and gather share each GPU's link. SimGrid
// (fast and full) composes the pipeline from the same hops and equals the closed form; lockstep it
// runs the rounds. Sizes with whole bytes per message.
TEST(Collnet, SimGridSimulatesTheClosedFormOnDgxA100s) {
  const auto sharp = [](ClusterDescription& c) { c.network_reduction = true; };
  System sys;
  sys.cluster = find_cluster("dgx-a100", "test");
  sharp(sys.cluster);
  sys.nodes = 2;
  const CommTopology t = comm_topology(sys, 2, 8, 1);
  EXPECT_TRUE(t.collnet_available());
  EXPECT_NEAR(t.rail.bw_Bps, 24e9, 1);  // min(NVLink 3's 230, 8 x 24 / 8)
  testutil::expect_simgrid_equals_closed_form_across("dgx-a100", Algorithm::CollnetDirect, sharp);
}

// With SHARP (NCCL_COLLNET_ENABLE=1 and the plugin) `auto` takes CollNet Direct where its closed
// form beats the others: 2 DGX A100 at 8 GiB, NVLink-bound (each GPU's link carries 7/4 n at
// NVLink 3's 230 GB/s: algbw 131.4 GB/s, busbw x 2 x 15/16); never without SHARP.
TEST(Collnet, NcclAutoTakesItOnSharpFabrics) {
  const auto run = [](const std::string& args) { return testutil::collective_row("--sizes 8G " + args); };
  const auto sharp = run("--cluster.platform=dgx-a100 --cluster.nodes=2 --cluster.network_reduction=sharp");
  EXPECT_EQ(sharp["algorithm"], "collnet");
  EXPECT_NEAR(sharp["busbw_GBps"].get<double>(), 230.0 / 1.75 * 2 * 15 / 16, 0.5);
  EXPECT_NE(run("--cluster.platform=dgx-a100 --cluster.nodes=2")["algorithm"], "collnet");
  EXPECT_NE(run("--cluster.platform=dgx-a100 --cluster.nodes=1 --cluster.network_reduction=sharp")["algorithm"], "collnet");
}

TEST(Collnet, ScenariosRefuseItWhereItCannotRun) {
  const auto refused = testutil::expect_collective_refused;
  const std::string needs = "collnet needs several nodes";
  refused("--comm.algorithm=collnet --cluster.platform=dgx-a100 --cluster.nodes=2", needs);
  refused("--comm.algorithm=collnet --cluster.platform=dgx-a100 --cluster.nodes=1 --cluster.network_reduction=sharp", needs);
  // The switch's reduction runs through NCCL.
  refused("--comm.algorithm=collnet --comm.library=mpi --cluster.platform=dgx-a100 --cluster.nodes=2 "
          "--cluster.network_reduction=sharp", "collnet is NCCL's");
  refused("--algorithm=nvls --comm.library=gloo --cluster.platform=dgx-h100 --cluster.nodes=1", "nvls is NCCL's");
  // NVLink 2 on 8 GPUs is DGX-1's hybrid cube mesh: no NVSwitch.
  refused("--comm.algorithm=collnet --cluster.platform=dgx1 --cluster.inter=ib-hdr --cluster.nodes=2 "
          "--cluster.network_reduction=sharp", needs);
  // SHARP's streaming aggregation runs in HDR and NDR switches only.
  refused("--cluster.platform=dgx1 --cluster.nodes=2 --cluster.network_reduction=sharp", "--cluster.network_reduction");
  refused("--cluster.platform=aws-p4d-24xlarge --cluster.nodes=2 --cluster.network_reduction=sharp", "ib-hdr or ib-ndr");
  refused("--cluster.platform=dgx-a100 --cluster.nodes=2 --cluster.network_reduction=yes", "none, sharp");
  // A platform file's links carry no kind.
  testutil::TempFile xml("a100.xml");
  ASSERT_EQ(testutil::run_ddlsim("platform generate --nodes 2 --gpus-per-node 8 --intra nvlink3 --inter ib-hdr --nics 8 -o " +
                                 xml.path()).code, 0);
  refused("--cluster.platform=" + xml.path() + " --cluster.nodes=2 --cluster.network_reduction=sharp",
          "does not say its links' kinds");
  // DGX-2's 16 GPUs share NVSwitches: runs.
  const auto r = testutil::run_ddlsim("collective --comm.algorithm=collnet --cluster.platform=dgx2 --cluster.inter=ib-hdr "
                                      "--cluster.nodes=2 --cluster.network_reduction=sharp --sizes 1M");
  EXPECT_EQ(r.code, 0) << r.out;
}

// More bandwidth on either link is never slower, and more latency never faster.
TEST(Collnet, MoreBandwidthIsNeverSlower) {
  for (int nodes : {2, 3, 8})
    for (bool in_flight : {true, false})
      for (Bytes n : {8.0, 1048576.0, 1e9})
        testutil::expect_monotone_in_links(Algorithm::CollnetDirect, a100_like(nodes, in_flight), n);
}
