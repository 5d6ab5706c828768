// `ddlsim map`: grid values are forward predictions; comm overhead falls with bandwidth; the
// synthetic model of model.params.
#include <gtest/gtest.h>

#include <cmath>

#include "core/text.hpp"
#include "model/synthetic.hpp"
#include "plan/map.hpp"
#include "scenario/resolve.hpp"
#include "test_util.hpp"

using namespace ddlsim;
using testutil::run_ddlsim;

namespace {
const std::string kPoti = testutil::source_dir() + "/scenarios/poti_resnet50.ini";

Prediction predict_of(const std::vector<std::string>& overrides) {
  return predict(resolve_scenario(read_scenario(kPoti, overrides).settings, "."));
}

Evaluator poti_evaluator() { return Evaluator(read_scenario(kPoti, {}).settings, "."); }
}  // namespace

TEST(Map, GridValuesEqualForwardPredictions) {
  MapAxis x = parse_map_axis("cluster.inter_bw_GBps=0.1..100", "--x");
  MapAxis y = parse_map_axis("training.batch_per_gpu=16..128", "--y");
  x.points = 7, x.log = true, y.points = 5;
  const MapGrid g = compute_map(poti_evaluator(), x, y, find_metric("epoch_time_s", "--z"));
  ASSERT_EQ(g.xs.size(), 7u);
  ASSERT_EQ(g.ys.size(), 5u);
  EXPECT_EQ(g.failed, 0u);
  for (const auto& [ix, iy] : std::vector<std::pair<int, int>>{{0, 0}, {3, 2}, {6, 4}, {2, 1}}) {
    const Prediction p = predict_of({"--cluster.inter_bw_GBps=" + format_number(g.xs[ix]),
                                     "--training.batch_per_gpu=" + std::to_string(std::lround(g.ys[iy]))});
    EXPECT_DOUBLE_EQ(g.at(ix, iy), p.epoch_time_s) << ix << "," << iy;
  }
}

TEST(Map, CommOverheadFallsWithBandwidthAtEveryModelSize) {
  MapAxis x = parse_map_axis("model.params=1e6..1e9", "--x");
  MapAxis y = parse_map_axis("cluster.inter_bw_GBps=0.1..100", "--y");
  x.points = 8, y.points = 12, x.log = y.log = true;
  const MapGrid g = compute_map(poti_evaluator(), x, y, find_metric("comm_overhead", "--z"));
  EXPECT_EQ(g.failed, 0u);
  for (std::size_t ix = 0; ix < g.xs.size(); ++ix)
    for (std::size_t iy = 1; iy < g.ys.size(); ++iy) EXPECT_LE(g.at(ix, iy), g.at(ix, iy - 1)) << ix << "," << iy;
  // The zoo's models are marked on the x axis, resnet50 among them.
  const auto r50 = std::find_if(g.marks.begin(), g.marks.end(), [](const ZooMark& m) { return m.model == "resnet50"; });
  ASSERT_NE(r50, g.marks.end());
  EXPECT_EQ(r50->params, double(predict_of({}).params_total));
}

TEST(Map, SyntheticModelOfTheBaseSizeIsTheBaseModel) {
  const Prediction base = predict_of({});
  const Evaluator ev = poti_evaluator();
  const Prediction same = ev.predict_at({{"model.params", std::to_string(base.params_total)}});
  EXPECT_DOUBLE_EQ(same.epoch_time_s, base.epoch_time_s);
  const Prediction big = ev.predict_at({{"model.params", "1e8"}});
  EXPECT_EQ(big.params_total, 100000000);
  EXPECT_GT(big.gradient_bytes, base.gradient_bytes);
}

TEST(Map, WidenScalesParametersAndOperations) {
  const Model base = build_zoo_model("resnet50", default_model_options("resnet50"));
  const Model m = widen_to_params(base, 4.0 * base.params_total());
  EXPECT_EQ(m.params_total(), 4 * base.params_total());
  EXPECT_NEAR(m.fwd_flops_per_sample() / base.fwd_flops_per_sample(), 4, 1e-9);
  EXPECT_NEAR(double(m.activation_elems_per_sample()) / base.activation_elems_per_sample(), 2, 1e-3);
}

