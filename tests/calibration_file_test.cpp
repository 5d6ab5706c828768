// The calibration file format, the unmeasured-batch rule, and the checks that stop a calibration
// made for another model.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>
#include <tuple>

#include "calibration/calibration_file.hpp"
#include "core/error.hpp"
#include "cost/compute.hpp"
#include "model/model.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {

Calibration sample() {
  Calibration c;
  c.device = "cpu: test";
  c.device_kind = "cpu";
  c.model = "tiny";
  c.model_params = 10;
  c.model_fwd_flops = 20;
  c.precision = "fp32";
  c.clock = "test clock";
  c.tool = "unit test";
  c.host = "h";
  c.date = "2026-01-01T00:00:00Z";
  c.rows = {{"dense", 32, 1e-3, 2e-3, 1e-4, 5e-5, 4}, {"dense", 64, 1.5e-3, 3e-3, 1e-4, 5e-5, 4}};
  return c;
}

std::string expect_error(const std::string& text) {
  try {
    parse_calibration(text, "cal.txt");
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return "";
}

Model tiny_model() {
  Model m;
  m.name = "tiny";
  Layer d;
  d.name = "dense";
  d.kind = LayerKind::Dense;
  d.params_trainable = 10;
  d.fwd_flops = 20;
  m.layers = {d};
  return m;
}

}  // namespace

TEST(CalibrationFile, RoundTripsByteForByte) {
  const std::string text = render_calibration(sample());
  const Calibration back = parse_calibration(text, "cal.txt");
  EXPECT_EQ(render_calibration(back), text);
  ASSERT_EQ(back.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(back.rows[1].fwd_s, 1.5e-3);
  EXPECT_EQ(back.batches(), (std::vector<int>{32, 64}));
}

// Format 2 lists each layer's kernels after the layers; format 1 files (layers only) still read.
Calibration with_kernels() {
  Calibration c = sample();
  for (int b : {32, 64}) {
    const double f = b == 32 ? 1 : 1.5;
    c.kernels.push_back({"dense", b, "forward", "fwd_gemm", f * 1e-3});
    c.kernels.push_back({"dense", b, "backward", "bwd_data_gemm", f * 1.25e-3});
    c.kernels.push_back({"dense", b, "backward", "bwd_weight_gemm", f * 0.75e-3});
    c.kernels.push_back({"dense", b, "update", "sgd_update", 1e-4});
    c.kernels.push_back({"dense", b, "accumulate", "grad_accumulate", 5e-5});
  }
  return c;
}

TEST(CalibrationFile, KernelTableRoundTripsAndVersionOneStillReads) {
  const std::string text = render_calibration(with_kernels());
  EXPECT_NE(text.find("\nlayer,batch,phase,kernel,seconds\ndense,32,forward,fwd_gemm,1.000000e-03\n"), std::string::npos);
  const Calibration back = parse_calibration(text, "cal.txt");
  EXPECT_EQ(render_calibration(back), text);
  ASSERT_EQ(back.kernels.size(), 10u);
  EXPECT_EQ(back.kernels[7].kernel, "bwd_weight_gemm");
  EXPECT_EQ(back.kernels[7].line, back.kernels[0].line + 7);
  Calibration v1 = sample();
  v1.version = 1;
  const Calibration old = parse_calibration(render_calibration(v1), "cal.txt");
  EXPECT_EQ(old.version, 1);
  EXPECT_TRUE(old.kernels.empty());
}

TEST(CalibrationFile, KernelTableErrorsNameTheLine) {
  const std::string good = render_calibration(with_kernels());
  const auto edited = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    t.replace(t.find(from), from.size(), to);
    return expect_error(t);
  };
  // The kernels must add up to their layer's row (here backward 2e-3 at batch 32).
  std::string err = edited("dense,32,backward,bwd_weight_gemm,7.500000e-04", "dense,32,backward,bwd_weight_gemm,8.5e-04");
  EXPECT_NE(err.find("layer 'dense' at batch 32: its kernels' backward_s add up to 2.100000e-03, the layer table "
                     "(line 15) says 2.000000e-03"), std::string::npos) << err;
  EXPECT_NE(err.find("cal.txt:"), std::string::npos);
  err = edited("dense,32,update,sgd_update", "dense,32,updates,sgd_update");
  EXPECT_NE(err.find("phase = 'updates': expected forward, backward, update or accumulate"), std::string::npos) << err;
  err = edited("dense,32,forward,fwd_gemm", "dense,32,forward,Fwd GEMM");
  EXPECT_NE(err.find("kernel = 'Fwd GEMM': expected a kernel name"), std::string::npos) << err;
  err = edited("dense,64,forward,fwd_gemm", "dense,48,forward,fwd_gemm");
  EXPECT_NE(err.find("kernel of layer 'dense' at batch 48: the layer table has no such row"), std::string::npos) << err;
  err = edited("dense,32,forward,fwd_gemm,1.000000e-03", "dense,32,forward,fwd_gemm");
  EXPECT_NE(err.find("expected 5 comma-separated fields"), std::string::npos) << err;
  err = edited("ddlsim-calibration 2", "ddlsim-calibration 1");
  EXPECT_NE(err.find("a kernel table needs 'format = ddlsim-calibration 2'"), std::string::npos) << err;
}

