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