TEST(Map, CommandWritesCsvAndSvg) {
  testutil::TempFile svg("map.svg");
  const std::string csv = svg.dir() + "/map.csv";
  const auto r = run_ddlsim("map " + kPoti + " --x model.params=1e6..1e9 --y cluster.inter_bw_GBps=0.1..100 "
                            "--z comm_overhead --points 6x5 --log x,y --svg " + svg.path() + " --csv " + csv);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("zoo models"), std::string::npos) << r.out;
  const std::string text = testutil::slurp(csv);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 6 * 5);
  EXPECT_EQ(text.rfind("model.params,cluster.inter_bw_GBps,comm_overhead,error\n", 0), 0u);
  const std::string pic = testutil::slurp(svg.path());
  EXPECT_NE(pic.find("<svg"), std::string::npos);
  EXPECT_NE(pic.find("<path"), std::string::npos);  // contour lines
  EXPECT_NE(pic.find("resnet50"), std::string::npos);
  // Each contour line carries its level as a label.
  std::size_t paths = 0, labels = 0;
  for (auto at = pic.find("<path"); at != std::string::npos; at = pic.find("<path", at + 1)) ++paths;
  for (auto at = pic.find("class=\"contour-label\""); at != std::string::npos; at = pic.find("class=\"contour-label\"", at + 1)) ++labels;
  EXPECT_GT(paths, 0u);
  EXPECT_EQ(labels, paths);
}

TEST(Map, BadRequestsExitTwoNamingTheKey) {
  const struct {
    std::string args, names;
  } cases[] = {
      {"--x model.parms=1e6..1e9 --y cluster.inter_bw_GBps=0.1..100", "model.parms"},
      {"--x model.params=1e6..x --y cluster.inter_bw_GBps=0.1..100", "model.params"},
      {"--x model.params=1e9..1e6 --y cluster.inter_bw_GBps=0.1..100", "empty"},
      {"--x comm.algorithm=1..2 --y cluster.inter_bw_GBps=0.1..100", "comm.algorithm"},
      {"--x model.params=1e6..1e9 --y model.params=1..2", "model.params"},
      {"--x model.params=1e6..1e9 --y cluster.inter_bw_GBps=0.1..100 --z speed", "speed"},
      {"--x model.params=1e6..1e9 --y cluster.inter_bw_GBps=0.1..100 --points 1x5", "--points"},
      {"--x model.params=1e6..1e9 --y cluster.inter_bw_GBps=-1..100 --log y", "cluster.inter_bw_GBps"},
  };
  for (const auto& c : cases) {
    const auto r = run_ddlsim("map " + kPoti + " " + c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find("ddlsim: error:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(c.names), std::string::npos) << c.args << "\n" << r.out;
  }
}

TEST(Map, AnAxisWithOneDistinctIntegerIsAnError) {
  const auto r = run_ddlsim("map " + kPoti + " --x training.sync_period=1.2..1.4 --y cluster.nodes=1..3");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("training.sync_period"), std::string::npos) << r.out;
}

// --z an end of the 80 % interval: each point is that end of the interval `simulate` gives it.
TEST(Map, AnIntervalsEndIsEachPointsOwn) {
  MapAxis x = parse_map_axis("cluster.inter_bw_GBps=0.1..100", "--x");
  MapAxis y = parse_map_axis("training.batch_per_gpu=16..128", "--y");
  x.points = 3, x.log = true, y.points = 2;
  const Evaluator ev = poti_evaluator();
  const MapGrid g = compute_map(ev, x, y, find_metric("efficiency_p10", "--z"));
  EXPECT_EQ(g.failed, 0u);
  const Prediction p = ev.predict_at({{"cluster.inter_bw_GBps", format_number(g.xs[1])},
                                      {"training.batch_per_gpu", std::to_string(std::lround(g.ys[1]))}},
                                     true);
  ASSERT_TRUE(p.uncertainty);
  EXPECT_DOUBLE_EQ(g.at(1, 1), p.uncertainty->efficiency.p10);
  EXPECT_LT(g.at(1, 1), p.efficiency);
  // advise targets the figure and gives each end's value itself.
  const auto r = run_ddlsim("advise " + kPoti + " --vary cluster.inter_bw_GBps --target efficiency_p10=0.5");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("an end of the 80 % interval"), std::string::npos) << r.out;
}
