// `ddlsim advise`: inverse answers checked against hand calculations, and its exit codes.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "cost/collectives.hpp"
#include "plan/advise.hpp"
#include "scenario/resolve.hpp"
#include "test_util.hpp"

using namespace ddlsim;
using testutil::run_ddlsim;

namespace {
const std::string kPoti = testutil::source_dir() + "/scenarios/poti_resnet50.ini";

Settings settings_of(const std::string& file, const std::vector<std::string>& overrides) {
  return read_scenario(file, overrides).settings;
}
Prediction predict_of(const std::string& file, const std::vector<std::string>& overrides) {
  return predict(resolve_scenario(settings_of(file, overrides), "."));
}
}  // namespace

// Ring allreduce on p ranks, no overlap (tf_mirrored: one packed exchange after the backward pass,
// no coordination cycle), synthetic input (no input wait), N = b p m samples (no partial step):
//   one GPU:  S_1 = N / b steps of t_1 (forward + backward + optimizer)
//   p GPUs:   S_p = N / (b p) steps of t_1 + T, T = 2 (p - 1) (alpha + n / (p B))   (ring closed form)
//   efficiency e = S_1 t_1 / (p S_p (t_1 + T)) = t_1 / (t_1 + T)
//   => T = t_1 (1 - e) / e  =>  B = n / (p (T / (2 (p - 1)) - alpha))
// with n the gradient bytes, alpha the route's latency (two intra-node and two inter-node hops) and
// B the route's ring bandwidth (the inter-node link's, intra-node made fast so it is not the slowest
// hop; duplex factor 1 on poti). advise must find B within 0.1 %. No straggler term: the devices'
// spread and their step-to-step jitter are off (compute.device_spread = 0, compute.jitter_cv = 0;
// tests/stragglers_test.cpp checks them), and so are the
// framework's buffer copies (framework.buffer_copies = none; tests/framework_costs_test.cpp), and
// NCCL's socket transport is not what bounds the ring (cluster.tcp_thread_GBps far above the link).
TEST(Advise, RingBandwidthForEfficiencyMatchesClosedForm) {
  const int p = 4;
  const std::vector<std::string> keys = {"--cluster.platform=poti", "--training.framework=tf_mirrored",
                                         "--input.format=synthetic", "--training.batch_per_gpu=32",
                                         "--training.samples=" + std::to_string(32 * p * 100),
                                         "--cluster.intra_bw_GBps=1000", "--compute.device_spread=0", "--compute.jitter_cv=0",
                                         "--framework.buffer_copies=none", "--cluster.tcp_thread_GBps=1e6",
                                         "--cluster.nodes=" + std::to_string(p)};
  std::vector<std::string> one_gpu = keys;
  one_gpu.back() = "--cluster.nodes=1";
  const Prediction single = predict_of("", one_gpu);
  const double t1_s = single.step_time_s, n_bytes = single.gradient_bytes;
  const Route route = resolve_scenario(settings_of("", keys), ".").system.cluster.inter_route();
  ASSERT_EQ(route.duplex_factor, 1.0);
  for (double e : {0.5, 0.8, 0.9}) {
    const double comm_s = t1_s * (1 - e) / e;
    const double bw_GBps = n_bytes / (p * (comm_s / (2 * (p - 1)) - route.latency_s)) / 1e9;
    const Evaluator ev(settings_of("", keys), ".");
    AdviseRequest req;
    req.key = "cluster.inter_bw_GBps";
    req.target = parse_target("efficiency=" + std::to_string(e));
    const Advice a = advise(ev, req);
    ASSERT_TRUE(a.reachable) << a.conclusion;
    ASSERT_TRUE(a.boundary);
    EXPECT_NEAR(*a.boundary / bw_GBps, 1, 1e-3) << "e = " << e;
    EXPECT_NEAR(std::stod(a.answer) / bw_GBps, 1, 1e-3) << a.answer;
    ASSERT_TRUE(a.check.outcome.prediction);
    EXPECT_TRUE(a.check.reaches);  // the forward check of the rounded answer
    EXPECT_NEAR(a.check.outcome.prediction->efficiency, e, 1e-3);
  }
}

