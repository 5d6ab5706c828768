// `ddlsim profile`: one micro-batch's compute layer by layer. The layers add up to the totals it
// prints, --top keeps the slowest in order, and bad arguments exit 2 with the reason.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "calibration/calibration_file.hpp"
#include "kernels/kernel_plan.hpp"
#include "model/model.hpp"
#include "test_util.hpp"

using ddlsim::Precision;

namespace {

nlohmann::json profile_json(const std::string& extra) {
  const auto r = testutil::run_ddlsim("profile " + testutil::source_dir() + "/scenarios/default.ini --format json " +
                                      extra);
  EXPECT_EQ(r.code, 0) << r.out;
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST(Profile, LayersAddUpToTheTotals) {
  const auto j = profile_json("");
  double fwd = 0, bwd = 0, share = 0;
  for (const auto& l : j["per_layer"]) {
    fwd += l["forward_s"].get<double>();
    bwd += l["backward_s"].get<double>();
    share += l["share"].get<double>();
  }
  EXPECT_NEAR(fwd, j["forward_s"].get<double>(), 1e-12);
  EXPECT_NEAR(bwd, j["backward_s"].get<double>(), 1e-12);
  const double step = j["step_s"].get<double>();
  EXPECT_NEAR(step, fwd + bwd + j["optimizer_s"].get<double>() + j["framework_s"].get<double>(), 1e-12);
  // The layers' shares leave out the optimizer's and the framework's.
  EXPECT_NEAR(share, (fwd + bwd) / step, 1e-9);
  EXPECT_EQ(j["source"], "roofline");
  // Every layer of the model, as `ddlsim models` lists them.
  const auto m = testutil::run_ddlsim("models resnet50 --format json");
  ASSERT_EQ(m.code, 0);
  EXPECT_EQ(j["per_layer"].size(), nlohmann::json::parse(m.out)["layers"].get<std::size_t>());
  // The kernels a step launches: the layers' and the update's, one a variable in a graph (the
  // default scenario's Horovod preset; Keras ResNet-50 holds 214 trainable tensors).
  int kernels = 0;
  for (const auto& l : j["per_layer"]) kernels += l["kernels"].get<int>();
  EXPECT_EQ(j["kernels"].get<int>() - kernels, 214);
  EXPECT_EQ(j["host_wait_share"].get<double>(), 0.0);
}

// With the host's time given, the profile says how much of the step the GPU waits, and the layers
// still add up to the totals; 10 s of host time for a ~0.09 s step: the GPU waits nearly throughout.
TEST(Profile, NamesTheHostWait) {
  const auto j = profile_json("--compute.host_step_ms=10000");
  double fwd = 0;
  for (const auto& l : j["per_layer"]) fwd += l["forward_s"].get<double>();
  EXPECT_NEAR(fwd, j["forward_s"].get<double>(), 1e-9);
  EXPECT_GT(j["host_wait_share"].get<double>(), 0.99);
  EXPECT_LT(j["host_wait_share"].get<double>(), 1.0);
  EXPECT_GE(j["step_s"].get<double>(), 10.0);
}

TEST(Profile, TopKeepsTheSlowestInOrder) {
  const auto all = profile_json("");
  const auto top = profile_json("--top 5");
  ASSERT_EQ(top["per_layer"].size(), 5u);
  double slowest = 0;
  for (const auto& l : all["per_layer"])
    slowest = std::max(slowest, l["forward_s"].get<double>() + l["backward_s"].get<double>());
  double last = slowest;
  for (const auto& l : top["per_layer"]) {
    const double t = l["forward_s"].get<double>() + l["backward_s"].get<double>();
    EXPECT_LE(t, last);
    last = t;
  }
  EXPECT_DOUBLE_EQ(top["per_layer"][0]["forward_s"].get<double>() + top["per_layer"][0]["backward_s"].get<double>(),
                   slowest);
  // A measured throughput scales every layer; the profile says so.
  EXPECT_EQ(profile_json("--compute.throughput=500")["source"], "roofline scaled to the measured throughput");
}

// A calibration file's per-layer times, of the device it measured (here this machine's CPU).
TEST(Profile, CalibratedLayersNameTheirDevice) {
  testutil::TempFile cal("small_cnn.cal");
  const auto c = testutil::run_ddlsim("calibrate --device cpu --model small_cnn --batch 4 --out " + cal.path());
  ASSERT_EQ(c.code, 0) << c.out;
  const auto j = profile_json("--model.name=small_cnn --model.input_size=32 --model.classes=10 "
                              "--training.batch_per_gpu=4 --compute.calibration=" + cal.path());
  EXPECT_EQ(j["source"], "calibration");
  EXPECT_EQ(j["device"].get<std::string>().rfind("cpu", 0), 0u) << j["device"];
}

TEST(Profile, BadArgumentsExit2) {
  const auto top = testutil::run_ddlsim("profile --top -2");
  EXPECT_EQ(top.code, 2);
  EXPECT_NE(top.out.find("--top -2: expected a count >= 0"), std::string::npos) << top.out;
  const auto key = testutil::run_ddlsim("profile --training.batch_per_gpu=0");
  EXPECT_EQ(key.code, 2);
  EXPECT_NE(key.out.find("training.batch_per_gpu"), std::string::npos) << key.out;
  const auto two = testutil::run_ddlsim("profile a.ini b.ini");
  EXPECT_EQ(two.code, 2);
}

// --kernels sets the roofline's price of each kernel beside a calibration's time: it prices the
// very kernels the harness runs (every one matched, none left over), and bad inputs exit 2.
namespace {

std::string harness_calibration(const std::string& model, Precision p, int batch, double each_s) {
  const ddlsim::Model m = ddlsim::build_zoo_model(model, ddlsim::default_model_options(model));
  ddlsim::Calibration c;
  c.device = "cuda:0: test";
  c.device_kind = "cuda";
  c.model = m.name;
  c.model_params = m.params_total();
  c.model_fwd_flops = m.fwd_flops_per_sample();
  c.precision = ddlsim::to_string(p);
  for (const ddlsim::LayerKernels& lk : ddlsim::model_kernels(m, batch, p)) {
    ddlsim::LayerTiming r{lk.layer, batch};
    for (const ddlsim::KernelSpec& k : lk.kernels) {
      (k.phase == ddlsim::KernelPhase::Forward    ? r.fwd_s
       : k.phase == ddlsim::KernelPhase::Backward ? r.bwd_s
       : k.phase == ddlsim::KernelPhase::Update   ? r.update_s
                                                  : r.accum_s) += each_s;
      c.kernels.push_back({lk.layer, batch, ddlsim::to_string(k.phase), k.name, each_s});
    }
    c.rows.push_back(r);
  }
  return ddlsim::render_calibration(c);
}

}  // namespace

TEST(Profile, KernelsMatchTheHarnessOneForOne) {
  for (const auto& [model, p] : {std::pair{"small_cnn", Precision::FP32}, std::pair{"vit_ti_16", Precision::Mixed}}) {
    testutil::TempFile cal("m.cal", harness_calibration(model, p, 2, 1e-5));
    testutil::TempFile ini("s.ini", fmt::format("[model]\nname = {}\nprecision = {}\n[training]\nbatch_per_gpu = 2\n"
                                                "[compute]\ncalibration = {}\n", model, ddlsim::to_string(p), cal.path()));
    const auto r = testutil::run_ddlsim("profile " + ini.path() + " --kernels --format json");
    ASSERT_EQ(r.code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_GT(j["matched"].get<int>(), 10) << model;
    EXPECT_EQ(j["roofline_only"].get<int>(), 0) << model;
    EXPECT_EQ(j["measured_only"].get<int>(), 0) << model;
    EXPECT_NEAR(j["measured_s"].get<double>(), j["matched"].get<int>() * 1e-5, 1e-12);
    EXPECT_EQ(j["per_kernel"].size(), j["matched"].get<std::size_t>());
  }
  // Another batch than the calibration's, and no calibration at all.
  testutil::TempFile cal("m.cal", harness_calibration("small_cnn", Precision::FP32, 2, 1e-5));
  testutil::TempFile ini("s.ini", "[model]\nname = small_cnn\n[training]\nbatch_per_gpu = 4\n[compute]\ncalibration = " +
                                      cal.path() + "\n");
  auto r = testutil::run_ddlsim("profile " + ini.path() + " --kernels");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("kernels were timed at batch 2; the scenario's training.batch_per_gpu is 4"), std::string::npos)
      << r.out;
  r = testutil::run_ddlsim("profile " + testutil::source_dir() + "/scenarios/default.ini --kernels");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("set compute.calibration = FILE"), std::string::npos) << r.out;
}
