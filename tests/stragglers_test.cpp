// Stragglers (cost/stragglers.hpp): the expected maximum of normals against its exact values,
// and what compute.jitter_cv and compute.device_spread do to a prediction.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "cost/compute.hpp"
#include "cost/stragglers.hpp"
#include "predict/prediction.hpp"
#include "scenario/resolve.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {
Prediction predict_with(std::vector<std::string> overrides) {
  return predict(resolve_scenario(read_scenario("", overrides).settings, "."));
}
}  // namespace

TEST(Stragglers, ExpectedMaximumOfNormals) {
  EXPECT_EQ(expected_max_std_normal(1), 0);
  EXPECT_NEAR(expected_max_std_normal(2), 1 / std::sqrt(M_PI), 1e-10);      // exact
  EXPECT_NEAR(expected_max_std_normal(3), 1.5 / std::sqrt(M_PI), 1e-10);    // exact
  EXPECT_NEAR(expected_max_std_normal(5), 1.1629644736, 1e-9);              // tabulated
  EXPECT_NEAR(expected_max_std_normal(10), 1.5387527308, 1e-9);
  double previous = 0;
  for (int n : {2, 16, 256, 4096, 1 << 20}) {
    const double e = expected_max_std_normal(n);
    EXPECT_GT(e, previous) << n;
    EXPECT_LT(e, std::sqrt(2 * std::log(double(n)))) << n;  // the classical upper bound
    previous = e;
  }
}

TEST(Stragglers, WaitIsTheSlowestRanksLead) {
  EXPECT_EQ(straggler_wait_s(1.0, 0.05, 0.01, 1, 1), 0);   // one rank waits for nobody
  EXPECT_EQ(straggler_wait_s(1.0, 0, 0, 1, 64), 0);
  EXPECT_NEAR(straggler_wait_s(0.2, 0.05, 0, 1, 2), 0.2 * 0.05 / std::sqrt(M_PI), 1e-13);
  // Syncing every 4 micro-batches: twice the wait per synchronisation, half per micro-batch.
  EXPECT_DOUBLE_EQ(straggler_wait_s(0.2, 0.05, 0, 4, 2), 2 * straggler_wait_s(0.2, 0.05, 0, 1, 2));
}

TEST(Stragglers, SlowDevicesAreSlowOnEveryMicroBatch) {
  // By hand: T = 0.1 s, spread 0.0148, two ranks: 0.1 x 0.0148 x 0.5641896 = 8.350006e-4 s.
  EXPECT_NEAR(straggler_wait_s(0.1, 0, 0.0148, 1, 2), 8.350006e-4, 1e-9);
  // A device's spread does not cancel over the period: k micro-batches wait k times as long.
  EXPECT_DOUBLE_EQ(straggler_wait_s(0.1, 0, 0.0148, 4, 2), 4 * straggler_wait_s(0.1, 0, 0.0148, 1, 2));
  // Both kinds: k = 4, cv 0.02, spread 0.01, 8 ranks (E_8 = 1.4236003):
  //   4 x 0.1 x sqrt(0.01^2 + 0.02^2 / 4) x 1.4236003 = 0.4 x 0.0141421 x 1.4236003 = 8.05310e-3 s.
  EXPECT_NEAR(straggler_wait_s(0.1, 0.02, 0.01, 4, 8), 8.05310e-3, 1e-8);
  // The default: Sinha et al.'s 8 % range read as +-2.698 sigma; none for a cpu calibration's ranks.
  EXPECT_NEAR(kGpuDeviceSpread, 0.014826, 1e-6);
  ComputeTuning t;
  EXPECT_EQ(device_spread(t), kGpuDeviceSpread);
  t.device_spread = 0.03;
  EXPECT_EQ(device_spread(t), 0.03);
  t.device_spread = -1;
  auto cpu = std::make_shared<Calibration>();
  cpu->device_kind = "cpu";
  t.calibration = cpu;
  EXPECT_EQ(device_spread(t), 0);
}

TEST(Stragglers, PredictionAddsTheWaitToEverySyncStep) {
  const std::vector<std::string> base = {"--cluster.platform=cluster4x25g", "--cluster.nodes=4", "--input.format=synthetic"};
  auto with = [&](std::vector<std::string> extra, int nodes = 4) {
    extra.insert(extra.end(), base.begin(), base.end());
    extra[extra.size() - 2] = "--cluster.nodes=" + std::to_string(nodes);
    return predict_with(extra);
  };
  const Prediction calm = with({"--compute.jitter_cv=0", "--compute.device_spread=0"});
  const Prediction jitter = with({"--compute.jitter_cv=0.05", "--compute.device_spread=0"});
  EXPECT_EQ(calm.straggler_wait_s, 0);
  std::vector<std::string> args = base;
  args.push_back("--compute.jitter_cv=0.05");
  args.push_back("--compute.device_spread=0");
  const Scenario sc = resolve_scenario(read_scenario("", args).settings, ".");
  const ComputeProfile prof = compute_profile(sc.model, sc.system.device, sc.execution.precision,
                                              sc.execution.batch_per_gpu, sc.system.compute);
  // Sync every step on 16 ranks: each step waits for the slowest rank's forward + backward.
  EXPECT_DOUBLE_EQ(jitter.straggler_wait_s, straggler_wait_s(prof.forward_s() + prof.backward_s(), 0.05, 0, 1, 16));
  EXPECT_NEAR(jitter.epoch_time_s - calm.epoch_time_s, jitter.straggler_wait_s * double(jitter.steps_per_epoch),
              1e-9 * calm.epoch_time_s);
  EXPECT_DOUBLE_EQ(jitter.single_gpu_epoch_s, calm.single_gpu_epoch_s);  // one GPU has no stragglers
  EXPECT_LT(jitter.efficiency, calm.efficiency);
  // More ranks, longer wait; accumulation over 4 micro-batches halves it per micro-batch.
  EXPECT_GT(with({"--compute.jitter_cv=0.05", "--compute.device_spread=0"}, 16).straggler_wait_s,
            jitter.straggler_wait_s);
  const Prediction accum = with({"--compute.jitter_cv=0.05", "--compute.device_spread=0", "--training.sync_period=4"});
  EXPECT_NEAR(accum.straggler_wait_s, jitter.straggler_wait_s / 2, 0.02 * jitter.straggler_wait_s);
}

