// NCCL's NVLink SHARP allreduce (`nvls`, cost/collective_plan.hpp nvls_plan): the closed form by
// hand, SimGrid on a DGX H100 node equal to it, NCCL's `auto` taking it where the switch reduces,
// scenarios refusing it elsewhere, and the published bus bandwidth it comes near.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "plan_layout.hpp"
#include "cost/collective_plan.hpp"
#include "cost/collectives.hpp"
#include "cost/decision.hpp"
#include "simgrid/simgrid_backend.hpp"
#include "system/platform.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {

CommTopology one_node(int gpus, Route intra, bool switch_reduction) {
  CommTopology t = testutil::topology(1, gpus, intra, intra);
  t.switch_reduction = switch_reduction;
  return t;
}

}  // namespace

// 8 GPUs, 1 us a hop, 300 GB/s: each GPU's link carries n (p+1)/p = 9/8 n each way at NVLS's share
// of it, 51/64 (NCCL's model: 0.85 x 15/16), after 2 rounds of latency and NCCL's 25 us: n = 8 GB
// takes 2 us + 25 us + 9e9 / (300e9 x 51/64) s = 37.674 ms. The bus bandwidth, 2 (p-1)/p n / t,
// tends to 2 (p-1)/(p+1) x 51/64 B = 371.9 GB/s, against the ring's B.
TEST(Nvls, ClosedFormByHand) {
  const CommTopology t = one_node(8, Route{1e-6, 300e9}, true);
  EXPECT_NEAR(collective_time_s(Algorithm::Nvls, t, 8e9), 2e-6 + 25e-6 + 0.03 * 64 / 51, 1e-12);
  EXPECT_NEAR(busbw_Bps(1e15, collective_time_s(Algorithm::Nvls, t, 1e15), 8), 371.875e9, 1e-7 * 300e9);
  EXPECT_NEAR(busbw_Bps(1e15, collective_time_s(Algorithm::Ring, t, 1e15), 8), 300e9, 1e-7 * 300e9);
  // The plan: two all-pairs rounds, every GPU sending 9 n / 112 / (51/64) to each of the 7 others.
  const auto plan = collective_plan(Algorithm::Nvls, Layout{8, 8}, 8e9);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].repeat, 2);
  EXPECT_NEAR(plan[0].bytes, 9 * 8e9 / 112 * 64 / 51, 1e-6);
  EXPECT_EQ(round_ops(plan[0], Layout{8, 8}, 3).sends.size(), 7u);
  EXPECT_NEAR(plan_time_s(plan, t), collective_time_s(Algorithm::Nvls, t, 8e9), 1e-15);
}

// On one DGX H100 node (every GPU on its own NVLink 4 link to the node's switch) SimGrid's flows
// share each GPU's link as the closed form assumes.
TEST(Nvls, SimGridSimulatesTheClosedFormOnADgxH100) {
  System sys;
  sys.cluster = find_cluster("dgx-h100", "test");
  sys.nodes = 1;
  CommTopology t = one_node(8, sys.cluster.intra_route(), true);
  for (Bytes n : {1048576.0 * 112, 1048576.0 * 1120}) {  // whole bytes per message
    const double closed = collective_time_s(Algorithm::Nvls, t, n);
    for (Fidelity f : {Fidelity::Fast, Fidelity::Full}) {
      SimGridOptions o;
      o.fidelity = f;
      EXPECT_NEAR(simgrid_collective_s(Algorithm::Nvls, t, n, sys, o), closed, 1e-6 * closed) << n << " " << int(f);
    }
  }
}

TEST(Nvls, NcclAutoTakesItWhereTheSwitchReduces) {
  const CommMethod nccl{Library::Nccl, Algorithm::Auto};
  const Route nvlink4 = find_cluster("dgx-h100", "test").intra_route();
  const CommTopology h100 = one_node(8, nvlink4, true), no_sharp = one_node(8, nvlink4, false);
  EXPECT_EQ(concrete_algorithm(nccl, Collective::Allreduce, h100, 1e9), Algorithm::Nvls);
  EXPECT_EQ(concrete_algorithm(nccl, Collective::Allreduce, no_sharp, 1e9), Algorithm::Ring);
  // Small messages: 25 us of NVLS latency lose to the ring's 14 short steps.
  EXPECT_EQ(concrete_algorithm(nccl, Collective::Allreduce, h100, 1024), Algorithm::Ring);
  CommTopology two = h100;
  two.nodes = 2;
  EXPECT_NE(concrete_algorithm(nccl, Collective::Allreduce, two, 1e9), Algorithm::Nvls);
  EXPECT_TRUE(find_cluster("dgx-h100", "test").switch_reduction());
  EXPECT_FALSE(find_cluster("dgx-a100", "test").switch_reduction());
}

