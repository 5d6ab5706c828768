// Inception-v3, Keras applications layout (keras.applications.inception_v3): every conv is
// Conv2D without bias + BatchNorm(scale=False) + ReLU; mixed0..mixed10 inception modules.
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

Shape conv_bn(ModelBuilder& b, Shape x, int filters, int kh, int kw, int stride = 1, Padding pad = Padding::Same) {
  x = b.conv2d(x, filters, kh, kw, stride, pad, false);
  x = b.batchnorm(x, false);
  return b.activation(x, "relu");
}

Shape avg_pool_branch(ModelBuilder& b, Shape x, int filters) {
  const Shape p = b.pool(x, PoolKind::Avg, 3, 1, Padding::Same);
  return conv_bn(b, p, filters, 1, 1);
}

// mixed0..mixed2 (35x35 at 299): 1x1, 5x5, double 3x3 and pool branches.
Shape module_a(ModelBuilder& b, Shape x, int pool_filters, int index) {
  const Shape b1 = conv_bn(b, x, 64, 1, 1);
  const Shape b5 = conv_bn(b, conv_bn(b, x, 48, 1, 1), 64, 5, 5);
  const Shape b3 = conv_bn(b, conv_bn(b, conv_bn(b, x, 64, 1, 1), 96, 3, 3), 96, 3, 3);
  const Shape bp = avg_pool_branch(b, x, pool_filters);
  return b.concat({b1, b5, b3, bp}, fmt::format("mixed{}", index));
}

// mixed3: grid reduction 35 -> 17.
Shape reduction_a(ModelBuilder& b, Shape x) {
  const Shape b3 = conv_bn(b, x, 384, 3, 3, 2, Padding::Valid);
  Shape d = conv_bn(b, conv_bn(b, x, 64, 1, 1), 96, 3, 3);
  d = conv_bn(b, d, 96, 3, 3, 2, Padding::Valid);
  const Shape bp = b.pool(x, PoolKind::Max, 3, 2, Padding::Valid);
  return b.concat({b3, d, bp}, "mixed3");
}

// mixed4..mixed7 (17x17): factorised 7x7 branches with `c` inner channels.
Shape module_b(ModelBuilder& b, Shape x, int c, int index) {
  const Shape b1 = conv_bn(b, x, 192, 1, 1);
  Shape b7 = conv_bn(b, x, c, 1, 1);
  b7 = conv_bn(b, conv_bn(b, b7, c, 1, 7), 192, 7, 1);
  Shape d = conv_bn(b, x, c, 1, 1);
  d = conv_bn(b, conv_bn(b, d, c, 7, 1), c, 1, 7);
  d = conv_bn(b, conv_bn(b, d, c, 7, 1), 192, 1, 7);
  const Shape bp = avg_pool_branch(b, x, 192);
  return b.concat({b1, b7, d, bp}, fmt::format("mixed{}", index));
}

// mixed8: grid reduction 17 -> 8.
Shape reduction_b(ModelBuilder& b, Shape x) {
  const Shape b3 = conv_bn(b, conv_bn(b, x, 192, 1, 1), 320, 3, 3, 2, Padding::Valid);
  Shape b7 = conv_bn(b, conv_bn(b, x, 192, 1, 1), 192, 1, 7);
  b7 = conv_bn(b, conv_bn(b, b7, 192, 7, 1), 192, 3, 3, 2, Padding::Valid);
  const Shape bp = b.pool(x, PoolKind::Max, 3, 2, Padding::Valid);
  return b.concat({b3, b7, bp}, "mixed8");
}

// 1x3 and 3x1 convolutions side by side on the same input.
Shape split_3x3(ModelBuilder& b, Shape x, const std::string& name) {
  const Shape l = conv_bn(b, x, 384, 1, 3);
  const Shape r = conv_bn(b, x, 384, 3, 1);
  return b.concat({l, r}, name);
}

// mixed9, mixed10 (8x8).
Shape module_c(ModelBuilder& b, Shape x, int i) {
  const Shape b1 = conv_bn(b, x, 320, 1, 1);
  const Shape b3 = split_3x3(b, conv_bn(b, x, 384, 1, 1), fmt::format("mixed9_{}", i));
  const Shape d = split_3x3(b, conv_bn(b, conv_bn(b, x, 448, 1, 1), 384, 3, 3), "");
  const Shape bp = avg_pool_branch(b, x, 192);
  return b.concat({b1, b3, d, bp}, fmt::format("mixed{}", 9 + i));
}

}  // namespace

Model build_inception_v3(const ModelOptions& o) {
  ModelBuilder b("inception_v3");
  Shape x = b.input(input_shape(o), "input_1");
  x = conv_bn(b, x, 32, 3, 3, 2, Padding::Valid);
  x = conv_bn(b, x, 32, 3, 3, 1, Padding::Valid);
  x = conv_bn(b, x, 64, 3, 3);
  x = b.pool(x, PoolKind::Max, 3, 2, Padding::Valid);
  x = conv_bn(b, x, 80, 1, 1, 1, Padding::Valid);
  x = conv_bn(b, x, 192, 3, 3, 1, Padding::Valid);
  x = b.pool(x, PoolKind::Max, 3, 2, Padding::Valid);
  x = module_a(b, x, 32, 0);
  x = module_a(b, x, 64, 1);
  x = module_a(b, x, 64, 2);
  x = reduction_a(b, x);
  const int channels[] = {128, 160, 160, 192};
  for (int i = 0; i < 4; ++i) x = module_b(b, x, channels[i], 4 + i);
  x = reduction_b(b, x);
  for (int i = 0; i < 2; ++i) x = module_c(b, x, i);
  x = b.global_pool(x, PoolKind::Avg, "avg_pool");
  x = b.dense(x, o.classes, true, "predictions");
  b.activation(x, "softmax", "predictions_softmax");
  return b.finish(o.classes);
}

}  // namespace model_layer
}  // namespace ddlsim
