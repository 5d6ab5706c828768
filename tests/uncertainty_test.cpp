// The 80 % interval of a prediction (predict/uncertainty.hpp): its spreads recomputed from their
// sources, the combination by hand, the properties it must keep, and how often it holds the
// bundled validation sets' measurements (compare/coverage.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>

#include "compare/validation.hpp"
#include "predict_util.hpp"
#include "test_util.hpp"

namespace {

using ddlsim::Prediction;
using ddlsim::Scenario;

using testutil::quantile;

const ddlsim::UncertaintyShare* input_named(const ddlsim::Uncertainty& u, const std::string& name) {
  for (const auto& s : u.inputs)
    if (s.name == name) return &s;
  return nullptr;
}

Prediction with_factor(Scenario s, double f) {
  s.system.compute.time_factor = f;
  return ddlsim::predict(s);
}

}  // namespace

// The measured / predicted ratio of every row `ddlsim compare ARGS --format csv` prints whose size
// is at least min_bytes (a step file has no size column: every row).
std::vector<double> compare_ratios(const std::string& args, double min_bytes = 0) {
  const auto r = testutil::run_ddlsim("compare " + args + " --format csv");
  EXPECT_EQ(r.code, 0) << r.out;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> head;
  for (std::stringstream h(line); std::getline(h, line, ',');) head.push_back(line);
  const auto col = [&](const char* a, const char* b) {
    auto it = std::find(head.begin(), head.end(), a);
    return std::size_t((it != head.end() ? it : std::find(head.begin(), head.end(), b)) - head.begin());
  };
  const std::size_t m = col("measured", "measured_s"), p = col("predicted", "predicted_s"), size = col("size_bytes", "");
  EXPECT_LT(p, head.size()) << r.out;
  std::vector<double> ratio;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    for (std::stringstream c(line); std::getline(c, line, ',');) cells.push_back(line);
    if (size < head.size() && std::stod(cells[size]) < min_bytes) continue;
    ratio.push_back(std::stod(cells[m]) / std::stod(cells[p]));
  }
  return ratio;
}

// kRooflineTimeP10/P90 are the 10th and 90th percentiles of measured / roofline step time over
// calibration/measured/h100-zoo-steps.csv, as `ddlsim compare` scores it.
TEST(Uncertainty, RooflineSpreadIsTheH100StepsOwn) {
  const std::string dir = testutil::source_dir() + "/calibration/measured/";
  const std::vector<double> ratio = compare_ratios(dir + "h100-zoo-steps.csv --scenario " + dir + "h100-one-gpu.ini");
  ASSERT_EQ(ratio.size(), 36u);
  EXPECT_NEAR(quantile(ratio, 0.1), ddlsim::kRooflineTimeP10, 5e-4);
  EXPECT_NEAR(quantile(ratio, 0.9), ddlsim::kRooflineTimeP90, 5e-4);
}

// The Kepler and Volta spreads: MXNet's K80 and V100 rows of the batch set (groups mxnet_k80 and
// mxnet_v100 of scenarios/validation/batch/runs.csv), each as `ddlsim compare` scores it on the
// group's scenario; measured / roofline time is predicted / measured throughput.
TEST(Uncertainty, RooflineSpreadsOfOlderGenerationsAreMxnetsOwn) {
  const std::string dir = testutil::source_dir() + "/scenarios/validation/batch/";
  std::istringstream runs(testutil::slurp(dir + "runs.csv"));
  std::string head, line, k80 = "", v100 = "";
  std::getline(runs, head);
  while (std::getline(runs, line)) {
    if (line.rfind("mxnet_k80,", 0) == 0) k80 += line + "\n";
    if (line.rfind("mxnet_v100,", 0) == 0) v100 += line + "\n";
  }
  const struct {
    std::string rows;
    std::size_t n;
    double p10, p90;
  } gens[] = {{k80, 12, ddlsim::kKeplerRooflineTimeP10, ddlsim::kKeplerRooflineTimeP90},
              {v100, 16, ddlsim::kVoltaRooflineTimeP10, ddlsim::kVoltaRooflineTimeP90}};
  for (const auto& g : gens) {
    const testutil::TempFile csv("runs.csv", head + "\n" + g.rows);
    std::vector<double> ratio = compare_ratios(csv.path() + " --scenario " + dir + "mxnet.ini");
    for (double& r : ratio) r = 1 / r;
    ASSERT_EQ(ratio.size(), g.n);
    EXPECT_NEAR(quantile(ratio, 0.1), g.p10, 5e-4);
    EXPECT_NEAR(quantile(ratio, 0.9), g.p90, 5e-4);
  }
}

