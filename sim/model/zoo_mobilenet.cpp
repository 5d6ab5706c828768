// MobileNetV2 with alpha = 1.0, Keras applications layout (keras.applications.mobilenet_v2):
// inverted residual blocks (expand 1x1, depthwise 3x3, linear project 1x1), ReLU6.
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

struct BlockSpec {
  int filters;
  int stride;
  int expansion;
};

// Blocks 0..16 in order.
constexpr BlockSpec kBlocks[] = {
    {16, 1, 1},  {24, 2, 6},  {24, 1, 6},  {32, 2, 6},  {32, 1, 6},  {32, 1, 6},
    {64, 2, 6},  {64, 1, 6},  {64, 1, 6},  {64, 1, 6},  {96, 1, 6},  {96, 1, 6},
    {96, 1, 6},  {160, 2, 6}, {160, 1, 6}, {160, 1, 6}, {320, 1, 6},
};

Shape bn_relu6(ModelBuilder& b, Shape x, const std::string& prefix) {
  x = b.batchnorm(x, true, prefix + "BN");
  return b.activation(x, "relu6", prefix + "relu", true);
}

Shape inverted_residual(ModelBuilder& b, Shape in, const BlockSpec& s, int block_id) {
  const std::string prefix = block_id ? fmt::format("block_{}_", block_id) : "expanded_conv_";
  Shape x = in;
  if (block_id) {
    x = b.conv2d(x, s.expansion * in.c, 1, 1, 1, Padding::Same, false, prefix + "expand");
    x = bn_relu6(b, x, prefix + "expand_");
  }
  Padding pad = Padding::Same;
  if (s.stride == 2) {
    x = correct_pad(b, x, 3, prefix + "pad");
    pad = Padding::Valid;
  }
  x = b.depthwise_conv2d(x, 3, 3, s.stride, pad, false, prefix + "depthwise");
  x = bn_relu6(b, x, prefix + "depthwise_");
  x = b.conv2d(x, s.filters, 1, 1, 1, Padding::Same, false, prefix + "project");
  x = b.batchnorm(x, true, prefix + "project_BN");
  if (in.c == s.filters && s.stride == 1) x = b.add({in, x}, prefix + "add");
  return x;
}

}  // namespace

Model build_mobilenet_v2(const ModelOptions& o) {
  ModelBuilder b("mobilenet_v2");
  Shape x = b.input(input_shape(o), "input_1");
  x = b.conv2d(x, 32, 3, 3, 2, Padding::Same, false, "Conv1");
  x = bn_relu6(b, x, "bn_Conv1_");
  int block_id = 0;
  for (const BlockSpec& s : kBlocks) x = inverted_residual(b, x, s, block_id++);
  x = b.conv2d(x, 1280, 1, 1, 1, Padding::Same, false, "Conv_1");
  x = bn_relu6(b, x, "Conv_1_");
  x = b.global_pool(x, PoolKind::Avg, "global_average_pooling2d");
  x = b.dense(x, o.classes, true, "predictions");
  b.activation(x, "softmax", "predictions_softmax");
  return b.finish(o.classes);
}

}  // namespace model_layer
}  // namespace ddlsim