TEST(CalibrationFile, ErrorsNameFileAndLine) {
  const std::string good = render_calibration(sample());
  EXPECT_NE(expect_error("hello\n").find("cal.txt:1:"), std::string::npos);
  std::string v3 = good;
  v3.replace(v3.find("ddlsim-calibration 2"), 20, "ddlsim-calibration 3");
  EXPECT_NE(expect_error(v3).find("version 3 is not supported (this ddlsim reads 1 to 2)"), std::string::npos);
  EXPECT_NE(expect_error(good + "dense,32,1,2,3,4,5\n").find("listed twice"), std::string::npos);
  EXPECT_NE(expect_error(good + "conv,32,1,-2,3,4,5\n").find("backward_s = '-2'"), std::string::npos);
  EXPECT_NE(expect_error(good + "conv,32,1\n").find("expected 7 comma-separated fields"), std::string::npos);
  const std::string err = expect_error("format = ddlsim-calibration 1\nmodel = x\ncolour = red\n");
  EXPECT_NE(err.find("cal.txt:3: unknown key 'colour'"), std::string::npos) << err;
}

TEST(CalibrationBatchRule, MeasuredInterpolatedExtrapolated) {
  const Calibration c = sample();
  EXPECT_DOUBLE_EQ(layer_timing_at(c, "dense", 32, "f").fwd_s, 1e-3);
  EXPECT_DOUBLE_EQ(layer_timing_at(c, "dense", 48, "f").fwd_s, 1.25e-3);   // halfway
  EXPECT_DOUBLE_EQ(layer_timing_at(c, "dense", 128, "f").fwd_s, 2.5e-3);   // line through 32 and 64
  EXPECT_DOUBLE_EQ(layer_timing_at(c, "dense", 16, "f").fwd_s, 0.75e-3);   // line: 1e-3 - 16 x 1.5625e-5
  EXPECT_DOUBLE_EQ(layer_timing_at(c, "dense", 1, "f").fwd_s, 0.515625e-3);
  EXPECT_DOUBLE_EQ(layer_timing_at(c, "dense", 100, "f").update_s, 1e-4);  // batch-independent
}

TEST(CalibrationBatchRule, FloorAndSingleBatch) {
  Calibration c = sample();
  c.rows[1].fwd_s = 3e-3;  // steeper than proportional: the line would go negative at small batches
  EXPECT_DOUBLE_EQ(layer_timing_at(c, "dense", 8, "f").fwd_s, 1e-3 * 8 / 32);
  c.rows.pop_back();
  EXPECT_DOUBLE_EQ(layer_timing_at(c, "dense", 64, "f").bwd_s, 4e-3);  // proportional
}

