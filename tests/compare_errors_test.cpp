// `ddlsim compare`: a CSV made by the simulator itself with known perturbations gives exactly the
// expected errors, replications are grouped, the linear-scaling baseline is right, and bad CSVs
// stop with file, line and column, exit 2, and nothing written.
#include <gtest/gtest.h>

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "compare/comparison.hpp"
#include "core/text.hpp"
#include "predict/prediction.hpp"
#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"
#include "test_util.hpp"

using testutil::run_ddlsim;
using testutil::TempFile;

namespace {

const char* kBase =
    "[model]\nname = resnet50\ninput_size = 64\nclasses = 200\n"
    "[training]\nframework = tf_mirrored\nsamples = 100000\n"
    "[cluster]\nplatform = poti\n";

struct Config {
  int nodes, batch;
  double perturbation;  // measured = predicted x (1 + perturbation)
};
const Config kConfigs[] = {{1, 32, 0.0}, {1, 64, 0.1}, {2, 32, -0.2}, {2, 64, 0.05}, {3, 32, 0.25}, {3, 64, -0.1}};

double predicted_epoch_s(const std::string& file, int nodes, int batch) {
  const auto in = ddlsim::read_scenario(file, {fmt::format("--cluster.nodes={}", nodes),
                                               fmt::format("--training.batch_per_gpu={}", batch)});
  return ddlsim::predict(ddlsim::resolve_scenario(in.settings, ddlsim::dir_of(file))).epoch_time_s;
}

// Three replications per configuration around the perturbed value: x (1 - 1 %), x, x (1 + 1 %).
std::string measured_csv(const std::string& base, std::vector<double>& means) {
  std::string csv = "nodes,batch,replication,epoch_time_s\n";
  for (const auto& c : kConfigs) {
    const double m = predicted_epoch_s(base, c.nodes, c.batch) * (1 + c.perturbation);
    means.push_back(m);
    for (int r = 0; r < 3; ++r)
      csv += fmt::format("{},{},{},{}\n", c.nodes, c.batch, r, ddlsim::format_number(m * (0.99 + 0.01 * r)));
  }
  return csv;
}

}  // namespace

TEST(Compare, SimulatorMadeCsvWithKnownPerturbationsGivesExactErrors) {
  TempFile base("base.ini", kBase);
  std::vector<double> means;
  TempFile csv("measured.csv", measured_csv(base.path(), means));
  const auto r = run_ddlsim("compare " + csv.path() + " --scenario " + base.path() +
                            " --map nodes=cluster.nodes --map batch=training.batch_per_gpu --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 6u);
  double sum_abs = 0, sum = 0, max_abs = 0;
  double base_sum_abs = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    const auto& row = j["rows"][i];
    const double d = kConfigs[i].perturbation;
    const double expected = -d / (1 + d);  // (p - p(1+d)) / (p(1+d))
    EXPECT_EQ(row["count"], 3);
    EXPECT_NEAR(row["measured"].get<double>() / means[i], 1, 1e-14);
    EXPECT_NEAR(row["measured_sd"].get<double>() / means[i], 0.01, 1e-12);  // sd of {0.99, 1, 1.01} x m
    EXPECT_NEAR(row["error"].get<double>(), expected, 1e-12) << i;
    sum_abs += std::fabs(expected);
    sum += expected;
    max_abs = std::max(max_abs, std::fabs(expected));
    if (kConfigs[i].nodes == 1) {
      EXPECT_TRUE(row["baseline"].is_null());
      continue;
    }
    // Linear scaling from the 1-node measurement with the same batch.
    const double ref = means[kConfigs[i].batch == 32 ? 0 : 1];
    const double baseline = ref / kConfigs[i].nodes;
    EXPECT_NEAR(row["baseline"].get<double>() / baseline, 1, 1e-12);
    const double be = (baseline - means[i]) / means[i];
    EXPECT_NEAR(row["baseline_error"].get<double>(), be, 1e-12);
    base_sum_abs += std::fabs(be);
  }
  EXPECT_NEAR(j["model"]["mape"].get<double>(), sum_abs / 6, 1e-12);
  EXPECT_NEAR(j["model"]["bias"].get<double>(), sum / 6, 1e-12);
  EXPECT_NEAR(j["model"]["max_abs_error"].get<double>(), max_abs, 1e-12);
  EXPECT_EQ(j["baseline_scaled"]["n"], 4);
  EXPECT_NEAR(j["baseline_scaled"]["mape"].get<double>(), base_sum_abs / 4, 1e-12);
}