// The Poti study (ResNet-50 at 64x64, 1 GbE, custom loop, batch 32): the least sync period k that
// makes 2 nodes at least as fast as 1 (speedup >= 1). By hand, with t_l the local (accumulating)
// step, d = t_sync - t_l on one GPU (optimizer instead of accumulation) and T the 2-rank ring
// allreduce of the gradients, T = 2 (alpha + n / (2 B_exchange)) (docs/model.md, Communication):
//   epoch_p(k) = ceil(S_p / k) t_sync,p + (S_p - ceil(S_p / k)) t_l,  S_1 = 3125, S_2 = 1563
//   t_sync,1 = t_l + d,  t_sync,2 = t_l + d + T
// Without the ceilings, epoch_2 <= epoch_1 when S_2 t_l + S_2 (T + d) / k <= S_1 t_l + S_1 d / k:
//   k >= (S_2 (T + d) - S_1 d) / ((S_1 - S_2) t_l)
// The ceilings (one partial group of k steps per epoch) move the answer by at most one; the exact
// answer is the least k for which the two epochs above, written out, satisfy epoch_2 <= epoch_1.
// No straggler term: the devices' spread is off (compute.device_spread = 0).
TEST(Advise, PotiLeastSyncPeriodMatchesHandCalculation) {
  const std::string no_spread = "--compute.device_spread=0";
  const Prediction one = predict_of(kPoti, {"--cluster.nodes=1"});
  ASSERT_EQ(one.input_wait_s, 0);
  ASSERT_EQ(one.steps_per_epoch, 3125);
  const double tl_s = one.steps.local.step_s, d_s = one.steps.sync.step_s - one.steps.local.step_s;
  const Route route = resolve_scenario(settings_of(kPoti, {}), ".").system.cluster.inter_route();
  const double comm_s = ring_allreduce_s(2, one.gradient_bytes, route);
  const double s1 = 3125, s2 = 1563;
  const int k_estimate = int(std::ceil((s2 * (comm_s + d_s) - s1 * d_s) / ((s1 - s2) * tl_s)));
  auto epoch_s = [&](long long steps, int k, double sync_s) {
    const long long syncs = (steps + k - 1) / k;
    return syncs * sync_s + (steps - syncs) * tl_s;
  };
  auto faster = [&](int k) { return epoch_s(1563, k, tl_s + d_s + comm_s) <= epoch_s(3125, k, tl_s + d_s); };
  int k_hand = 1;
  while (!faster(k_hand)) ++k_hand;
  EXPECT_LE(std::abs(k_hand - k_estimate), 1) << k_hand << " " << k_estimate;
  EXPECT_GT(k_hand, 10);  // 1 GbE: ResNet-50's 94 MB of gradients take ~0.8 s, a step ~25 ms

  const Evaluator ev(settings_of(kPoti, {no_spread}), ".");
  AdviseRequest req;
  req.key = "training.sync_period";
  req.target = parse_target("speedup=1");
  const Advice a = advise(ev, req);
  ASSERT_TRUE(a.reachable) << a.conclusion;
  EXPECT_EQ(a.answer, std::to_string(k_hand)) << a.conclusion;
  EXPECT_GE(a.check.outcome.prediction->speedup, 1);
  const Prediction before = predict_of(kPoti, {no_spread, "--training.sync_period=" + std::to_string(k_hand - 1)});
  EXPECT_LT(before.speedup, 1);
}

