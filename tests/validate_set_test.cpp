// `ddlsim validate` on the bundled tf_cnn_benchmarks 2017 set, the zoo models it needs, and
// scenario overlays. The accuracy thresholds are the targets, checked on what the
// simulator actually predicts (no constant is tuned per row).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "compare/validation.hpp"
#include "compare/validation_report.hpp"
#include "core/error.hpp"
#include "model/model.hpp"
#include "scenario/settings.hpp"
#include "test_util.hpp"

using testutil::run_ddlsim;
using testutil::TempFile;

TEST(ValidateModels, ResNet152AndAlexNetParameterTotals) {
  using namespace ddlsim;
  const Model r152 = build_zoo_model("resnet152", default_model_options("resnet152"));
  EXPECT_EQ(r152.params_total(), 60'419'944);      // Keras ResNet152
  EXPECT_EQ(r152.params_trainable(), 60'268'520);  // minus BatchNorm moving statistics
  const Model alex = build_zoo_model("alexnet", default_model_options("alexnet"));
  EXPECT_EQ(default_model_options("alexnet").input_h, 227);
  EXPECT_EQ(alex.params_total(), 61'838'248);  // tf_cnn_benchmarks AlexNet, 1000 classes
  ModelOptions o = default_model_options("alexnet");
  o.classes = 1001;  // tf_cnn_benchmarks' ImageNet label count
  EXPECT_EQ(build_zoo_model("alexnet", o).params_total(), 61'842'345);
  o.input_h = o.input_w = 66;
  EXPECT_THROW(build_zoo_model("alexnet", o), InputError);
}

// OUT OF SAMPLE, the figures that say how ddlsim does on data it has not seen: nothing fitted
// (compute from each 1-GPU row only), and each model's rows predicted with the group's parameter
// fitted on the other models. Bounds: 4.8 % and 4.0 % rounded up, so a change that makes them worse
// fails; both must stay below linear scaling (9.0 %). The ranks' measured step-to-step jitter
// (cost/stragglers.hpp) moved leave-one-model-out to 4.2 % (the parameter server of 10 GbE EC2
// servers, already too slow, slower still; every other multi-GPU group but DGX-1's synthetic rows
// closer).
TEST(ValidateSet, APrioriAndLeaveOneModelOutBeatLinearScaling) {
  const ddlsim::ValidationResult v = ddlsim::run_validation(ddlsim::default_validation_folder());
  EXPECT_EQ(v.apriori.synthetic.n, 77);
  EXPECT_EQ(v.loo.synthetic.n, 77);
  EXPECT_LE(v.apriori.synthetic.mape, 0.049);
  EXPECT_LE(v.loo.synthetic.mape, 0.042);
  EXPECT_LT(v.apriori.synthetic.mape, v.baseline_synthetic.mape);
  EXPECT_LT(v.loo.synthetic.mape, v.baseline_synthetic.mape);
  EXPECT_LT(v.apriori.real.mape, v.baseline_real.mape);
  for (const auto& g : v.groups)
    if (g.baseline_synthetic.mape > 0.05) EXPECT_LT(g.apriori.synthetic.mape, g.baseline_synthetic.mape) << g.group.name;
}

// The published set (NVIDIA DeepLearningExamples, Lambda, an Azure Horovod study; 58 rows, nothing
// fitted): every figure is a priori. Bounds: today's MAPE (9.8 % synthetic, 3.2 % real: 3.9 %
// before the measured decode times, 3.8 % with the ranks' measured step-to-step jitter, which
// turns DLE's TensorFlow rows from 0-2 % too fast to 2-4 % too slow and its PyTorch rows from 3-6 %
// too fast to 1-2 %) rounded up, a guard against getting worse; on this set alone
// the pooled figure is 7.6 %, held up by Horovod over 10 GbE on Azure (35 % off); the target is
// asserted over every set below.
TEST(ValidateSet, PublishedRunsAPriori) {
  const ddlsim::ValidationResult v =
      ddlsim::run_validation(ddlsim::default_validation_folder(), "published");
  ASSERT_EQ(v.groups.size(), 12u);
  EXPECT_EQ(v.apriori.synthetic.n, 24);
  EXPECT_EQ(v.apriori.real.n, 12);
  EXPECT_LE(v.apriori.synthetic.mape, 0.098);
  EXPECT_LE(v.apriori.real.mape, 0.038);
  EXPECT_LT(v.apriori.synthetic.mape, v.baseline_synthetic.mape);
  EXPECT_LT(v.apriori.real.mape, v.baseline_real.mape);
  for (const auto& g : v.groups) EXPECT_TRUE(g.fitted.name.empty()) << g.group.name;  // nothing fitted
}