// Which spread a roofline prediction takes: its GPU's generation where MXNet measured it in the
// same math (a K80 in any precision: no tensor cores; a V100 in FP32), else the H100's.
TEST(Uncertainty, RooflineSpreadFollowsTheGeneration) {
  const auto roofline = [](std::vector<std::string> keys) {
    for (const auto& in : ddlsim::uncertain_inputs(testutil::scenario_default(keys)))
      if (in.name == "compute (roofline)") return std::make_pair(in.lo, in.hi);
    return std::make_pair(0.0, 0.0);
  };
  using P = std::pair<double, double>;
  EXPECT_EQ(roofline({"--compute.device=k80", "--model.precision=fp32"}),
            P(ddlsim::kKeplerRooflineTimeP10, ddlsim::kKeplerRooflineTimeP90));
  EXPECT_EQ(roofline({"--compute.device=k80", "--model.precision=mixed"}),
            P(ddlsim::kKeplerRooflineTimeP10, ddlsim::kKeplerRooflineTimeP90));
  EXPECT_EQ(roofline({"--compute.device=v100-32gb", "--model.precision=fp32"}),
            P(ddlsim::kVoltaRooflineTimeP10, ddlsim::kVoltaRooflineTimeP90));
  EXPECT_EQ(roofline({"--compute.device=v100", "--model.precision=mixed"}),
            P(ddlsim::kRooflineTimeP10, ddlsim::kRooflineTimeP90));
  EXPECT_EQ(roofline({"--compute.device=a100", "--model.precision=fp32"}),
            P(ddlsim::kRooflineTimeP10, ddlsim::kRooflineTimeP90));
}

// Measured / predicted time of the allreduces of 1 MiB and more that the development systems of
// scenarios/validation/nccl logged (index.csv, role dev), each log scored by `ddlsim compare` on its
// system's scenario at its node and GPU counts (the file name's "<N>n_<G>g_"): the logs on one node
// (`one_node`) or those across nodes.
struct DevRatios {
  std::vector<double> ratio;
  int systems = 0;
};
DevRatios dev_nccl_ratios(bool one_node) {
  const std::string dir = testutil::source_dir() + "/scenarios/validation/nccl/";
  std::istringstream index(testutil::slurp(dir + "index.csv"));
  std::string line;
  std::getline(index, line);
  DevRatios out;
  while (std::getline(index, line)) {
    std::vector<std::string> cells;
    for (std::stringstream c(line); std::getline(c, line, ',');) cells.push_back(line);
    if (cells.size() < 5 || cells[3] != "dev" || cells[4] != "allreduce") continue;  // the allreduce rows
    bool counted = false;
    for (const auto& e : std::filesystem::directory_iterator(dir + cells[0])) {
      const std::string name = e.path().filename().string();
      const std::string nodes = name.substr(0, name.find("n_"));
      const std::size_t g = name.find("n_") + 2;
      const std::string gpus = name.substr(g, name.find("g_") - g);
      if ((nodes == "1") != one_node) continue;
      const auto r = compare_ratios(e.path().string() + " --op allreduce --scenario " + dir + cells[1] +
                                    " --cluster.nodes=" + nodes + " --cluster.gpus_per_node=" + gpus, 1 << 20);
      out.ratio.insert(out.ratio.end(), r.begin(), r.end());
      if (!counted) ++out.systems, counted = true;
    }
  }
  return out;
}