TEST(Compare, TableCsvAndPlot) {
  TempFile base("base.ini", kBase);
  std::vector<double> means;
  TempFile csv("measured.csv", measured_csv(base.path(), means));
  const std::string args = "compare " + csv.path() + " --scenario " + base.path() +
                           " --map nodes=cluster.nodes --map batch=training.batch_per_gpu";
  const auto table = run_ddlsim(args);
  ASSERT_EQ(table.code, 0) << table.out;
  EXPECT_NE(table.out.find("MAPE"), std::string::npos);
  EXPECT_NE(table.out.find("cluster.nodes=3 training.batch_per_gpu=64"), std::string::npos);
  const std::string out = csv.dir() + "/cmp.csv", svg = csv.dir() + "/cmp.svg";
  ASSERT_EQ(run_ddlsim(args + " --format csv --output " + out + " --plot " + svg).code, 0);
  const std::string text = testutil::slurp(out);
  EXPECT_EQ(text.rfind("cluster.nodes,training.batch_per_gpu,count,ranks,measured,", 0), 0u) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 7);
  const std::string plot = testutil::slurp(svg);
  EXPECT_EQ(plot.rfind("<svg", 0), 0u);
  EXPECT_EQ(std::count(plot.begin(), plot.end(), '\n') > 10, true);
  // Same inputs, same bytes.
  ASSERT_EQ(run_ddlsim(args + " --format csv --output " + out + ".2 --plot " + svg + ".2").code, 0);
  EXPECT_EQ(testutil::slurp(out + ".2"), text);
  EXPECT_EQ(testutil::slurp(svg + ".2"), plot);
}

namespace {
struct BadCase {
  const char* csv;
  const char* expected;  // in the message
};
}  // namespace

TEST(Compare, BadCsvNamesFileLineAndColumnAndWritesNothing) {
  TempFile base("base.ini", kBase);
  const BadCase cases[] = {
      {"cluster.nodes,replication\n1,0\n", "measured.csv:1: missing column"},
      {"cluster.nodes,epoch_time_s\n1,70.5\n2,fast\n", "measured.csv:3: column 'epoch_time_s' = 'fast': expected a number"},
      {"cluster.nodes,epoch_time_s\n1,70.5\n2,-3\n", "measured.csv:3: column 'epoch_time_s'"},
      {"cluster.nodes,epoch_time_s\n1,70.5\ntwo,60\n", "measured.csv:3: column 'cluster.nodes': cluster.nodes = 'two'"},
      // Poti has 6 nodes: 9 is a configuration this scenario cannot express.
      {"cluster.nodes,epoch_time_s\n1,70.5\n\n9,60\n", "measured.csv:4: column 'cluster.nodes': cluster.nodes = '9'"},
      {"cluster.nodes,model.name,epoch_time_s\n1,resnet50,70\n1,resnet19,60\n", "measured.csv:3: column 'model.name'"},
      {"cluster.nodes,epoch_time_s\n1,70.5,3\n", "measured.csv:2: 3 cells, expected 2"},
  };
  for (const auto& c : cases) {
    TempFile csv("measured.csv", c.csv);
    const std::string out = csv.dir() + "/out.csv", svg = csv.dir() + "/out.svg";
    const auto r = run_ddlsim("compare " + csv.path() + " --scenario " + base.path() + " --output " + out +
                              " --plot " + svg);
    EXPECT_EQ(r.code, 2) << c.csv << r.out;
    EXPECT_NE(r.out.find(c.expected), std::string::npos) << r.out;
    EXPECT_FALSE(testutil::exists(out)) << c.csv;
    EXPECT_FALSE(testutil::exists(svg)) << c.csv;
  }
}

TEST(Compare, MapErrors) {
  TempFile base("base.ini", kBase);
  TempFile csv("measured.csv", "n,epoch_time_s\n1,70\n");
  auto r = run_ddlsim("compare " + csv.path() + " --scenario " + base.path() + " --map nodes=cluster.nodes");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("missing column 'nodes'"), std::string::npos) << r.out;
  r = run_ddlsim("compare " + csv.path() + " --scenario " + base.path() + " --map n=cluster.nodez");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("unknown scenario key 'cluster.nodez'"), std::string::npos) << r.out;
  r = run_ddlsim("compare " + csv.path());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--scenario"), std::string::npos) << r.out;
}