// NVIDIA DLE's ConvNets runs of ResNeXt-101 32x4d and SE-ResNeXt-101 32x4d (PyTorch 21.03 on DGX
// A100 and DGX-1; ResNeXt under TensorFlow 20.06 + Horovod on DGX A100, DGX-1 and DGX-2: 36 rows),
// bundled after every constant in the model was set: nothing was chosen with them in view, so
// all three figures are out of sample. Bounds: the first run's figures rounded up. The roofline
// alone is 7.3 % off on the 18 one-GPU rows (the PyTorch ones 3.4 %); the multi-GPU rows were 7.7 %
// off (5.0 % once ranks jittered by default; linear scaling 10.8 %): PyTorch's FP32 and TF32 rows
// within 3.1 %, its mixed-precision rows too fast by 12.5 to 18.8 %, as DLE's ResNet-50 mixed rows are (docs/compare.md, "Validation").
TEST(ValidateSet, ConvNetsRowsOutOfSample) {
  const ddlsim::ValidationResult v =
      ddlsim::run_validation(ddlsim::default_validation_folder(), "convnets");
  ASSERT_EQ(v.groups.size(), 6u);
  EXPECT_EQ(v.apriori.real.n, 18);
  EXPECT_EQ(v.roofline.n, 18);
  EXPECT_LE(v.roofline.mape, 0.074);
  EXPECT_LE(v.apriori.real.mape, 0.078);
  EXPECT_LT(v.apriori.real.mape, v.baseline_real.mape);
  for (const auto& g : v.groups) {
    EXPECT_TRUE(g.fitted.name.empty()) << g.group.name;
    if (g.group.scenario.find("dle_pt_") == std::string::npos) continue;  // the PyTorch groups
    for (const auto& r : g.a_priori.rows)
      if (r.prediction.ranks > 1 && *r.measured.find("model.precision") != "mixed")
        EXPECT_LT(std::abs(r.error), 0.035) << g.group.name << " " << r.measured.label();
  }
}

// Issue 11's target, A PRIORI over the whole bundled set (every set, every group, synthetic and
// real data: 186 multi-GPU rows, nothing fitted): at most 7 % (6.5 % before the ranks jittered by
// default, today 5.4 %), and below linear scaling on every group whose linear-scaling error
// exceeds 5 %.
TEST(ValidateSet, EveryBundledSetAPrioriMeetsTheTarget) {
  const ddlsim::ValidationResult v =
      ddlsim::run_validation(ddlsim::default_validation_folder(), "all");
  ASSERT_EQ(v.groups.size(), 22u);
  EXPECT_EQ(v.apriori_all.n, 186);
  EXPECT_LE(v.apriori_all.mape, 0.055);
  EXPECT_LT(v.apriori_all.mape, v.baseline_all.mape);
  for (const auto& g : v.groups) {
    if (g.baseline_synthetic.mape > 0.05) EXPECT_LT(g.apriori.synthetic.mape, g.baseline_synthetic.mape) << g.group.name;
    if (g.baseline_real.mape > 0.05) EXPECT_LT(g.apriori.real.mape, g.baseline_real.mape) << g.group.name;
  }
  // The page docs/validation-training.md is this result as `validate --set all --format markdown` writes it.
  EXPECT_EQ(ddlsim::render_validation_markdown(v), testutil::slurp(testutil::source_dir() + "/docs/validation-training.md"))
      << "docs/validation-training.md is generated: build/ddlsim validate --set all --format markdown > "
         "docs/validation-training.md";
}

// The roofline alone on the 1-GPU rows (no measurement at all): the target is 15 % on the
// published set's 22 rows (9.0 % with each run's activation layout as its script set it).
TEST(ValidateSet, RooflineAloneOnTheOneGpuRows) {
  const ddlsim::ValidationResult v =
      ddlsim::run_validation(ddlsim::default_validation_folder(), "published");
  EXPECT_EQ(v.roofline.n, 22);
  EXPECT_LE(v.roofline.mape, 0.15);
  for (const auto& g : v.groups)
    for (const auto& r : g.roofline.rows) EXPECT_EQ(r.prediction.ranks, 1) << g.group.name;
}