// kNcclTimeP10/P90: across nodes.
TEST(Uncertainty, NcclSpreadIsTheDevelopmentLogsOwn) {
  const DevRatios d = dev_nccl_ratios(false);
  EXPECT_EQ(d.systems, 6);
  ASSERT_EQ(d.ratio.size(), 127u);
  EXPECT_NEAR(quantile(d.ratio, 0.1), ddlsim::kNcclTimeP10, 5e-4);
  EXPECT_NEAR(quantile(d.ratio, 0.9), ddlsim::kNcclTimeP90, 5e-4);
}

// kNcclNodeTimeP10/P90: inside one node.
TEST(Uncertainty, NcclNodeSpreadIsTheOneNodeDevelopmentLogsOwn) {
  const DevRatios d = dev_nccl_ratios(true);
  EXPECT_EQ(d.systems, 5);
  ASSERT_EQ(d.ratio.size(), 56u);
  EXPECT_NEAR(quantile(d.ratio, 0.1), ddlsim::kNcclNodeTimeP10, 5e-4) << d.ratio.size() << " sizes";
  EXPECT_NEAR(quantile(d.ratio, 0.9), ddlsim::kNcclNodeTimeP90, 5e-4);
}

// One GPU on the roofline: compute is the one input, so the interval's ends are the predictions
// with compute at its two percentiles, exactly.
TEST(Uncertainty, OneInputGivesItsOwnPredictionsAsTheEnds) {
  const Scenario s = testutil::scenario_default({"--cluster.nodes=1", "--cluster.gpus_per_node=1"});
  const Prediction p = ddlsim::predict(s);
  const ddlsim::Uncertainty u = ddlsim::prediction_uncertainty(s, p);
  ASSERT_EQ(u.inputs.size(), 1u);
  EXPECT_EQ(u.inputs[0].name, "compute (roofline)");
  EXPECT_DOUBLE_EQ(u.inputs[0].share, 1.0);
  const Prediction lo = with_factor(s, ddlsim::kRooflineTimeP10), hi = with_factor(s, ddlsim::kRooflineTimeP90);
  EXPECT_NEAR(u.step_time_s.p10, lo.step_time_s, 1e-12 * p.step_time_s);
  EXPECT_NEAR(u.step_time_s.p90, hi.step_time_s, 1e-12 * p.step_time_s);
  EXPECT_NEAR(u.samples_per_s.p10, hi.samples_per_s, 1e-12 * p.samples_per_s);
  EXPECT_NEAR(u.samples_per_s.p90, lo.samples_per_s, 1e-12 * p.samples_per_s);
}

// Two nodes: compute, NCCL's exchanges, its socket threads (Poti's 1 GbE is TCP), the ranks' jitter
// and interference; the ends are the root sum of squares of each input's log-deviations, computed
// here from the five inputs' own predictions.
TEST(Uncertainty, InputsCombineAsTheRootSumOfSquaresOfTheirLogDeviations) {
  const Scenario s = testutil::scenario_default({"--cluster.nodes=2"});
  const Prediction p = ddlsim::predict(s);
  const ddlsim::Uncertainty u = ddlsim::prediction_uncertainty(s, p);
  const std::vector<ddlsim::UncertainInput> inputs = ddlsim::uncertain_inputs(s);
  ASSERT_EQ(inputs.size(), 5u);
  double down = 0, up = 0, shares = 0;
  for (const auto& in : inputs) {
    Scenario a = s, b = s;
    in.apply(a, in.lo);
    in.apply(b, in.hi);
    const double da = std::log(ddlsim::predict(a).step_time_s / p.step_time_s);
    const double db = std::log(ddlsim::predict(b).step_time_s / p.step_time_s);
    down += std::pow(std::min({0.0, da, db}), 2);
    up += std::pow(std::max({0.0, da, db}), 2);
    ASSERT_NE(input_named(u, in.name), nullptr) << in.name;
    shares += input_named(u, in.name)->share;
  }
  EXPECT_NEAR(u.step_time_s.p10, p.step_time_s * std::exp(-std::sqrt(down)), 1e-12 * p.step_time_s);
  EXPECT_NEAR(u.step_time_s.p90, p.step_time_s * std::exp(std::sqrt(up)), 1e-12 * p.step_time_s);
  EXPECT_NEAR(shares, 1.0, 1e-12);
  for (std::size_t i = 1; i < u.inputs.size(); ++i) EXPECT_GE(u.inputs[i - 1].share, u.inputs[i].share);
}