TEST(Advise, UnreachableTargetSaysSoAndGivesTheBestValue) {
  const auto r = run_ddlsim("advise " + kPoti + " --vary training.sync_period --target efficiency=0.99 --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["reachable"].get<bool>());
  double best = 0;  // the most efficient k of the default range 1..64
  std::string best_k;
  for (int k = 1; k <= 64; ++k) {
    const double e = predict_of(kPoti, {"--training.sync_period=" + std::to_string(k)}).efficiency;
    if (e > best) best = e, best_k = std::to_string(k);
  }
  EXPECT_EQ(j["answer"], best_k);
  EXPECT_LT(best, 0.99);
  EXPECT_NE(j["conclusion"].get<std::string>().find("not reachable"), std::string::npos);
  EXPECT_FALSE(j["check"]["reaches_target"].get<bool>());
  const auto t = run_ddlsim("advise " + kPoti + " --vary cluster.inter_bw_GBps --range 0.01..1 --target efficiency=0.99");
  EXPECT_EQ(t.code, 0) << t.out;
  EXPECT_NE(t.out.find("not reachable"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("forward check"), std::string::npos) << t.out;
}

TEST(Advise, DiscreteKeyIsRankedByTheObjective) {
  const auto r = run_ddlsim("advise " + kPoti + " --vary comm.algorithm --values ring,tree,ps --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["ranked"].size(), 3u);
  double previous = 0;
  for (const auto& c : j["ranked"]) {
    EXPECT_GE(c["epoch_time_s"].get<double>(), previous);
    previous = c["epoch_time_s"].get<double>();
  }
  EXPECT_EQ(j["answer"], j["ranked"][0]["value"]);
  const Prediction forward = predict_of(kPoti, {"--comm.algorithm=" + j["answer"].get<std::string>()});
  EXPECT_DOUBLE_EQ(j["check"]["epoch_time_s"].get<double>(), forward.epoch_time_s);
}

TEST(Advise, NodesOptimumIsTheFastestNodeCount) {
  const auto r = run_ddlsim("advise " + kPoti + " --nodes-optimum --training.sync_period=8 --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["key"], "cluster.nodes");
  EXPECT_EQ(j["ranked"].size(), 6u);  // poti has 6 nodes
  double least = 1e300;
  std::string best;
  for (int n = 1; n <= 6; ++n) {
    const double t = predict_of(kPoti, {"--training.sync_period=8", "--cluster.nodes=" + std::to_string(n)}).epoch_time_s;
    if (t < least) least = t, best = std::to_string(n);
  }
  EXPECT_EQ(j["answer"], best);
}

TEST(Advise, BadRequestsExitTwoNamingTheKey) {
  const struct {
    std::string args, names;
  } cases[] = {
      {"--vary cluster.inter_bw_GBs --target efficiency=0.8", "cluster.inter_bw_GBs"},
      {"--vary cluster.platform --target efficiency=0.8", "cluster.platform"},
      {"--vary cluster.inter_bw_GBps --target efficiency=0.8 --range abc..5", "--range"},
      {"--vary cluster.inter_bw_GBps --target efficiency=0.8 --range 5..1", "empty"},
      {"--vary cluster.inter_bw_GBps --target efficiency=0.8 --range ''", "--range"},
      {"--vary cluster.inter_bw_GBps --target effciency=0.8", "effciency"},
      {"--vary cluster.inter_bw_GBps --target efficiency=high", "efficiency"},
      {"--vary cluster.inter_bw_GBps", "cluster.inter_bw_GBps"},
      {"--vary comm.algorithm --range 1..3", "comm.algorithm"},
      {"--vary training.sync_period --target speedup=1 --range 0.2..0.5", "training.sync_period"},
      {"--target efficiency=0.8", "--vary"},
  };
  for (const auto& c : cases) {
    const auto r = run_ddlsim("advise " + kPoti + " " + c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find("ddlsim: error:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(c.names), std::string::npos) << c.args << "\n" << r.out;
  }
}

// A key whose growth hurts (latency): the answer is the greatest value still reaching the target.
TEST(Advise, LatencyAnswerIsTheGreatestValueReachingTheTarget) {
  const Evaluator ev(settings_of(kPoti, {"--training.sync_period=16", "--compute.device_spread=0"}), ".");
  AdviseRequest req;
  req.key = "cluster.inter_latency_us";
  req.target = parse_target("efficiency=0.3");
  const Advice a = advise(ev, req);
  ASSERT_TRUE(a.reachable) << a.conclusion;
  EXPECT_NE(a.conclusion.find("greatest"), std::string::npos) << a.conclusion;
  EXPECT_TRUE(a.check.reaches);
  const Prediction beyond =
      predict_of(kPoti, {"--training.sync_period=16", "--compute.device_spread=0",
                         "--cluster.inter_latency_us=" + std::to_string(*a.boundary * 1.001)});
  EXPECT_LT(beyond.efficiency, 0.3);
}

// model.params (a synthetic model): the largest model whose exposed communication stays under a
// share of the step; a larger one exceeds it.
TEST(Advise, LargestModelUnderACommOverhead) {
  const auto r = run_ddlsim("advise " + kPoti + " --vary model.params --target comm_overhead=0.5 "
                            "--cluster.inter_bw_GBps=1.25 --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["reachable"].get<bool>()) << r.out;
  EXPECT_LE(j["check"]["comm_overhead"].get<double>(), 0.5);
  const Evaluator ev(settings_of(kPoti, {"--cluster.inter_bw_GBps=1.25"}), ".");
  const double boundary = j["boundary"].get<double>();
  EXPECT_GT(ev.predict_at({{"model.params", format_number(boundary * 1.001)}}).comm_overhead, 0.5);
  EXPECT_NE(j["conclusion"].get<std::string>().find("greatest"), std::string::npos);
}

TEST(Advise, MistypedKeyGetsASuggestion) {
  const auto r = run_ddlsim("advise " + kPoti + " --vary training.sync_perod --target speedup=1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("did you mean 'training.sync_period'?"), std::string::npos) << r.out;
}

// A range past the values the key takes is refused before any search (issue 43: model.params up to
// 1e30 answered with a 2.2-parameter model); map's axes likewise.
TEST(Advise, RangeOutsideTheKeysValuesIsRefused) {
  auto r = run_ddlsim("advise " + kPoti + " --vary model.params --range 1..1e30 --target efficiency=0.8");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--range = 1..1e+30: model.params takes values from 1 to 10000000000000"), std::string::npos)
      << r.out;
  r = run_ddlsim("advise " + kPoti + " --vary cluster.inter_bw_GBps --range 0..10 --target efficiency=0.8");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("cluster.inter_bw_GBps takes values from 1e-06 to 1000000"), std::string::npos) << r.out;
  r = run_ddlsim("map " + kPoti + " --x cluster.nodes=1..1e9 --y cluster.inter_bw_GBps=1..10");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--x cluster.nodes = 1..1000000000: cluster.nodes takes values from 1 to"), std::string::npos)
      << r.out;
}

// The answer's 80 % interval: the least bandwidth at which the efficiency's 90th percentile (the
// optimistic end) reaches the target, and the least at which its 10th does (the pessimistic end);
// each end reaches the target and a value 0.1 % below it does not.
TEST(Advise, AnswerIntervalIsWhereEachPercentileReachesTheTarget) {
  const std::vector<std::string> keys = {"--training.sync_period=16", "--compute.device_spread=0"};
  const Evaluator ev(settings_of(kPoti, keys), ".");
  AdviseRequest req;
  req.key = "cluster.inter_bw_GBps";
  req.target = parse_target("efficiency=0.5");
  const Advice a = advise(ev, req);
  ASSERT_TRUE(a.reachable) << a.conclusion;
  ASSERT_TRUE(a.interval) << a.conclusion;
  ASSERT_FALSE(a.interval->optimistic.empty());
  ASSERT_FALSE(a.interval->pessimistic.empty());
  const double optimistic = std::stod(a.interval->optimistic), pessimistic = std::stod(a.interval->pessimistic);
  EXPECT_LT(optimistic, std::stod(a.answer));
  EXPECT_GT(pessimistic, std::stod(a.answer));
  EXPECT_NE(a.conclusion.find("80 % interval"), std::string::npos) << a.conclusion;
  const auto percentile_at = [&](double bw, bool p90) {
    const Prediction p = ev.predict_at({{req.key, format_number(bw)}}, true);
    return *metric_percentile(p, "efficiency", p90);
  };
  EXPECT_GE(percentile_at(optimistic, true), 0.5);
  EXPECT_LT(percentile_at(optimistic * 0.999, true), 0.5);
  EXPECT_GE(percentile_at(pessimistic, false), 0.5);
  EXPECT_LT(percentile_at(pessimistic * 0.999, false), 0.5);
  // JSON carries both ends.
  const auto r = run_ddlsim("advise " + kPoti + " --training.sync_period=16 --compute.device_spread=0 --vary "
                            "cluster.inter_bw_GBps --target efficiency=0.5 --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["answer_interval"]["optimistic"], a.interval->optimistic);
  EXPECT_EQ(j["answer_interval"]["pessimistic"], a.interval->pessimistic);
}

// The largest batch that fits (`--target fits`): memory grows linearly with the batch (activations
// per sample), so from the needs at batch 1 and 2 the largest fitting batch is
// floor((capacity - fixed) / per_sample); GPT-2 medium under FULL_SHARD on 16 A100s of 40 GB.
TEST(Advise, LargestBatchThatFitsIsTheLinearBound) {
  const std::vector<std::string> keys = {"--model.name=gpt2_medium", "--model.precision=mixed",
                                         "--training.optimizer=adam", "--cluster.platform=dgx-a100",
                                         "--cluster.nodes=2", "--training.sharding=fsdp_full"};
  const auto at = [&](int b) {
    std::vector<std::string> k = keys;
    k.push_back("--training.batch_per_gpu=" + std::to_string(b));
    return predict_of("", k);
  };
  const Prediction one = at(1), two = at(2);
  const double per_sample = two.memory_per_gpu_bytes - one.memory_per_gpu_bytes;
  const double fixed = one.memory_per_gpu_bytes - per_sample;
  const int largest = int(std::floor((one.device_memory_bytes - fixed) / per_sample));
  ASSERT_GT(largest, 1);
  std::vector<std::string> k = keys;
  k.push_back("--training.batch_per_gpu=1");
  const Evaluator ev(settings_of("", k), ".");
  AdviseRequest req;
  req.key = "training.batch_per_gpu";
  req.target = parse_target("fits");
  const Advice a = advise(ev, req);
  ASSERT_TRUE(a.reachable) << a.conclusion;
  EXPECT_EQ(a.answer, std::to_string(largest));
  EXPECT_TRUE(at(largest).fits_in_memory);
  EXPECT_FALSE(at(largest + 1).fits_in_memory);
}

// Ranking values: one whose step does not fit is no answer (listed after those that fit); where
// none fits, the answer is the value needing the least memory, and the advice says none fits.
TEST(Advise, ValuesThatDoNotFitAreNoAnswer) {
  const std::vector<std::string> keys = {"--model.name=gpt2_medium", "--model.precision=mixed",
                                         "--training.optimizer=adam", "--cluster.platform=dgx-a100",
                                         "--cluster.nodes=2", "--training.batch_per_gpu=8", "--compute.memory_gib=12"};
  AdviseRequest req;
  req.key = "training.sharding";
  req.values = {"none", "zero2", "fsdp_full"};
  const Advice a = advise(Evaluator(settings_of("", keys), "."), req);
  EXPECT_EQ(a.ranked.back().value, "none");
  ASSERT_TRUE(a.ranked.back().outcome.prediction);
  EXPECT_FALSE(a.ranked.back().outcome.prediction->fits_in_memory);
  EXPECT_NE(a.answer, "none");
  std::vector<std::string> tiny = keys;
  tiny.back() = "--compute.memory_gib=1";
  const Advice none = advise(Evaluator(settings_of("", tiny), "."), req);
  EXPECT_FALSE(none.reachable);
  EXPECT_EQ(none.answer, "fsdp_full");
  EXPECT_NE(none.conclusion.find("fits"), std::string::npos) << none.conclusion;
}
