// `ddlsim fit`: recovers a known network bandwidth from synthetic measurements, writes an overlay
// that `simulate` and `compare` accept, and fits the hand-made regression models exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "compare/effective_fit.hpp"
#include "compare/regression.hpp"
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
    "[training]\nframework = horovod\nsamples = 50000\n"
    "[cluster]\nplatform = poti\n";

double epoch_s(const std::string& base, int nodes, int batch, const std::string& bw) {
  const auto in = ddlsim::read_scenario(base, {fmt::format("--cluster.nodes={}", nodes),
                                               fmt::format("--training.batch_per_gpu={}", batch),
                                               "--cluster.inter_bw_GBps=" + bw});
  return ddlsim::predict(ddlsim::resolve_scenario(in.settings, ".")).epoch_time_s;
}

// A study measured on a network of 0.0735 GB/s (not the 0.1175 GB/s of 1 GbE the scenario assumes),
// two replications at +-2 % each.
std::string synthetic_study(const std::string& base) {
  std::string csv = "nodes,batch,epoch_time_s\n";
  for (int nodes : {1, 2, 3, 4})
    for (int batch : {32, 64}) {
      const double t = epoch_s(base, nodes, batch, "0.0735");
      csv += fmt::format("{},{},{}\n{},{},{}\n", nodes, batch, ddlsim::format_number(t * 0.98), nodes, batch,
                         ddlsim::format_number(t * 1.02));
    }
  return csv;
}

}  // namespace

TEST(Fit, RecoversAKnownBandwidthWithinOnePercent) {
  TempFile base("base.ini", kBase);
  TempFile csv("study.csv", synthetic_study(base.path()));
  const std::string overlay = csv.dir() + "/fitted.ini";
  const auto r = run_ddlsim("fit " + csv.path() + " --scenario " + base.path() +
                            " --map nodes=cluster.nodes --map batch=training.batch_per_gpu --params inter_bw"
                            " --format json --overlay-out " + overlay);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["effective"].size(), 1u);
  EXPECT_EQ(j["effective"][0]["key"], "cluster.inter_bw_GBps");
  EXPECT_DOUBLE_EQ(j["effective"][0]["before"].get<double>(), 0.1175);
  const double fitted = j["effective"][0]["after"].get<double>();
  EXPECT_NEAR(fitted / 0.0735, 1, 0.01) << fitted;
  EXPECT_GT(j["error_before"]["mape"].get<double>(), 0.05);
  EXPECT_LT(j["error_after"]["mape"].get<double>(), 1e-6);

  // The overlay closes the loop: compare with it shows the fitted error.
  const std::string text = testutil::slurp(overlay);
  EXPECT_NE(text.find("[cluster]\ninter_bw_GBps = "), std::string::npos) << text;
  const auto c = run_ddlsim("compare " + csv.path() + " --scenario " + base.path() + " --overlay " + overlay +
                            " --map nodes=cluster.nodes --map batch=training.batch_per_gpu --format json");
  ASSERT_EQ(c.code, 0) << c.out;
  EXPECT_LT(nlohmann::json::parse(c.out)["model"]["mape"].get<double>(), 1e-6);
}

TEST(Fit, UnidentifiableParameterIsKeptAndSaid) {
  TempFile base("base.ini", kBase);
  // One node only: the inter-node link never carries anything.
  TempFile csv("one.csv", "cluster.nodes,training.batch_per_gpu,epoch_time_s\n1,32,30\n1,64,20\n");
  const auto r = run_ddlsim("fit " + csv.path() + " --scenario " + base.path() + " --params inter_bw,compute --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["effective"][0]["identifiable"].get<bool>());
  EXPECT_DOUBLE_EQ(j["effective"][0]["after"].get<double>(), 0.1175);
  EXPECT_TRUE(j["effective"][1]["identifiable"].get<bool>());
}

TEST(Fit, UnknownParameterExits2) {
  TempFile base("base.ini", kBase);
  TempFile csv("one.csv", "cluster.nodes,epoch_time_s\n1,30\n2,20\n");
  const auto r = run_ddlsim("fit " + csv.path() + " --scenario " + base.path() + " --params bandwidth");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("unknown parameter 'bandwidth'"), std::string::npos) << r.out;
}