TEST(Uncertainty, EveryBandHoldsItsPoint) {
  for (const char* nodes : {"--cluster.nodes=1", "--cluster.nodes=2", "--cluster.nodes=4"}) {
    const Scenario s = testutil::scenario_default({nodes});
    const Prediction p = ddlsim::predict(s);
    const ddlsim::Uncertainty u = ddlsim::prediction_uncertainty(s, p);
    const struct { double v; ddlsim::Band b; } figs[] = {{p.step_time_s, u.step_time_s},
                                                         {p.epoch_time_s, u.epoch_time_s},
                                                         {p.samples_per_s, u.samples_per_s},
                                                         {p.efficiency, u.efficiency},
                                                         {p.exposed_comm_s, u.exposed_comm_s}};
    for (const auto& f : figs) {
      EXPECT_LE(f.b.p10, f.v * (1 + 1e-12)) << nodes;
      EXPECT_GE(f.b.p90, f.v * (1 - 1e-12)) << nodes;
      EXPECT_GE(f.b.p10, 0) << nodes;
    }
  }
}

// A value the scenario sets is not a default it rests on: its input leaves the interval.
TEST(Uncertainty, ValuesTheScenarioSetsCarryNoDefaultSpread) {
  const auto names = [](const Scenario& s) {
    std::vector<std::string> out;
    for (const auto& in : ddlsim::uncertain_inputs(s)) out.push_back(in.name);
    return out;
  };
  const std::vector<std::string> all = names(testutil::scenario_default({"--cluster.nodes=2"}));
  EXPECT_EQ(all, (std::vector<std::string>{"compute (roofline)", "NCCL across nodes", "socket threads",
                                           "step-to-step jitter", "interference"}));
  EXPECT_EQ(names(testutil::scenario_default({"--cluster.nodes=2", "--cluster.tcp_thread_GBps=2"})),
            (std::vector<std::string>{"compute (roofline)", "NCCL across nodes", "step-to-step jitter", "interference"}));
  // An RDMA network has no socket threads.
  EXPECT_EQ(names(testutil::scenario_default({"--cluster.nodes=2", "--cluster.inter=100gbe"})),
            (std::vector<std::string>{"compute (roofline)", "NCCL across nodes", "step-to-step jitter", "interference"}));
  // Another library's exchange: the rails' own spread (no compute slow-down beside host copies);
  // over Poti's 1 GbE MPI's TCP thread too.
  EXPECT_EQ(names(testutil::scenario_default({"--cluster.nodes=2", "--comm.library=mpi"})),
            (std::vector<std::string>{"compute (roofline)", "inter-node bandwidth", "socket threads",
                                      "step-to-step jitter"}));
  EXPECT_EQ(names(testutil::scenario_default({"--cluster.nodes=2", "--cluster.inter_bw_GBps=10",
                                              "--comm.interference=0.1", "--cluster.tcp_thread_GBps=2",
                                              "--compute.jitter_cv=0.02"})),
            (std::vector<std::string>{"compute (roofline)"}));
  // Links fitted with their spread (`ddlsim fit` writes comm.time_p10/p90 beside them): that spread.
  const Scenario fitted = testutil::scenario_default({"--cluster.nodes=2", "--cluster.inter_bw_GBps=10",
                                                      "--comm.time_p10=0.9", "--comm.time_p90=1.2",
                                                      "--cluster.tcp_thread_GBps=2"});
  EXPECT_EQ(names(fitted), (std::vector<std::string>{"compute (roofline)", "exchange time (fitted)", "step-to-step jitter",
                                                      "interference"}));
  EXPECT_DOUBLE_EQ(ddlsim::uncertain_inputs(fitted)[1].lo, 0.9);
  EXPECT_DOUBLE_EQ(ddlsim::uncertain_inputs(fitted)[1].hi, 1.2);
  EXPECT_EQ(names(testutil::scenario_default({"--cluster.nodes=2", "--compute.throughput=300",
                                              "--compute.throughput_batch=32"}))[0],
            "compute (measured)");
  // One node of several GPUs under NCCL: the one-node logs' spread, unless the node's links are set.
  const std::vector<std::string> one_node =
      names(testutil::scenario_default({"--cluster.platform=dgx-a100", "--cluster.nodes=1"}));
  EXPECT_EQ(one_node, (std::vector<std::string>{"compute (roofline)", "NCCL inside a node", "step-to-step jitter", "interference"}));
  EXPECT_EQ(names(testutil::scenario_default({"--cluster.platform=dgx-a100", "--cluster.nodes=1",
                                              "--cluster.intra_bw_GBps=200", "--comm.interference=0.1",
                                              "--compute.jitter_cv=0.02"})),
            (std::vector<std::string>{"compute (roofline)"}));
}

