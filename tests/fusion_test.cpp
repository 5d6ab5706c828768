// compute.fusion = pointwise (cost/fusion.hpp): chains of pointwise layers as one kernel each way,
// by hand; switched off, nothing moves.
#include <gtest/gtest.h>

#include <algorithm>

#include "cost/compute.hpp"
#include "cost/fusion.hpp"
#include "model/builder.hpp"
#include "model/model.hpp"
#include "system/device.hpp"

using namespace ddlsim;

namespace {

// The roofline of one kernel on a V100 in FP32 (cost/compute.cpp; as tests/transformer_test.cpp).
double kernel_s(double flops, double bytes) {
  const double peak = 15.7e12;
  const double compute = flops > 0 ? flops / (peak * 0.6 * flops / (flops + peak * 20e-6)) : 0;
  return std::max(compute, bytes / (0.8 * 900e9)) + 5e-6;
}

}  // namespace

// dense -> gelu_new -> dropout(0.1) -> dense on 1,024 tokens of 256, batch 8, FP32: N = 2,097,152
// values, x = 4N bytes. Eager gelu_new runs 8 + 11 kernels, dropout 1 + 1. Fused, one kernel each
// way, charged to the dropout (the chain's tail):
//   forward  gelu (x in, x out) + dropout (x in, x out, N mask bytes) - the handed-on x, written
//            and read: 2x + N, and gelu's N operations;
//   backward gelu (dy, x in; dx out: 3x) + dropout (dy, mask in; dx out: 2x + N) - the gradient
//            handed on (2x): 3x + N.
TEST(Fusion, PointwiseChainByHand) {
  ModelBuilder b("chain");
  Shape s = b.dense(b.input(Shape{1024, 1, 256}), 256);
  s = b.dropout(b.activation(s, "gelu_new"), "dropout", 0.1);
  b.dense(s, 256);
  const Model m = b.finish();
  ASSERT_EQ(m.layers[2].fn, "gelu_new");
  ASSERT_EQ(m.layers[3].kind, LayerKind::Dropout);
  const auto chains = pointwise_chains(m);
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0], (std::vector<std::size_t>{2, 3}));
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  t.pointwise_fusion = true;
  const auto fused = compute_profile(m, v100, Precision::FP32, 8, t, Optimizer::Sgd);
  const double n = 8 * 1024 * 256.0, x = 4 * n;
  EXPECT_EQ(fused.layers[2].fwd_s, 0);
  EXPECT_EQ(fused.layers[2].bwd_s, 0);
  EXPECT_NEAR(fused.layers[3].fwd_s, kernel_s(n, 2 * x + n), 1e-12);
  EXPECT_NEAR(fused.layers[3].bwd_s, kernel_s(0, 3 * x + n), 1e-12);
  // The dense layers are library kernels, untouched.
  t.pointwise_fusion = false;
  const auto eager = compute_profile(m, v100, Precision::FP32, 8, t, Optimizer::Sgd);
  for (const std::size_t i : {std::size_t(1), std::size_t(4)}) {
    EXPECT_EQ(fused.layers[i].fwd_s, eager.layers[i].fwd_s);
    EXPECT_EQ(fused.layers[i].bwd_s, eager.layers[i].bwd_s);
  }
  // Eager: gelu_new's 19 kernels and the dropout's 2 cost more.
  EXPECT_GT(eager.layers[2].fwd_s + eager.layers[3].fwd_s, fused.layers[3].fwd_s);
}

// ResNet-50 (Keras layout): each block ends add -> relu, one chain; a chain never takes a layer
// whose output something else reads too (the block input feeds the shortcut and the first conv).
TEST(Fusion, ChainsStopAtForks) {
  ModelOptions o = default_model_options("resnet50");
  const Model m = build_zoo_model("resnet50", o);
  int pairs = 0;
  for (const auto& c : pointwise_chains(m)) {
    for (std::size_t k = 0; k + 1 < c.size(); ++k) EXPECT_EQ(m.layers[c[k]].consumers, 1) << m.layers[c[k]].name;
    if (c.size() == 2 && m.layers[c[0]].kind == LayerKind::Add && m.layers[c[1]].kind == LayerKind::Activation) ++pairs;
  }
  EXPECT_EQ(pairs, 16);  // 3 + 4 + 6 + 3 blocks
  // A learned addend (ViT's position embedding) is a reduction backward: not pointwise.
  const Model vit = build_zoo_model("vit_b_16", default_model_options("vit_b_16"));
  for (const Layer& l : vit.layers)
    if (l.kind == LayerKind::Add && l.params_trainable > 0) EXPECT_FALSE(is_pointwise(l));
}