TEST(CalibrationMatch, AnotherModelOrMissingLayerIsAnError) {
  const Calibration c = sample();
  EXPECT_NO_THROW(check_calibration_matches(c, tiny_model(), Precision::FP32, "cal.txt"));
  Model other = tiny_model();
  other.name = "resnet50";
  try {
    check_calibration_matches(c, other, Precision::FP32, "cal.txt");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("calibrated for model tiny"), std::string::npos) << e.what();
  }
  Model extra = tiny_model();
  extra.layers.push_back(extra.layers.back());
  extra.layers.back().name = "dense_1";
  extra.layers.back().params_trainable = 0;
  extra.layers.back().fwd_flops = 0;
  try {
    check_calibration_matches(c, extra, Precision::FP32, "cal.txt");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no calibration rows for layer 'dense_1'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(check_calibration_matches(c, tiny_model(), Precision::Mixed, "cal.txt"), InputError);
}

TEST(CalibrationCompute, ReplacesTheRooflineExactly) {
  ComputeTuning t;
  t.calibration = std::make_shared<const Calibration>(sample());
  t.calibration_origin = "cal.txt";
  Device d;
  d.peak_fp32 = d.peak_tf32 = d.peak_fp16 = 1e12;
  d.mem_bw_Bps = 1e11;
  const ComputeProfile p = compute_profile(tiny_model(), d, Precision::FP32, 48, t);
  EXPECT_DOUBLE_EQ(p.forward_s(), 1.25e-3);
  EXPECT_DOUBLE_EQ(p.backward_s(), 2.5e-3);
  EXPECT_DOUBLE_EQ(p.optimizer_s, 1e-4);
  EXPECT_DOUBLE_EQ(p.accumulate_s, 5e-5);
  EXPECT_DOUBLE_EQ(p.gradient_elems(), 10);
}

TEST(CalibrationFile, HeaderKeyTwiceNamesTheSecondLine) {
  std::string text = render_calibration(sample());
  text.replace(text.find("model = tiny\n"), 13, "model = tiny\ndevice = again\n");
  const std::string err = expect_error(text);
  EXPECT_NE(err.find("cal.txt:6: 'device' is given twice (first on line 3)"), std::string::npos) << err;
}

TEST(CalibrationFile, DeviceKindIsCpuOrCuda) {
  std::string text = render_calibration(sample());
  EXPECT_EQ(parse_calibration(text, "cal.txt").device_kind, "cpu");
  text.replace(text.find("device_kind = cpu"), 17, "device_kind = gpu");
  const std::string err = expect_error(text);
  EXPECT_NE(err.find("cal.txt:4: device_kind = 'gpu': expected cpu or cuda"), std::string::npos) << err;
}

// Layer names are never quoted (ddlsim writes them as they are): a quoted one is an error, not
// unquoted and not taken as a layer named "dense" with quotes.
TEST(CalibrationFile, QuotedLayerNameIsAnError) {
  std::string text = render_calibration(sample());
  text.replace(text.find("\ndense,64,"), 10, "\n\"dense\",64,");
  const std::string err = expect_error(text);
  EXPECT_NE(err.find("layer = '\"dense\"': expected the layer name without quotes"), std::string::npos) << err;
}

