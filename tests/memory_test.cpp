// Memory model (cost/memory.hpp): the accounting to the byte on a hand-built model, its
// properties, and real runs: every configuration of the bundled tf_cnn_benchmarks set ran, so
// each must be predicted to fit.
#include <gtest/gtest.h>

#include "predict_util.hpp"
#include "compare/validation.hpp"
#include "cost/memory.hpp"
#include "report/report.hpp"
#include "scenario/resolve.hpp"
#include "test_util.hpp"

using namespace ddlsim;
using testutil::predict_default;

namespace {

Layer layer(LayerKind kind, std::int64_t out, std::int64_t trainable = 0, std::int64_t frozen = 0) {
  Layer l;
  l.name = to_string(kind);
  l.kind = kind;
  l.out_elems = out;
  l.params_trainable = trainable;
  l.params_non_trainable = frozen;
  return l;
}

// input -> conv -> batch norm -> relu -> dense.
Model tiny() {
  Model m;
  m.name = "tiny";
  m.layers = {layer(LayerKind::Input, 100), layer(LayerKind::Conv2D, 200, 10),
              layer(LayerKind::BatchNorm, 200, 2, 2), layer(LayerKind::Activation, 200),
              layer(LayerKind::Dense, 10, 2010)};
  return m;
}

}  // namespace

TEST(Memory, SavedTensorsAreTheInputsGradientsNeed) {
  // Kept: the input (read by the conv's gradient), the conv output (batch norm's), the relu
  // output (its own gradient and the dense layer's). Freed: batch norm's output, the logits.
  EXPECT_EQ(saved_elems_per_sample(tiny()), 100 + 200 + 200);
}

TEST(Memory, AccountingToTheByte) {
  Execution e;
  e.batch_per_gpu = 8;
  e.bucket_bytes = 25 * kMiB;
  const MemoryEstimate m = memory_per_gpu(tiny(), e);  // FP32, momentum, sync every step
  EXPECT_DOUBLE_EQ(m.weights, 2024.0 * 4);
  EXPECT_DOUBLE_EQ(m.gradients, 2022.0 * 4);
  EXPECT_DOUBLE_EQ(m.optimizer_state, 2022.0 * 4);
  EXPECT_DOUBLE_EQ(m.accumulator, 0);
  EXPECT_DOUBLE_EQ(m.activations, 500.0 * 8 * 4);
  EXPECT_DOUBLE_EQ(m.comm_buffers, 2022.0 * 4);  // a bucket holds at most all gradients
  EXPECT_DOUBLE_EQ(m.total(), 2024.0 * 4 + 3 * 2022.0 * 4 + 16000 + 1024.0 * 1024 * 1024);

  e.precision = Precision::Mixed;
  e.optimizer = Optimizer::Adam;
  e.sync_period = 4;
  const MemoryEstimate x = memory_per_gpu(tiny(), e);
  EXPECT_DOUBLE_EQ(x.weights, 2024.0 * 4 + 2022.0 * 2);  // FP32 master + FP16 copy
  EXPECT_DOUBLE_EQ(x.gradients, 2022.0 * 4);  // FP32 master gradients (comm.gradient_dtype)
  EXPECT_DOUBLE_EQ(x.optimizer_state, 2022.0 * 8);
  EXPECT_DOUBLE_EQ(x.accumulator, 2022.0 * 4);
  EXPECT_DOUBLE_EQ(x.activations, 500.0 * 8 * 2);
  e.gradient_dtype = GradientDtype::FP16;  // pure FP16 training: 2-byte gradients
  EXPECT_DOUBLE_EQ(memory_per_gpu(tiny(), e).gradients, 2022.0 * 2);
  e.gradient_dtype = GradientDtype::FP32;

  e.algorithm = Algorithm::ParameterServer;  // the servers keep the optimizer state
  EXPECT_DOUBLE_EQ(memory_per_gpu(tiny(), e).optimizer_state, 0);
}

TEST(Memory, GrowsWithBatchAndOptimizerState) {
  double previous = 0;
  for (int b : {1, 16, 64, 256}) {
    const Prediction p = predict_default({"--training.batch_per_gpu=" + std::to_string(b)});
    EXPECT_GT(p.memory_per_gpu_bytes, previous);
    previous = p.memory_per_gpu_bytes;
  }
  const Prediction sgd = predict_default({"--training.optimizer=sgd"});
  const Prediction adam = predict_default({"--training.optimizer=adam"});
  EXPECT_DOUBLE_EQ(adam.memory_per_gpu_bytes - sgd.memory_per_gpu_bytes, double(adam.params_trainable) * 8);
  EXPECT_GT(adam.compute_time_s, sgd.compute_time_s);  // the update reads and writes more
}

TEST(Memory, KnownLimitsOfResNet50) {
  // ResNet-50 in FP32 on a 16 GB V100: batch 256 is the textbook out-of-memory case, 64 fits;
  // mixed precision halves the activations.
  const std::vector<std::string> v100 = {"--cluster.platform=dgx1"};  // fp32 by default
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), v100.begin(), v100.end());
    return predict_default(extra);
  };
  EXPECT_FALSE(with({"--training.batch_per_gpu=256"}).fits_in_memory);
  EXPECT_TRUE(with({"--training.batch_per_gpu=64"}).fits_in_memory);
  EXPECT_TRUE(with({"--training.batch_per_gpu=256", "--compute.memory_gib=32"}).fits_in_memory);
  const Prediction fp32 = with({"--training.batch_per_gpu=64"});
  const Prediction mixed = with({"--training.batch_per_gpu=64", "--model.precision=mixed"});
  EXPECT_DOUBLE_EQ(mixed.activation_memory_bytes * 2, fp32.activation_memory_bytes);
}

TEST(Memory, EveryMeasuredRunOfTheValidationSetFits) {
  const ValidationResult v = run_validation(default_validation_folder());
  int rows = 0;
  for (const auto& g : v.groups)
    for (const auto& r : g.comparison.rows) {
      ++rows;
      EXPECT_TRUE(r.prediction.fits_in_memory)
          << g.group.name << " " << r.measured.label() << ": " << r.prediction.memory_per_gpu_bytes / kGiB << " GiB of "
          << r.prediction.device_memory_bytes / kGiB;
    }
  EXPECT_GT(rows, 100);
}

TEST(Memory, ReportedAndWarnedByTheCommandLine) {
  const auto ok = testutil::run_ddlsim("simulate --format json");
  ASSERT_EQ(ok.code, 0) << ok.out;
  for (const char* key : {"\"optimizer\"", "\"memory_per_gpu_bytes\"", "\"device_memory_bytes\"", "\"fits_in_memory\""})
    EXPECT_NE(ok.out.find(key), std::string::npos) << key;
  EXPECT_EQ(ok.out.find("warning"), std::string::npos);
  const auto big = testutil::run_ddlsim("simulate --training.batch_per_gpu=4096");
  EXPECT_EQ(big.code, 0) << big.out;
  EXPECT_NE(big.out.find("warning: the step needs about"), std::string::npos) << big.out;
  const auto bad = testutil::run_ddlsim("simulate --training.optimizer=rmsprop");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("training.optimizer"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("sgd, momentum, adam"), std::string::npos) << bad.out;
  EXPECT_EQ(testutil::run_ddlsim("simulate --compute.memory_gib=0").code, 2);
}
