// Mixed clusters (issue 15 item 5): nodes of different devices in one cluster, from node groups
// (cluster.nodes = tupi:2, poti:1) or from a platform file's host speeds. Every backend honours each
// rank's own speed on every step, sync and accumulation; the trace shows each rank's timeline.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "predict/prediction.hpp"
#include "report/trace.hpp"
#include "scenario/resolve.hpp"
#include "schedule/compose.hpp"
#include "system/platform_xml.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {

Prediction predict_with(std::vector<std::string> overrides) {
  overrides.insert(overrides.begin(), {"--model.name=resnet50", "--training.framework=horovod"});
  const ScenarioInput in = read_scenario("", overrides);
  return predict(resolve_scenario(in.settings, "."));
}

double rel_diff(double a, double b) { return std::abs(a - b) / std::abs(b); }

// A hand-made schedule, times in ms: buckets ready `ready0` and `ready1` into the backward pass.
StepSchedule schedule(double fwd, double bwd, double ready0, double opt, double accum) {
  StepSchedule s;
  s.forward_s = fwd * 1e-3;
  s.backward_s = bwd * 1e-3;
  s.buckets = {Bucket{1e6, ready0 * 1e-3, 5, 9}, Bucket{2e6, bwd * 1e-3, 0, 4}};
  s.cycle_s = 0.002;  // every exchange waits half a cycle: 1 ms
  s.optimizer_s = opt * 1e-3;
  s.accumulate_s = accum * 1e-3;
  s.input_s = 0.005;
  return s;
}

}  // namespace

// Two kinds of rank (no library costs), exchanges of 15 and 4 ms:
//   fast: forward 10, backward 20, buckets ready at 10+8+1 = 19 and 10+20+1 = 31, optimizer 3, accumulate 1
//   slow: forward 15, backward 30, buckets ready at 15+12+1 = 28 and 15+30+1 = 46, optimizer 4.5, accumulate 1.5
// Sync step: bucket 0 starts when both have it, 28 -> 43; bucket 1 at 46 -> 50. The slow rank's
// backward pass ends at 45, it waits 5 ms, updates 50 -> 54.5; the fast one's ends at 30, it waits
// 20 ms and updates 50 -> 53. The cluster's sync step is the slow rank's: 54.5 ms.
// Local steps: fast 31 ms, slow 46.5 ms; the cluster's is the slow one's. With sync every 4
// micro-batches a period is 54.5 + 3 x 46.5 = 194 ms (one host's local step would give 147.5).
TEST(MixedCluster, ComposerWaitsForTheSlowestKindOnEveryStep) {
  RankSchedules rs;
  rs.kinds = {schedule(10, 20, 8, 3, 1), schedule(15, 30, 12, 4.5, 1.5)};
  rs.of_rank = {0, 0, 1};
  const StepPair p = compose_steps(rs, {0.015, 0.004}, "ring");
  ASSERT_EQ(p.kind_sync.size(), 2u);
  ASSERT_EQ(p.kind_local.size(), 2u);
  EXPECT_NEAR(p.sync.step_s, 0.0545, 1e-12);
  EXPECT_NEAR(p.sync.exposed_comm_s, 0.005, 1e-12);
  EXPECT_NEAR(p.sync.compute_s, 0.0495, 1e-12);
  EXPECT_NEAR(p.kind_sync[0].step_s, 0.053, 1e-12);
  EXPECT_NEAR(p.kind_sync[0].exposed_comm_s, 0.020, 1e-12);
  EXPECT_NEAR(p.kind_sync[0].phases[2].start_s, 0.028, 1e-12);  // bucket 0 waits for the slow rank
  EXPECT_NEAR(p.kind_sync[1].phases[3].start_s, 0.046, 1e-12);
  EXPECT_NEAR(p.kind_local[0].step_s, 0.031, 1e-12);
  EXPECT_NEAR(p.local.step_s, 0.0465, 1e-12);
  EXPECT_NEAR(p.sync.step_s + 3 * p.local.step_s, 0.194, 1e-12);
}

TEST(MixedCluster, OneKindIsTheHomogeneousComposer) {
  const StepSchedule s = schedule(10, 20, 8, 3, 1);
  const StepPair one = compose_steps(RankSchedules{{s}, {}}, {0.015, 0.004}, "ring");
  const StepPair plain = compose_steps(s, {0.015, 0.004}, "ring");
  EXPECT_EQ(one.sync.step_s, plain.sync.step_s);
  EXPECT_EQ(one.local.step_s, plain.local.step_s);
  EXPECT_TRUE(one.kind_sync.empty());
}