namespace {

std::string match_error(const Calibration& c) {
  try {
    check_calibration_matches(c, tiny_model(), Precision::FP32, "cal.txt");
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "the calibration was accepted for model tiny";
  return "";
}

}  // namespace

TEST(CalibrationMatch, RowForALayerTheModelLacksNamesFileAndLine) {
  std::string text = render_calibration(sample());
  const std::size_t at = text.find("\ndense,64,") + 1;
  text.replace(at, 5, "bogus");
  const int line = 1 + int(std::count(text.begin(), text.begin() + long(at), '\n'));
  const Calibration c = parse_calibration(text, "cal.txt");  // the file alone is well formed
  ASSERT_EQ(c.rows.back().line, line);
  const std::string err = match_error(c);
  EXPECT_NE(err.find("cal.txt:" + std::to_string(line) + ": layer 'bogus' is not in model tiny"), std::string::npos)
      << err;
  EXPECT_NE(err.find("expected one of its layers: dense"), std::string::npos) << err;

  Calibration in_memory = sample();  // not read from a file: no line number
  in_memory.rows.back().layer = "bogus";
  EXPECT_EQ(match_error(in_memory).rfind("cal.txt: layer 'bogus' is not in model tiny", 0), 0u);
}

TEST(CalibrationFile, MeasuredInterferenceRoundTripsAndIsChecked) {
  Calibration c = sample();
  EXPECT_EQ(render_calibration(c).find("interference"), std::string::npos);  // unmeasured: not written
  c.interference = 0.125;
  const std::string text = render_calibration(c);
  EXPECT_NE(text.find("interference = 0.125\n"), std::string::npos);
  EXPECT_DOUBLE_EQ(parse_calibration(text, "cal.txt").interference, 0.125);
  std::string bad = text;
  bad.replace(bad.find("0.125"), 5, "-0.5");
  EXPECT_NE(expect_error(bad).find("interference = '-0.5': expected a slow-down fraction"), std::string::npos);
}

// A model of more than 10^8 parameters (VGG-16, ViT-L, GPT-2, BERT) round-trips: its count was read
// with the 10^8 bound of the other integers once, so such a model's file could not be read back.
TEST(CalibrationFile, LargeModelsRoundTrip) {
  Calibration c = sample();
  c.model_params = 336'226'108;
  const std::string text = render_calibration(c);
  EXPECT_EQ(parse_calibration(text, "cal.txt").model_params, 336'226'108);
  EXPECT_EQ(render_calibration(parse_calibration(text, "cal.txt")), text);
}

// Files measured on a real GPU (calibration/measured/: `ddlsim_cuda calibrate --check` on an NVIDIA
// H200, docs/design.md "The harness on a GPU") round-trip byte for byte, and a simulation with
// one predicts the step the harness printed: ResNet-50 at 224, mixed, batch 128, forward 0.011835 +
// backward 0.015249 + update 0.000426 = 0.027510 s of compute (the printout's rounding), plus
// eager PyTorch's 37 us a step (cost/framework_costs.cpp), the GPU's kernels alone (no host time:
// compute.host_kernel_us = 0). BERT-base at 128 tokens, batch 32: 0.004103 + 0.006714 + 0.000759 =
// 0.011576 s.
TEST(CalibrationFile, GpuMeasuredFilesPredictTheirCheckedStep) {
  const std::string dir = testutil::source_dir() + "/calibration/measured/";
  const std::string base = " --cluster.platform=dgx-h100 --cluster.nodes=1 --cluster.gpus_per_node=1 "
                           "--compute.device=h200 --training.framework=pytorch_ddp --input.format=synthetic "
                           "--model.precision=mixed --format=json --compute.host_kernel_us=0";
  for (const auto& [file, model, step] : std::vector<std::tuple<std::string, std::string, double>>{
           {"h200-resnet50-224-mixed.cal", "--model.name=resnet50 --training.batch_per_gpu=128", 0.027510},
           {"h200-bert_base-128-mixed.cal", "--model.name=bert_base --model.input_size=128 --training.batch_per_gpu=32",
            0.011576}}) {
    const std::string text = testutil::slurp(dir + file);
    EXPECT_EQ(render_calibration(parse_calibration(text, file)), text) << file;
    const auto r = testutil::run_ddlsim("simulate" + base + " " + model + " --compute.calibration=" + dir + file +
                                        " --framework.zero_grad=none");  // the harness's step: no training loop
    ASSERT_EQ(r.code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_NEAR(j["compute_time_s"].get<double>(), step, 1.5e-6) << file;
    EXPECT_NEAR(j["step_time_s"].get<double>(), step + 37e-6, 1.5e-6) << file;
    // Zeroing the gradients: the file's accumulation kernels (the add into them) join backward, and
    // the update fills them as the roofline does.
    const auto z = testutil::run_ddlsim("simulate" + base + " " + model + " --compute.calibration=" + dir + file +
                                        " --framework.zero_grad=zeros");
    ASSERT_EQ(z.code, 0) << z.out;
    double accumulate = 0;
    for (const auto& row : parse_calibration(text, file).rows) accumulate += row.accum_s;
    const std::string roofline = "profile" + base + " " + model;
    const auto fill = testutil::run_ddlsim(roofline + " --framework.zero_grad=zeros"),
               no_fill = testutil::run_ddlsim(roofline + " --framework.zero_grad=none");
    ASSERT_EQ(fill.code, 0) << fill.out;
    const double fill_s = nlohmann::json::parse(fill.out)["optimizer_s"].get<double>() -
                          nlohmann::json::parse(no_fill.out)["optimizer_s"].get<double>();
    EXPECT_GT(fill_s, 0) << file;
    EXPECT_NEAR(nlohmann::json::parse(z.out)["compute_time_s"].get<double>(), step + accumulate + fill_s, 1.5e-6)
        << file;
  }
}

// At a batch the file did not measure (ResNet-50's H200 file has 128; asked for 64), the layers
// follow the roofline's shape and zeroing the gradients adds what it adds at the measured batch:
// the file's accumulation kernels and the roofline's fill, which do not scale with the batch.
TEST(CalibrationFile, ZeroedGradientsCostTheSameAtAnUnmeasuredBatch) {
  const std::string file = testutil::source_dir() + "/calibration/measured/h200-resnet50-224-mixed.cal";
  const std::string base = " --cluster.platform=dgx-h100 --cluster.nodes=1 --cluster.gpus_per_node=1 "
                           "--compute.device=h200 --training.framework=pytorch_ddp --input.format=synthetic "
                           "--model.precision=mixed --format=json --compute.host_kernel_us=0 --model.name=resnet50 ";
  const auto field = [&](const std::string& args, const char* name) {
    const auto r = testutil::run_ddlsim(args);
    EXPECT_EQ(r.code, 0) << r.out;
    return r.code == 0 ? nlohmann::json::parse(r.out)[name].get<double>() : 0.0;
  };
  double accumulate = 0;
  for (const auto& row : parse_calibration(testutil::slurp(file), file).rows) accumulate += row.accum_s;
  for (const char* batch : {"--training.batch_per_gpu=128", "--training.batch_per_gpu=64"}) {
    const std::string run = "simulate" + base + batch + " --compute.calibration=" + file;
    const std::string roofline = "profile" + base + batch;
    const double fill_s = field(roofline + " --framework.zero_grad=zeros", "optimizer_s") -
                          field(roofline + " --framework.zero_grad=none", "optimizer_s");
    EXPECT_NEAR(field(run + " --framework.zero_grad=zeros", "compute_time_s") -
                    field(run + " --framework.zero_grad=none", "compute_time_s"),
                accumulate + fill_s, 1e-9)
        << batch;
  }
}

// A calibration of one batch asked at another: each layer follows the roofline's shape from the
// measured batch (its fixed launch cost and small kernels' efficiency carry over), not the batch
// ratio, and the profile says it was extrapolated; two measured batches keep the file's own rule.
TEST(CalibrationCompute, OneBatchFollowsTheRooflinesShape) {
  Calibration one = sample();
  one.rows.pop_back();  // batch 32 only
  ComputeTuning t;
  t.calibration = std::make_shared<const Calibration>(one);
  t.calibration_origin = "cal.txt";
  Device d;
  d.peak_fp32 = d.peak_tf32 = d.peak_fp16 = 1e12;
  d.mem_bw_Bps = 1e11;
  ComputeTuning roof;  // the same roofline without the calibration
  const double shape_fwd = compute_profile(tiny_model(), d, Precision::FP32, 8, roof).forward_s() /
                           compute_profile(tiny_model(), d, Precision::FP32, 32, roof).forward_s();
  const ComputeProfile p = compute_profile(tiny_model(), d, Precision::FP32, 8, t);
  EXPECT_DOUBLE_EQ(p.forward_s(), 1e-3 * shape_fwd);
  EXPECT_GT(p.forward_s(), 1e-3 * 8 / 32);  // the launch costs do not shrink with the batch
  EXPECT_EQ(p.extrapolated_from_batch, 32);
  EXPECT_EQ(compute_profile(tiny_model(), d, Precision::FP32, 32, t).extrapolated_from_batch, 0);
  t.calibration = std::make_shared<const Calibration>(sample());
  EXPECT_EQ(compute_profile(tiny_model(), d, Precision::FP32, 8, t).extrapolated_from_batch, 0);
}