TEST(Stragglers, GpusWaitForTheSlowestDeviceByDefault) {
  const std::vector<std::string> base = {"--cluster.platform=cluster4x25g", "--cluster.nodes=4",
                                         "--input.format=synthetic", "--compute.jitter_cv=0"};
  const Prediction spread = predict_with(base);
  std::vector<std::string> off = base;
  off.push_back("--compute.device_spread=0");
  const Prediction calm = predict_with(off);
  const Scenario sc = resolve_scenario(read_scenario("", base).settings, ".");
  const ComputeProfile prof = compute_profile(sc.model, sc.system.device, sc.execution.precision,
                                              sc.execution.batch_per_gpu, sc.system.compute);
  EXPECT_DOUBLE_EQ(spread.straggler_wait_s,
                   straggler_wait_s(prof.forward_s() + prof.backward_s(), 0, kGpuDeviceSpread, 1, 16));
  EXPECT_GT(spread.epoch_time_s, calm.epoch_time_s);
  EXPECT_DOUBLE_EQ(spread.single_gpu_epoch_s, calm.single_gpu_epoch_s);
  EXPECT_EQ(calm.straggler_wait_s, 0);
}

// Left unset, a GPU rank varies from step to step as the measured steps did, on top of its device's
// spread: sqrt(0.0429^2 + 0.014826^2) = 0.045390, times E_16, times the forward + backward time.
TEST(Stragglers, GpuStepsVaryAsMeasuredByDefault) {
  EXPECT_EQ(jitter_cv(ComputeTuning{}), kGpuStepJitterCv);
  ComputeTuning cpu;
  auto cal = std::make_shared<Calibration>();
  cal->device_kind = "cpu";
  cpu.calibration = cal;
  EXPECT_EQ(jitter_cv(cpu), 0);
  cpu.jitter_cv = 0.01;
  EXPECT_EQ(jitter_cv(cpu), 0.01);
  const std::vector<std::string> base = {"--cluster.platform=cluster4x25g", "--cluster.nodes=4", "--input.format=synthetic"};
  const Prediction p = predict_with(base);
  const Scenario sc = resolve_scenario(read_scenario("", base).settings, ".");
  const ComputeProfile prof = compute_profile(sc.model, sc.system.device, sc.execution.precision,
                                              sc.execution.batch_per_gpu, sc.system.compute);
  EXPECT_NEAR(p.straggler_wait_s, (prof.forward_s() + prof.backward_s()) * 0.045390 * expected_max_std_normal(16),
              1e-5 * p.straggler_wait_s);
}

// The default and its percentiles, recomputed from the measured steps: each run's (p90 - p10) /
// (2 x 1.2816) / median step, then the median and the 10th and 90th percentiles over the runs
// (linear interpolation between order statistics).
TEST(Stragglers, JitterDefaultIsTheMeasuredStepsOwn) {
  std::vector<double> cv;
  for (const char* file : {"h100-zoo-steps.csv", "h200-torch-steps.csv"}) {
    std::istringstream in(testutil::slurp(testutil::source_dir() + "/calibration/measured/" + file));
    std::string line;
    std::getline(in, line);
    std::vector<std::string> head;
    for (std::stringstream h(line); std::getline(h, line, ',');) head.push_back(line);
    const auto col = [&](const char* name) {
      return std::size_t(std::find(head.begin(), head.end(), name) - head.begin());
    };
    const std::size_t med = col("step_time_s"), p10 = col("step_time_p10_s"), p90 = col("step_time_p90_s");
    ASSERT_LT(p90, head.size()) << file;
    while (std::getline(in, line)) {
      std::vector<std::string> c;
      for (std::stringstream r(line); std::getline(r, line, ',');) c.push_back(line);
      cv.push_back((std::stod(c[p90]) - std::stod(c[p10])) / (2 * 1.2815515655446004) / std::stod(c[med]));
    }
  }
  ASSERT_EQ(cv.size(), 43u);
  const auto q = [&](double f) { return testutil::quantile(cv, f); };
  EXPECT_NEAR(q(0.5), kGpuStepJitterCv, 5e-5);
  EXPECT_NEAR(q(0.1), kGpuStepJitterCvP10, 5e-5);
  EXPECT_NEAR(q(0.9), kGpuStepJitterCvP90, 5e-5);
}

TEST(Stragglers, JitterAndSpreadAreFractionsFromZeroToOne) {
  for (const std::string key : {"compute.jitter_cv", "compute.device_spread"})
    for (const char* v : {"-0.1", "1.5", "abc", "nan", ""}) {
      const auto r = testutil::run_ddlsim("simulate --" + key + "=" + v);
      EXPECT_EQ(r.code, 2) << key << v << "\n" << r.out;
      EXPECT_NE(r.out.find(key), std::string::npos) << key << v << "\n" << r.out;
    }
}