// 2 RTX 4090 nodes (tupi) + 1 RTX 4070 node (poti), ResNet-50, batch 64, sync every 4 batches, 1 GbE.
// The 4070 is slower on every layer, so every bucket is ready when the 4070's is: the sync step
// is the 4070's, exactly as on 3 poti nodes (same links: PCIe 4, 1 GbE). Every one of the 3 local
// steps of a period waits for the 4070 too: the roofline gives a local step of 88.4 ms on the 4090
// and 182.2 ms on the 4070 (fwd + bwd + accumulate, one accumulation kernel for each of ResNet-50's
// 214 trainable tensors), so each local step costs 93.8 ms more than
// on 3 tupi nodes, k - 1 = 3 times per period, not once:
//   epoch = syncs x t_sync(4070) + (steps - syncs) x t_local(4070)
TEST(MixedCluster, SlowNodeCostsItsExtraComputeOnEveryMicroBatch) {
  // The devices' spread and jitter off: the hand expectation has no straggler term (tests/stragglers_test.cpp).
  const std::vector<std::string> k4 = {"--training.sync_period=4", "--compute.device_spread=0", "--compute.jitter_cv=0"};
  auto with = [&](const std::string& nodes) {
    auto o = k4;
    o.push_back("--cluster.nodes=" + nodes);
    return predict_with(o);
  };
  const Prediction mixed = with("tupi:2, poti:1"), fast = with("tupi:3"), slow = with("poti:3");
  EXPECT_EQ(mixed.ranks, 3);
  EXPECT_EQ(mixed.device, "rtx4090+rtx4070");
  EXPECT_EQ(mixed.platform, "tupi:2,poti:1");
  EXPECT_NEAR(fast.steps.local.step_s, 0.0884, 0.0005);
  EXPECT_NEAR(slow.steps.local.step_s, 0.1822, 0.0005);
  EXPECT_DOUBLE_EQ(mixed.steps.local.step_s, slow.steps.local.step_s);
  EXPECT_DOUBLE_EQ(mixed.steps.sync.step_s, slow.steps.sync.step_s);
  const double syncs = double(mixed.syncs_per_epoch), locals = double(mixed.steps_per_epoch - mixed.syncs_per_epoch);
  EXPECT_LT(rel_diff(mixed.epoch_time_s, syncs * slow.steps.sync.step_s + locals * slow.steps.local.step_s), 1e-12);
  // Against taking the local step from a 4090 host (the old SimGrid backend): 3 x 93.8 ms more per period.
  const double one_host = syncs * mixed.steps.sync.step_s + locals * fast.steps.local.step_s;
  EXPECT_NEAR((mixed.epoch_time_s - one_host) / syncs, 3 * (slow.steps.local.step_s - fast.steps.local.step_s), 1e-3);
  EXPECT_GT(mixed.epoch_time_s - one_host, 0.25 * syncs);
  // The speed-up reference is one GPU of the fastest kind; memory is checked against the smallest.
  EXPECT_DOUBLE_EQ(mixed.single_gpu_epoch_s, fast.single_gpu_epoch_s);
  EXPECT_EQ(mixed.device_memory_bytes, slow.device_memory_bytes);
}

TEST(MixedCluster, BackendsAndFidelitiesAgree) {
  // Also with synchronised batch norms: their exchanges join the kinds, in the same order on every
  // rank (the pass's program order, not its kinds' times).
  for (const char* sync_bn : {"false", "true"}) {
  const std::vector<std::string> base = {"--cluster.nodes=tupi:2,poti:1", "--training.sync_period=4",
                                         "--model.input_size=112", std::string("--model.sync_bn=") + sync_bn};
  auto run = [&](const char* backend, const char* fidelity) {
    auto o = base;
    o.push_back(std::string("--simulation.backend=") + backend);
    o.push_back(std::string("--simulation.fidelity=") + fidelity);
    return predict_with(o);
  };
  const Prediction a = run("analytic", "fast"), f = run("simgrid", "fast"), full = run("simgrid", "full");
  for (const Prediction* p : {&f, &full}) {
    EXPECT_LT(rel_diff(p->step_time_s, a.step_time_s), 1e-7) << p->backend << " sync_bn " << sync_bn;
    EXPECT_LT(rel_diff(p->steps.sync.step_s, a.steps.sync.step_s), 1e-7);
    EXPECT_LT(rel_diff(p->exposed_comm_s, a.exposed_comm_s), 1e-6);
    EXPECT_DOUBLE_EQ(p->steps.local.step_s, a.steps.local.step_s);
    ASSERT_EQ(p->steps.kind_sync.size(), 2u);
    EXPECT_LT(rel_diff(p->steps.kind_sync[0].step_s, a.steps.kind_sync[0].step_s), 1e-7);
  }
  }
}

TEST(MixedCluster, GroupsOfOneDeviceAreTheHomogeneousCluster) {
  const Prediction groups = predict_with({"--cluster.nodes=tupi:1+tupi:2"});
  const Prediction plain = predict_with({"--cluster.platform=tupi", "--cluster.nodes=3"});
  EXPECT_EQ(groups.step_time_s, plain.step_time_s);
  EXPECT_EQ(groups.device, "rtx4090");
  EXPECT_TRUE(groups.rank_kind.empty());
}

