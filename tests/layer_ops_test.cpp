// One list of kernels (ops/layer_ops.hpp): the calibration harness runs, layer by layer and in
// order, the kernels the roofline prices, and moves the bytes the roofline counts.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cost/compute.hpp"
#include "kernels/kernel_plan.hpp"
#include "model/model.hpp"
#include "ops/layer_ops.hpp"
#include "system/device.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {

// The roofline under the harness's rules: eager PyTorch, math attention, no channels-first transposes.
std::vector<LayerKernelTimes> roofline(const Model& m, Precision p, int batch) {
  ComputeTuning t;
  t.fused_attention = false;
  t.nchw = false;
  FrameworkSpec fw;
  fw.mode = FrameworkMode::Eager;
  return roofline_kernel_times(m, find_device("a100", ""), p, batch, t, fw);
}

std::vector<std::string> names(const LayerKernels& lk, KernelPhase phase) {
  std::vector<std::string> out;
  for (const KernelSpec& k : lk.kernels)
    if (k.phase == phase) out.push_back(k.name);
  return out;
}

std::vector<std::string> names(const LayerKernelTimes& lt, bool backward) {
  std::vector<std::string> out;
  for (const KernelTime& k : lt.kernels)
    if (k.backward == backward) out.push_back(k.name);
  return out;
}

}  // namespace

TEST(LayerOps, HarnessRunsTheRooflinesKernelsInEveryZooModel) {
  for (const std::string& name : zoo_model_names()) {
    const Model m = build_zoo_model(name, default_model_options(name));
    for (Precision p : {Precision::FP32, Precision::Mixed}) {
      const auto plan = model_kernels(m, 2, p);
      const auto priced = roofline(m, p, 2);
      ASSERT_EQ(plan.size(), priced.size()) << name;
      for (std::size_t i = 0; i < plan.size(); ++i) {
        ASSERT_EQ(plan[i].layer, priced[i].layer);
        EXPECT_EQ(names(plan[i], KernelPhase::Forward), names(priced[i], false)) << name << " " << plan[i].layer;
        EXPECT_EQ(names(plan[i], KernelPhase::Backward), names(priced[i], true)) << name << " " << plan[i].layer;
      }
    }
  }
}

// A streaming kernel moves the roofline's bytes (half read, half written); a product has the
// layer's multiply-adds: on a ResNet-50 bottleneck's 3x3 convolution and its batch norm, FP32.
TEST(LayerOps, HarnessKernelsMoveTheRooflinesBytes) {
  const Model m = build_zoo_model("resnet50", default_model_options("resnet50"));
  const auto plan = model_kernels(m, 4, Precision::FP32);
  const auto at = [&](const std::string& layer) {
    for (std::size_t i = 0; i < m.layers.size(); ++i)
      if (m.layers[i].name == layer) return i;
    ADD_FAILURE() << layer;
    return std::size_t(0);
  };
  const std::size_t conv = at("conv2_block1_2_conv"), bn = at("conv2_block1_2_bn");
  const Layer& c = m.layers[conv];
  double fwd_flops = 0;
  for (const KernelSpec& k : plan[conv].kernels)
    if (k.phase == KernelPhase::Forward && k.is_gemm) fwd_flops += k.flops();
  // 3x3 over 64 channels into 64 at 56 x 56, 4 samples (the bias's adds are bias_add's).
  EXPECT_DOUBLE_EQ(fwd_flops, 2.0 * 4 * 56 * 56 * 64 * (3 * 3 * 64));
  EXPECT_EQ(c.in.c, 64);
  // bn_apply: one pass over the input and one over the output, with the weights (4 bytes each).
  const Layer& b = m.layers[bn];
  const KernelSpec& apply = plan[bn].kernels[1];
  ASSERT_EQ(apply.name, "bn_apply");
  EXPECT_EQ(apply.op, MemOp::Stream);
  const double bytes = 4.0 * (double(b.in_elems) * 4 + double(b.out_elems) * 4 + double(b.params()));
  EXPECT_EQ(apply.out_elems, std::llround(bytes / 4) / 2);
  // bn_stats: the channels' sums of one pass over the input.
  const KernelSpec& stats = plan[bn].kernels[0];
  ASSERT_EQ(stats.name, "bn_stats");
  EXPECT_EQ(stats.op, MemOp::Reduce);
  EXPECT_EQ(stats.out_elems, b.out.c);
  EXPECT_EQ(stats.in_elems, b.in_elems * 4 - b.out.c);
}

// Under autocast the harness times the casts the roofline charges, and attention's FP32 softmax.
TEST(LayerOps, MixedPrecisionHarnessTimesAutocastsCasts) {
  const Model m = build_zoo_model("vit_b_16", default_model_options("vit_b_16"));
  int casts = 0, softmax_casts = 0;
  for (const LayerKernels& lk : model_kernels(m, 2, Precision::Mixed))
    for (const KernelSpec& k : lk.kernels) {
      casts += k.name.rfind("cast_", 0) == 0;
      softmax_casts += k.name == "attn_softmax_cast";
    }
  EXPECT_GT(casts, 0);
  EXPECT_EQ(softmax_casts, 12);  // one a block
}

TEST(LayerOps, DocsPageIsTheCommandsOutput) {
  const auto r = testutil::run_ddlsim("kernels --format markdown");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, testutil::slurp(testutil::source_dir() + "/docs/kernels.md"))
      << "docs/kernels.md is generated: build/ddlsim kernels --format markdown > docs/kernels.md";
}