// SimGrid runs the point; its interval is the analytic backend's, relative to that point.
TEST(Uncertainty, SimGridTakesTheAnalyticRelativeInterval) {
  const Scenario a = testutil::scenario_default({"--cluster.nodes=2"});
  const Scenario s = testutil::scenario_default({"--cluster.nodes=2", "--simulation.backend=simgrid"});
  const Prediction pa = ddlsim::predict(a), ps = ddlsim::predict(s);
  const ddlsim::Uncertainty ua = ddlsim::prediction_uncertainty(a, pa), us = ddlsim::prediction_uncertainty(s, ps);
  EXPECT_NEAR(us.step_time_s.p10 / ps.step_time_s, ua.step_time_s.p10 / pa.step_time_s, 1e-12);
  EXPECT_NEAR(us.step_time_s.p90 / ps.step_time_s, ua.step_time_s.p90 / pa.step_time_s, 1e-12);
}

TEST(Uncertainty, SimulateReportsTheIntervalAndExplainsIt) {
  const auto j = testutil::run_ddlsim("simulate --format json");
  ASSERT_EQ(j.code, 0) << j.out;
  for (const char* f : {"step_time_p10_s", "step_time_p90_s", "epoch_time_p10_s", "epoch_time_p90_s",
                        "samples_per_s_p10", "samples_per_s_p90", "efficiency_p10", "efficiency_p90",
                        "exposed_comm_p10_s", "exposed_comm_p90_s"})
    EXPECT_NE(j.out.find(std::string("\"") + f + "\""), std::string::npos) << f;
  const auto t = testutil::run_ddlsim("simulate --cluster.nodes=2 --explain-uncertainty");
  ASSERT_EQ(t.code, 0) << t.out;
  EXPECT_NE(t.out.find("how sure (80 % interval"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("source: nccl-tests of 6 clusters"), std::string::npos) << t.out;
}

// A K80's two dies share one board's power: with both busy, a die may fall from its boost clock to
// its base clock (datasheet: 875 and 560 MHz), so a multi-GPU K80 node's compute may take up to
// 875 / 560 = 1.5625 times as long; a lone die, or another GPU, carries no such input.
TEST(Uncertainty, DiesSharingABoardMayFallToTheirBaseClock) {
  const auto board = [](std::vector<std::string> keys) -> std::optional<ddlsim::UncertainInput> {
    for (const auto& in : ddlsim::uncertain_inputs(testutil::scenario_default(keys)))
      if (in.name == "dies sharing a board") return in;
    return std::nullopt;
  };
  const std::vector<std::string> k80 = {"--compute.device=k80", "--model.precision=fp32", "--cluster.nodes=1",
                                        "--compute.throughput=50", "--compute.throughput_batch=32"};
  std::vector<std::string> eight = k80, one = k80;
  eight.push_back("--cluster.gpus_per_node=8");
  one.push_back("--cluster.gpus_per_node=1");
  const std::optional<ddlsim::UncertainInput> in = board(eight);
  ASSERT_TRUE(in);
  EXPECT_EQ(in->lo, 1.0);
  EXPECT_DOUBLE_EQ(in->hi, 1.5625);
  EXPECT_FALSE(board(one));
  EXPECT_FALSE(board({"--compute.device=v100", "--cluster.nodes=1", "--cluster.gpus_per_node=8"}));
  // At its high end the compute takes 1.5625 times as long: one rank alone shows it whole.
  Scenario s = testutil::scenario_default(one), slow = s;
  in->apply(slow, in->hi);
  EXPECT_NEAR(ddlsim::predict(slow).step_time_s / ddlsim::predict(s).step_time_s, 1.5625, 0.01);
}

// How often the interval holds the bundled sets' measurements (compare/coverage.hpp). The issue's
// targets: 70-90 % of the rows inside, calibrated from 1-GPU rows and from the roofline alone, and a
// median relative half-width of at most 15 % calibrated (the page: docs/validation-training.md).
TEST(Uncertainty, CoverageOfTheBundledSets) {
  const ddlsim::ValidationResult v = ddlsim::run_validation(ddlsim::default_validation_folder(), "all");
  const ddlsim::Coverage& c = v.coverage_calibrated;
  const ddlsim::Coverage& r = v.coverage_roofline;
  std::printf("calibrated %d/%d (%.3f) half-width %.4f; roofline %d/%d (%.3f) half-width %.4f\n", c.inside, c.n,
              c.share(), c.median_half_width(), r.inside, r.n, r.share(), r.median_half_width());
  ASSERT_GT(c.n, 50);
  ASSERT_GT(r.n, c.n);
  // Both meet them: the roofline's with the Kepler and Volta spreads measured apart, the calibrated
  // ones with the ranks' measured jitter and the K80 boards' clocks (a quarter of the rows before).
  // Outside stay the parameter servers of the EC2 cluster, predicted too slow, and mixed-precision
  // runs predicted too fast; nothing cited spreads what the input pipeline or the framework cost.
  EXPECT_LE(c.median_half_width(), 0.15);
  EXPECT_GE(c.share(), 0.70);
  EXPECT_LE(c.share(), 0.90);
  EXPECT_GE(r.share(), 0.70);
  EXPECT_LE(r.share(), 0.90);
  EXPECT_GE(r.median_half_width(), 0.15);
}

// A compute time measured at one batch and asked at another: the interval widens with the octaves
// between the two (predict/uncertainty.hpp kBatchOctaveLogTimeP10/P90), in either direction; asked
// at the measured batch, or between two batches a calibration file measured, there is no such input.
TEST(Uncertainty, ComputeAtAnotherBatchWidensWithTheOctaves) {
  const auto extrapolation = [](int batch) -> std::optional<std::pair<double, double>> {
    for (const auto& in : ddlsim::uncertain_inputs(testutil::scenario_default(
             {"--cluster.nodes=1", "--cluster.gpus_per_node=1", "--compute.throughput=300",
              "--compute.throughput_batch=256", "--training.batch_per_gpu=" + std::to_string(batch)})))
      if (in.name == "batch extrapolation") return std::make_pair(in.lo, in.hi);
    return std::nullopt;
  };
  EXPECT_FALSE(extrapolation(256));
  const auto four_times_smaller = extrapolation(64);
  ASSERT_TRUE(four_times_smaller);
  EXPECT_DOUBLE_EQ(four_times_smaller->first, std::exp(2 * ddlsim::kBatchOctaveLogTimeP10));
  EXPECT_DOUBLE_EQ(four_times_smaller->second, std::exp(2 * ddlsim::kBatchOctaveLogTimeP90));
  EXPECT_EQ(extrapolation(1024), four_times_smaller);  // as far the other way
  const auto width = [](int batch) {
    const Scenario sc = testutil::scenario_default({"--cluster.nodes=1", "--cluster.gpus_per_node=1",
                                                    "--compute.throughput=300", "--compute.throughput_batch=256",
                                                    "--training.batch_per_gpu=" + std::to_string(batch)});
    const ddlsim::Band b = ddlsim::prediction_uncertainty(sc, ddlsim::predict(sc)).step_time_s;
    return std::log(b.p90 / b.p10);
  };
  EXPECT_LT(width(256), width(128));
  EXPECT_LT(width(128), width(32));
}
