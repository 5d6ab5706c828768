// What a prediction rests on that the scenario did not say (predict/rests_on.hpp).
#include <gtest/gtest.h>

#include <algorithm>

#include "predict/rests_on.hpp"
#include "predict_util.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {

std::vector<RestsOn> rests_on_default(const std::vector<std::string>& overrides) {
  return rests_on(testutil::scenario_default(overrides));
}

std::vector<std::string> keys_of(const std::vector<RestsOn>& rests) {
  std::vector<std::string> out;
  for (const RestsOn& r : rests) out.push_back(r.key);
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& k) { return std::find(v.begin(), v.end(), k) != v.end(); }

}  // namespace

TEST(RestsOn, TheDefaultsThatMatterAreListedWithTheirValues) {
  const std::vector<RestsOn> p = rests_on_default({"--cluster.nodes=2", "--cluster.platform=dgx-a100",
                                                   "--training.framework=pytorch_ddp"});
  const auto k = keys_of(p);
  for (const char* key : {"compute.calibration", "input.storage", "input.storage_GBps", "input.cpu_cores",
                          "input.decode_ms", "input.sample_kb", "cluster.inter_bw_GBps", "cluster.inter_latency_us",
                          "cluster.intra_bw_GBps", "comm.per_call_us", "comm.interference", "compute.host_kernel_us",
                          "compute.device_spread"})
    EXPECT_TRUE(has(k, key)) << key;
  const auto storage = std::find_if(p.begin(), p.end(),
                                    [](const RestsOn& r) { return r.key == "input.storage_GBps"; });
  EXPECT_NE(storage->what.find("2 GB/s"), std::string::npos) << storage->what;
  const auto cal = std::find_if(p.begin(), p.end(),
                                [](const RestsOn& r) { return r.key == "compute.calibration"; });
  EXPECT_NE(cal->what.find("a100"), std::string::npos) << cal->what;
}

TEST(RestsOn, WhatTheScenarioSaysIsNotListed) {
  const auto k = keys_of(rests_on_default(
      {"--cluster.nodes=2", "--compute.throughput=400", "--input.storage=memory", "--input.cpu_cores=32",
       "--cluster.inter_bw_GBps=10", "--comm.per_call_us=5"}));
  for (const char* key : {"compute.calibration", "input.storage", "input.storage_GBps", "input.cpu_cores",
                          "cluster.inter_bw_GBps", "comm.per_call_us"})
    EXPECT_FALSE(has(k, key)) << key;
  EXPECT_TRUE(has(k, "cluster.inter_latency_us"));
  // Synthetic data reads nothing; one GPU exchanges nothing.
  const auto one = keys_of(rests_on_default({"--input.format=synthetic", "--cluster.gpus_per_node=1"}));
  for (const char* key : {"input.storage", "input.decode_ms", "comm.per_call_us", "cluster.inter_bw_GBps",
                          "cluster.intra_bw_GBps"})
    EXPECT_FALSE(has(one, key)) << key;
}

TEST(RestsOn, SimulatesTableListsThemAndItsJsonIsUnchanged) {
  const auto table = testutil::run_ddlsim("simulate --cluster.nodes=2");
  ASSERT_EQ(table.code, 0) << table.out;
  EXPECT_NE(table.out.find("what it rests on that the scenario did not say"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("input.cpu_cores"), std::string::npos);
  const auto json = testutil::run_ddlsim("simulate --cluster.nodes=2 --format json");
  ASSERT_EQ(json.code, 0) << json.out;
  EXPECT_EQ(json.out.find("rests on"), std::string::npos);
  EXPECT_EQ(json.out.find("input.cpu_cores"), std::string::npos);
}

// Four GPUs of an NVLink 4 platform: the NVSwitch the platform's 8-GPU nodes have is an assumption a
// 4-GPU board may not share; eight GPUs, or the key given, say nothing.
TEST(RestsOn, AFourGpuNvlinkBoardRestsOnItsSwitch) {
  const auto four = rests_on_default({"--cluster.platform=dgx-h100", "--cluster.gpus_per_node=4", "--cluster.nodes=2",
                                      "--comm.library=nccl"});
  const auto it = std::find_if(four.begin(), four.end(), [](const RestsOn& r) { return r.key == "cluster.nvswitch"; });
  ASSERT_NE(it, four.end());
  EXPECT_NE(it->what.find("nvlink4"), std::string::npos) << it->what;
  EXPECT_FALSE(has(keys_of(rests_on_default({"--cluster.platform=dgx-h100", "--cluster.nodes=2", "--comm.library=nccl"})),
                   "cluster.nvswitch"));
  EXPECT_FALSE(has(keys_of(rests_on_default({"--cluster.platform=dgx-h100", "--cluster.gpus_per_node=4",
                                             "--cluster.nodes=2", "--comm.library=nccl", "--cluster.nvswitch=off"})),
                   "cluster.nvswitch"));
}