TEST(FitRegression, RecoversAnExactQuadratic) {
  // y = 50 - 12 n + 0.4 b + 1.5 n^2 + 0.002 b^2 - 0.05 n b, on a 3 x 3 design.
  ddlsim::MeasuredSet set;
  std::vector<ddlsim::Scenario> scs;
  const auto base = ddlsim::resolve_scenario(ddlsim::read_scenario("", {}).settings, ".");
  for (int n : {1, 2, 3})
    for (int b : {32, 64, 100}) {
      const double y = 50 - 12.0 * n + 0.4 * b + 1.5 * n * n + 0.002 * b * b - 0.05 * n * b;
      ddlsim::add_row(set, {{"cluster.nodes", std::to_string(n), ""}, {"training.batch_per_gpu", std::to_string(b), ""}},
                      0, y);
      ddlsim::Scenario sc = base;
      sc.system.nodes = n;
      sc.execution.batch_per_gpu = b;
      scs.push_back(sc);
    }
  ddlsim::finish_groups(set);
  const auto fits = ddlsim::fit_regressions(set, scs);
  ASSERT_EQ(fits.size(), 2u);
  const auto& lin = fits[0];
  const auto& quad = fits[1];
  EXPECT_EQ(lin.terms, (std::vector<std::string>{"1", "nodes", "batch"}));
  EXPECT_LT(lin.r2, 1);
  ASSERT_EQ(quad.terms, (std::vector<std::string>{"1", "nodes", "batch", "nodes^2", "batch^2", "nodes*batch"}));
  const double expected[] = {50, -12, 0.4, 1.5, 0.002, -0.05};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(quad.coefficients[i], expected[i], 1e-9) << quad.terms[i];
  EXPECT_NEAR(quad.r2, 1, 1e-12);
  for (double r : quad.residuals) EXPECT_NEAR(r, 0, 1e-9);
}

// Measurements no parameter value can explain.
TEST(Fit, ParameterPushedToAnExtremeStopsAtTheEdgeOfItsRange) {
  TempFile base("base.ini", kBase);
  TempFile csv("wild.csv", "cluster.nodes,epoch_time_s\n1,1e-9\n2,1e15\n3,1e-9\n");
  const auto r = run_ddlsim("fit " + csv.path() + " --scenario " + base.path() + " --params inter_latency --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  const auto& p = j["effective"][0];
  // Lower latency always fits these data better: the fit stops 4 decades below the start, says so,
  // and does not drift on (it once reported 2.5e-15 us as "not identifiable; kept").
  EXPECT_TRUE(p["identifiable"].get<bool>()) << r.out;
  EXPECT_NEAR(p["after"].get<double>() / p["before"].get<double>(), 1e-4, 1e-9) << r.out;
  EXPECT_NE(p["note"].get<std::string>().find("edge of its search range"), std::string::npos) << r.out;
}

// Fit and score are separate steps: a fit on training rows only, applied to held-out rows that it
// never saw (other scenario objects, other addresses), scores them out of sample.
TEST(FitScore, FitOnTrainingRowsThenScoreHeldOutRows) {
  std::vector<ddlsim::Scenario> train_scs, test_scs;
  ddlsim::MeasuredSet train, test;
  for (int nodes : {1, 2, 3, 4}) {
    const auto in = ddlsim::read_scenario("", {fmt::format("--cluster.nodes={}", nodes), "--cluster.platform=poti",
                                               "--model.input_size=64", "--training.samples=50000"});
    ddlsim::Scenario sc = ddlsim::resolve_scenario(in.settings, ".");
    ddlsim::Scenario truth = sc;
    truth.system.cluster.inter.bw_Bps = 0.05e9;  // the "real" network
    const double measured = ddlsim::predict(truth).epoch_time_s;
    auto& set = nodes % 2 ? train : test;  // nodes 1, 3 train; 2, 4 are held out
    ddlsim::add_row(set, {{"cluster.nodes", std::to_string(nodes), ""}}, 0, measured);
    (nodes % 2 ? train_scs : test_scs).push_back(sc);
  }
  ddlsim::finish_groups(train);
  ddlsim::finish_groups(test);
  const std::vector<ddlsim::SharedParameter> params = {ddlsim::shared_parameter("inter_bw", train_scs)};
  const ddlsim::FittedParameters fitted = ddlsim::fit_parameters(train, train_scs, params);
  ASSERT_EQ(fitted.params.size(), 1u);
  EXPECT_NEAR(fitted.params[0].after, 0.05, 0.05 * 1e-6);  // in GB/s
  EXPECT_LT(fitted.after.mape, 1e-6);
  // The held-out rows, scored with the training rows' value: out of sample, and exact here too.
  const auto scored = ddlsim::compare_predictions(test, ddlsim::apply_parameters(test_scs, params, fitted));
  ASSERT_EQ(scored.rows.size(), 2u);
  EXPECT_LT(scored.model.mape, 1e-6);
  // The bases are left as they were: applying nothing gives the unfitted predictions back.
  EXPECT_DOUBLE_EQ(test_scs[0].system.cluster.inter.bw_Bps, ddlsim::find_cluster("poti", "").inter.bw_Bps);
}