// IN-SAMPLE: each group's parameter is fitted on the very synthetic rows scored here, so this
// shows that one parameter per group can explain them, not how well ddlsim predicts a new system.
// (The real-data rows share the fitted value but were not fitted on.)
TEST(ValidateSet, InSampleFitOfOneParameterPerGroupMeetsTheTargets) {
  const ddlsim::ValidationResult v = ddlsim::run_validation(ddlsim::default_validation_folder());
  ASSERT_EQ(v.groups.size(), 4u);
  EXPECT_EQ(v.model_synthetic.n, 77);
  EXPECT_LE(v.model_synthetic.mape, 0.05);
  EXPECT_LT(v.model_synthetic.mape, v.baseline_synthetic.mape);
  for (const auto& g : v.groups) {
    EXPECT_FALSE(g.fitted.name.empty()) << g.group.name;  // exactly one named parameter per group
    if (g.baseline_synthetic.mape > 0.05) EXPECT_LT(g.model_synthetic.mape, g.baseline_synthetic.mape) << g.group.name;
  }
}

// PLUMBING, not accuracy: compute is calibrated from each synthetic 1-GPU row, so those rows must
// come back within the epoch's rounding of steps; this fails only if the calibration does not reach
// the prediction. (Real-data rows can be input-bound in the model: see docs/model.md.)
TEST(ValidateSet, OneGpuRowsGiveBackTheThroughputTheyCalibrate) {
  const ddlsim::ValidationResult v = ddlsim::run_validation(ddlsim::default_validation_folder());
  int checked = 0;
  for (const auto& g : v.groups)
    for (const auto& r : g.comparison.rows)
      if (r.prediction.ranks == 1 && *r.measured.find("input.format") == "synthetic") {
        EXPECT_NEAR(r.error, 0, 2e-3) << g.group.name << " " << r.measured.label();
        ++checked;
      }
  EXPECT_GT(checked, 10);
}

TEST(ValidateSet, CommandPrintsTheTableAndWritesNothingOnError) {
  const auto r = run_ddlsim("validate");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("aws_k80_cluster"), std::string::npos);
  EXPECT_NE(r.out.find("MAPE of the multi-GPU rows"), std::string::npos);
  // Each group's bias beside its MAPE: aws_k80_cluster's synthetic rows, ddlsim's then linear scaling's.
  const std::size_t table = r.out.find("MAPE of the multi-GPU rows");
  const std::size_t row = r.out.find("\n   aws_k80_cluster ", table);
  ASSERT_NE(row, std::string::npos);
  const std::string line = r.out.substr(row + 1, r.out.find('\n', row + 1) - row - 1);
  EXPECT_NE(line.find(" % ("), std::string::npos) << line;
  EXPECT_NE(line.find(") | "), std::string::npos) << line;
  TempFile out("v.json");
  const auto bad = run_ddlsim("validate --data /nonexistent --output " + out.path());
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("/nonexistent/tf_cnn_benchmarks_2017.csv"), std::string::npos) << bad.out;
  EXPECT_FALSE(testutil::exists(out.path()));
}

TEST(ValidateOverlay, FileThenOverlayThenCommandLine) {
  TempFile base("base.ini", "[cluster]\nnodes = 2\ninter_bw_GBps = 0.1\n[training]\nbatch_per_gpu = 16\n");
  TempFile overlay("fit.ini", "# fitted\n[cluster]\ninter_bw_GBps = 0.05\nnodes = 3\n");
  const auto in = ddlsim::read_scenario(base.path(), {overlay.path()}, {"--cluster.nodes=4"});
  EXPECT_EQ(in.settings.at("cluster.inter_bw_GBps").value, "0.05");
  EXPECT_EQ(in.settings.at("cluster.inter_bw_GBps").origin, overlay.path() + ":3");
  EXPECT_EQ(in.settings.at("cluster.nodes").value, "4");
  EXPECT_EQ(in.settings.at("training.batch_per_gpu").value, "16");
  const auto plain = run_ddlsim("simulate " + base.path() + " --format json");
  const auto over = run_ddlsim("simulate " + base.path() + " --overlay " + overlay.path() + " --format json");
  ASSERT_EQ(over.code, 0) << over.out;
  EXPECT_EQ(nlohmann::json::parse(over.out)["nodes"], 3);
  EXPECT_GT(nlohmann::json::parse(over.out)["comm_time_s"].get<double>(),
            nlohmann::json::parse(plain.out)["comm_time_s"].get<double>());
  TempFile bad("bad.ini", "[cluster]\nnodez = 3\n");
  const auto r = run_ddlsim("simulate " + base.path() + " --overlay " + bad.path());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find(bad.path() + ":2: unknown key 'cluster.nodez'"), std::string::npos) << r.out;
}