// A platform file where one node's host computes at half speed: every backend honours it, and it
// does not matter which node is the slow one.
TEST(MixedCluster, PlatformFileHostSpeedsInAnyOrder) {
  const std::string xml = platform_xml(find_cluster("poti", "test"), 3);
  auto slow_node = [&](int n) {
    std::string x = xml;
    const auto at = x.find("speed=\"1Tf\"", x.find("<cluster id=\"node" + std::to_string(n) + "\""));
    return x.replace(at, 11, "speed=\"0.5Tf\"");
  };
  testutil::TempFile first("first.xml", slow_node(0)), last("last.xml", slow_node(2)), same("same.xml", xml);
  auto run = [](const std::string& file, const char* backend, const char* fidelity) {
    return predict_with({"--cluster.platform=" + file, "--cluster.nodes=3", "--training.sync_period=4",
                         "--model.input_size=112", std::string("--simulation.backend=") + backend,
                         std::string("--simulation.fidelity=") + fidelity});
  };
  const Prediction ref = run(last.path(), "analytic", "fast");
  const Prediction even = run(same.path(), "analytic", "fast");
  EXPECT_GT(ref.steps.local.step_s, 1.9 * even.steps.local.step_s);  // the half-speed host, every micro-batch
  for (const auto* f : {&first, &last})
    for (const auto& [backend, fidelity] : {std::pair{"analytic", "fast"}, {"simgrid", "fast"}, {"simgrid", "full"}}) {
      const Prediction p = run(f->path(), backend, fidelity);
      EXPECT_LT(rel_diff(p.step_time_s, ref.step_time_s), 1e-7) << f->path() << " " << backend << " " << fidelity;
      EXPECT_DOUBLE_EQ(p.steps.local.step_s, ref.steps.local.step_s);
    }
}

TEST(MixedCluster, TraceShowsEachRanksOwnTimeline) {
  const Prediction p = predict_with({"--cluster.nodes=tupi:2,poti:1", "--training.sync_period=4"});
  const auto j = nlohmann::json::parse(chrome_trace_json(p));
  auto backward_of = [&](int rank) {
    for (const auto& e : j["traceEvents"])
      if (e["ph"] == "X" && e["pid"] == rank && e["name"] == "backward") return e["dur"].get<double>();
    return 0.0;
  };
  auto waits_of = [&](int rank) {
    int n = 0;
    for (const auto& e : j["traceEvents"])
      if (e["pid"] == rank && e["name"] == "wait for slower ranks") ++n;
    return n;
  };
  EXPECT_DOUBLE_EQ(backward_of(0), backward_of(1));
  EXPECT_GT(backward_of(2), 1.5 * backward_of(0));  // the RTX 4070
  EXPECT_EQ(waits_of(0), 1);
  EXPECT_EQ(waits_of(2), 0);
  // Each rank's period ends with the cluster's: 4090 ranks' last event ends where the 4070's does.
  auto period_end = [&](int rank) {
    double end = 0;
    for (const auto& e : j["traceEvents"])
      if (e["ph"] == "X" && e["pid"] == rank) end = std::max(end, e["ts"].get<double>() + e["dur"].get<double>());
    return end;
  };
  EXPECT_NEAR(period_end(0), period_end(2), 1e-6 * period_end(2));
  EXPECT_NEAR(period_end(2), (p.steps.sync.step_s + 3 * p.steps.local.step_s) * 1e6, 1e-3);
}

TEST(MixedCluster, BadNodeGroupsAreInputErrors) {
  const struct {
    std::string args, says;
  } cases[] = {
      {"--cluster.nodes=tupi:0,poti:1", "cluster.nodes = 'tupi:0,poti:1': expected a node count, or groups"},
      {"--cluster.nodes=tupi:2,nosuch:1", "unknown platform"},
      {"--cluster.nodes=tupi:7", "at most 6 nodes of platform tupi"},
      {"--cluster.nodes=tupi:2,poti", "expected a node count, or groups"},
      {"--cluster.nodes=tupi:2,:1", "expected a node count, or groups"},
      {"--cluster.nodes=tupi:1,dgx1:1", "groups whose nodes have as many GPUs"},
      {"--cluster.nodes=tupi:2,poti:1 --compute.throughput=300", "compute.throughput = '300': expected none in a cluster of several devices"},
      {"--cluster.nodes=tupi:2,poti:1 --compute.device=v100", "compute.device = 'v100': expected no compute.device"},
      {"--cluster.nodes=tupi:2 --cluster.platform=platforms/tupi.xml", "expected a node count with a platform file"},
  };
  for (const auto& c : cases) {
    const auto r = testutil::run_ddlsim("simulate " + c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << c.args << "\n" << r.out;
  }
}