TEST(Nvls, ScenariosRefuseItWhereTheSwitchCannotReduce) {
  for (const char* args : {"--cluster.platform=dgx-a100", "--cluster.platform=dgx-h100 --cluster.nodes=2",
                           "--cluster.platform=tupi --cluster.nodes=1"}) {
    const auto r = testutil::run_ddlsim(std::string("collective --comm.algorithm=nvls ") + args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("--comm.algorithm = 'nvls'"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("nvlink4"), std::string::npos) << r.out;
  }
  const auto ok = testutil::run_ddlsim("collective --comm.algorithm=nvls --cluster.platform=dgx-h100 --cluster.nodes=1 "
                                       "--sizes 1G --format json");
  ASSERT_EQ(ok.code, 0) << ok.out;
  EXPECT_EQ(nlohmann::json::parse(ok.out)[0]["algorithm"], "nvls");
}

// Azure's ND H100 v5 and ND H200 v5 results (github.com/Azure/AI-benchmarking-guide, "Azure
// Results/ND_H100_v5_results.md", NCCL 2.18.5, and Azure_Results/ND_H200_v5_results.md, NCCL
// 2.20.5; NVLS): all_reduce busbw 478.87 and 479.98 GB/s at 8 GB on one node of 8 GPUs. ddlsim's
// nvls with NVLink 4's effective figure (the ring's 77 % share of the datasheet) at NVLS's 51/64
// share of it (NCCL's model: neither chosen on these figures, but looked for because of the H100's
// +12 % without the share) gives 427: 11 % low, within 15 % (the ring alone: 345, 28 % low).
TEST(Nvls, PublishedBusBandwidthOfAnH100Node) {
  for (const auto& [platform, published] : {std::pair<const char*, double>{"dgx-h100", 478.87},
                                            {"azure-nd96isr-h100-v5", 478.87}, {"azure-nd96isr-h200-v5", 479.98}}) {
    const auto r = testutil::run_ddlsim(std::string("collective --comm.library=nccl --comm.algorithm=auto "
                                                    "--cluster.nodes=1 --sizes 8G --format json --cluster.platform=") +
                                        platform);
    ASSERT_EQ(r.code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out)[0];
    EXPECT_EQ(j["algorithm"], "nvls") << platform;
    EXPECT_NEAR(j["busbw_GBps"].get<double>(), published, 0.15 * published) << platform;
  }
}

// A training step on one H100 node with a preset of today's frameworks: NCCL's own choice runs
// NVLS for DDP's 25 MB buckets (the report names what ran), and its exchanges take less time than
// the ring's: each GPU's link carries 9/8 n instead of 7/4 n.
TEST(Nvls, DdpOnAnH100NodeRunsItAndSaysSo) {
  const std::string base = "simulate '" + testutil::source_dir() + "/scenarios/default.ini' --format json "
                           "--training.framework=pytorch_ddp --cluster.platform=dgx-h100 --cluster.nodes=1";
  const auto autos = testutil::run_ddlsim(base);
  const auto ring = testutil::run_ddlsim(base + " --comm.algorithm=ring");
  ASSERT_EQ(autos.code, 0) << autos.out;
  ASSERT_EQ(ring.code, 0) << ring.out;
  const auto a = nlohmann::json::parse(autos.out), r = nlohmann::json::parse(ring.out);
  EXPECT_EQ(a["algorithm"], "auto");
  EXPECT_NE(a["algorithm_run"].get<std::string>().find("nvls"), std::string::npos) << a["algorithm_run"];
  EXPECT_EQ(r["algorithm_run"], "ring");
  EXPECT_LT(a["comm_time_s"].get<double>(), r["comm_time_s"].get<double>());
}

// NVLink boards that join their GPUs without an NVSwitch (4-GPU HGX boards, GH200 nodes:
// cluster.nvswitch = off): NCCL's own choice runs neither NVLink SHARP nor CollNet there, asking
// for them is refused naming the key, and the same node with its switch takes NVLS for 1 GiB.
TEST(Nvls, NoneWithoutAnNvswitch) {
  for (const char* nodes : {"1", "2"}) {
    const std::string base = std::string("collective --cluster.platform=dgx-h100 "
                                         "--sizes 64K,16M,1G --format json --cluster.nodes=") + nodes;
    const auto off = testutil::run_ddlsim(base + " --cluster.nvswitch=off");
    ASSERT_EQ(off.code, 0) << off.out;
    for (const auto& row : nlohmann::json::parse(off.out)) {
      const std::string a = row["algorithm"];
      EXPECT_TRUE(a == "ring" || a == "dbtree") << nodes << " node(s): " << a;
    }
    const auto with = testutil::run_ddlsim(base);
    ASSERT_EQ(with.code, 0) << with.out;
    EXPECT_EQ(nlohmann::json::parse(with.out)[2]["algorithm"], std::string(nodes) == "1" ? "nvls" : "nvls_tree");
  }
  const auto refused = testutil::run_ddlsim("collective --cluster.platform=dgx-h100 --cluster.nodes=2 "
                                            "--cluster.nvswitch=off --comm.algorithm=nvls_tree --sizes 1M");
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.out.find("cluster.nvswitch = off"), std::string::npos) << refused.out;
  const auto collnet = testutil::run_ddlsim("collective --cluster.platform=dgx-a100 --cluster.nodes=2 "
                                            "--cluster.network_reduction=sharp --cluster.nvswitch=off "
                                            "--comm.algorithm=collnet --sizes 1M");
  EXPECT_EQ(collnet.code, 2) << collnet.out;
}
