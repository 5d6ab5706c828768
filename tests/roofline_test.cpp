// The roofline's per-operation rules (cost/compute.cpp), against hand calculations.
#include <gtest/gtest.h>

#include "cost/compute.hpp"
#include "system/device.hpp"

using namespace ddlsim;

namespace {

// One convolution of `k` x `k`, stride `stride`, 1 GFLOP a sample, tiny tensors (compute-bound).
Model conv_model(int k, int stride) {
  Model m;
  m.name = "one_conv";
  Layer c;
  c.name = "conv";
  c.kind = LayerKind::Conv2D;
  c.geom = {k, k, stride, 1};
  c.params_trainable = 1000;
  c.fwd_flops = 1e9;
  c.in_elems = c.out_elems = 1000;
  m.layers = {c};
  return m;
}

// The roofline of one kernel: eff = 0.6 w / (w + peak x 20 us); t = w / (peak x eff) + 5 us.
double kernel_s(double flops, double peak) {
  const double eff = 0.6 * flops / (flops + peak * 20e-6);
  return flops / (peak * eff) + 5e-6;
}

}  // namespace

TEST(Roofline, Fp32ThreeByThreeConvolutionsRunAsWinograd) {
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  const double peak = 15.7e12, batch = 32;
  // 3x3 stride 1 in FP32: 2.25x fewer operations (F(2x2,3x3)).
  const auto p3 = compute_profile(conv_model(3, 1), v100, Precision::FP32, 32, t, Optimizer::Sgd);
  EXPECT_NEAR(p3.layers[0].fwd_s, kernel_s(1e9 * batch / 2.25, peak), 1e-12);
  // Not for strided or 1x1 convolutions, nor on tensor cores, nor when switched off.
  const auto p3s2 = compute_profile(conv_model(3, 2), v100, Precision::FP32, 32, t, Optimizer::Sgd);
  EXPECT_NEAR(p3s2.layers[0].fwd_s, kernel_s(1e9 * batch, peak), 1e-12);
  const auto p1 = compute_profile(conv_model(1, 1), v100, Precision::FP32, 32, t, Optimizer::Sgd);
  EXPECT_NEAR(p1.layers[0].fwd_s, kernel_s(1e9 * batch, peak), 1e-12);
  const auto mixed = compute_profile(conv_model(3, 1), v100, Precision::Mixed, 32, t, Optimizer::Sgd);
  EXPECT_NEAR(mixed.layers[0].fwd_s, kernel_s(1e9 * batch, 125e12), 1e-12);
  t.winograd = false;
  const auto off = compute_profile(conv_model(3, 1), v100, Precision::FP32, 32, t, Optimizer::Sgd);
  EXPECT_NEAR(off.layers[0].fwd_s, kernel_s(1e9 * batch, peak), 1e-12);
}

TEST(Roofline, ChannelsFirstTensorCoreConvolutionsPayTheirTransposes) {
  // A 3x3 convolution in mixed precision on a V100 with 1e6 input and 1e6 output elements a
  // sample (2 bytes each): NCHW adds a transpose kernel reading and writing both, 2 x 4 MB x 32
  // samples = 256 MB at 0.8 x 900 GB/s, plus 5 us, to the forward pass and twice to the backward.
  Model m = conv_model(3, 1);
  m.layers[0].in_elems = m.layers[0].out_elems = 1000000;
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  const auto nhwc = compute_profile(m, v100, Precision::Mixed, 32, t, Optimizer::Sgd);
  t.nchw = true;
  const auto nchw = compute_profile(m, v100, Precision::Mixed, 32, t, Optimizer::Sgd);
  const double transpose = 2 * 4e6 * 32 / (0.8 * 900e9) + 5e-6;
  EXPECT_NEAR(nchw.layers[0].fwd_s - nhwc.layers[0].fwd_s, transpose, 1e-12);
  EXPECT_NEAR(nchw.layers[0].bwd_s - nhwc.layers[0].bwd_s, 2 * transpose, 1e-12);
  // No tensor cores, no transposes: FP32 on a V100, mixed on a P100.
  const auto fp32 = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd);
  t.nchw = false;
  EXPECT_EQ(fp32.layers[0].fwd_s, compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd).layers[0].fwd_s);
  const Device& p100 = find_device("p100", "");
  const auto p100_nhwc = compute_profile(m, p100, Precision::Mixed, 32, t, Optimizer::Sgd);
  t.nchw = true;
  EXPECT_EQ(compute_profile(m, p100, Precision::Mixed, 32, t, Optimizer::Sgd).layers[0].fwd_s, p100_nhwc.layers[0].fwd_s);
}

TEST(Roofline, Rtx5090FromItsWhitepaper) {
  const Device& d = find_device("rtx5090", "");
  EXPECT_DOUBLE_EQ(d.peak_fp32, 104.8e12);
  EXPECT_DOUBLE_EQ(d.peak_fp16, 209.5e12);
  EXPECT_DOUBLE_EQ(d.mem_bw_Bps, 1792e9);
  EXPECT_EQ(d.pcie_gen, 5);
}
