// ResNet-50 / ResNet-101 / ResNet-152 v1, Keras applications layout (keras.applications.resnet):
// biased convolutions followed by BatchNorm, stride 2 on the first 1x1 conv of a stage.
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {

namespace {

// Conv2D (with bias) + BatchNorm, named like Keras: <prefix>_conv, <prefix>_bn.
Shape conv_bn(ModelBuilder& b, Shape x, int filters, int k, int stride, const std::string& prefix) {
  x = b.conv2d(x, filters, k, k, stride, Padding::Same, true, prefix + "_conv");
  return b.batchnorm(x, true, prefix + "_bn");
}

// Bottleneck block1: 1x1 (stride) -> 3x3 -> 1x1 (x4), projection shortcut when asked.
Shape bottleneck(ModelBuilder& b, Shape x, int filters, int stride, bool conv_shortcut, const std::string& name) {
  Shape shortcut = x;
  if (conv_shortcut) shortcut = conv_bn(b, x, 4 * filters, 1, stride, name + "_0");
  x = conv_bn(b, x, filters, 1, stride, name + "_1");
  x = b.activation(x, "relu", name + "_1_relu");
  x = conv_bn(b, x, filters, 3, 1, name + "_2");
  x = b.activation(x, "relu", name + "_2_relu");
  x = conv_bn(b, x, 4 * filters, 1, 1, name + "_3");
  x = b.add({shortcut, x}, name + "_add");
  return b.activation(x, "relu", name + "_out");
}

Shape stack(ModelBuilder& b, Shape x, int filters, int blocks, int stride, const std::string& name) {
  x = bottleneck(b, x, filters, stride, true, name + "_block1");
  for (int i = 2; i <= blocks; ++i) x = bottleneck(b, x, filters, 1, false, fmt::format("{}_block{}", name, i));
  return x;
}

Model build_resnet(const ModelOptions& o, const std::string& name, const int (&blocks)[4]) {
  ModelBuilder b(name);
  Shape x = b.input(input_shape(o), "input_1");
  x = b.zero_padding(x, 3, 3, 3, 3, "conv1_pad");
  x = b.conv2d(x, 64, 7, 7, 2, Padding::Valid, true, "conv1_conv");
  x = b.batchnorm(x, true, "conv1_bn");
  x = b.activation(x, "relu", "conv1_relu");
  x = b.zero_padding(x, 1, 1, 1, 1, "pool1_pad");
  x = b.pool(x, PoolKind::Max, 3, 2, Padding::Valid, "pool1_pool");
  x = stack(b, x, 64, blocks[0], 1, "conv2");
  x = stack(b, x, 128, blocks[1], 2, "conv3");
  x = stack(b, x, 256, blocks[2], 2, "conv4");
  x = stack(b, x, 512, blocks[3], 2, "conv5");
  x = b.global_pool(x, PoolKind::Avg, "avg_pool");
  x = b.dense(x, o.classes, true, "predictions");
  b.activation(x, "softmax", "predictions_softmax");
  return b.finish(o.classes);
}

}  // namespace

Model build_resnet50(const ModelOptions& o) { return build_resnet(o, "resnet50", {3, 4, 6, 3}); }
Model build_resnet101(const ModelOptions& o) { return build_resnet(o, "resnet101", {3, 4, 23, 3}); }
Model build_resnet152(const ModelOptions& o) { return build_resnet(o, "resnet152", {3, 8, 36, 3}); }

}  // namespace ddlsim
