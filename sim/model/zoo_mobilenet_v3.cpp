// MobileNetV3-Large and -Small (Howard et al., "Searching for MobileNetV3", ICCV 2019, tables 1
// and 2), torchvision layout (torchvision.models.mobilenet_v3_large/_small): a 3x3/2 stem of 16 with
// hard-swish; 15 (Small: 11) inverted residual blocks (1x1 expansion unless the width stays,
// depthwise k x k, optional squeeze-excite, linear 1x1 projection; BatchNorm after every
// convolution, none biased); a 1x1 convolution to 960 (Small: 576), global pooling, a 1280-unit
// (Small: 1024) hidden layer with hard-swish and the classifier. Squeeze-excite:
// global pooling, 1x1 convolutions (biased) to make_divisible(expanded / 4, 8) with ReLU and back
// with hard-sigmoid, scaling the depthwise output.
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

struct V3Block {
  int kernel, expanded, out;
  bool se, hard_swish;
  int stride;
};

constexpr V3Block kV3Large[] = {
    {3, 16, 16, false, false, 1},   {3, 64, 24, false, false, 2},  {3, 72, 24, false, false, 1},
    {5, 72, 40, true, false, 2},    {5, 120, 40, true, false, 1},  {5, 120, 40, true, false, 1},
    {3, 240, 80, false, true, 2},   {3, 200, 80, false, true, 1},  {3, 184, 80, false, true, 1},
    {3, 184, 80, false, true, 1},   {3, 480, 112, true, true, 1},  {3, 672, 112, true, true, 1},
    {5, 672, 160, true, true, 2},   {5, 960, 160, true, true, 1},  {5, 960, 160, true, true, 1},
};

constexpr V3Block kV3Small[] = {
    {3, 16, 16, true, false, 2},  {3, 72, 24, false, false, 2}, {3, 88, 24, false, false, 1},
    {5, 96, 40, true, true, 2},   {5, 240, 40, true, true, 1},  {5, 240, 40, true, true, 1},
    {5, 120, 48, true, true, 1},  {5, 144, 48, true, true, 1},  {5, 288, 96, true, true, 2},
    {5, 576, 96, true, true, 1},  {5, 576, 96, true, true, 1},
};

// torchvision's _make_divisible(v, 8): the nearest multiple of 8, at least 8, not below 0.9 v.
int make_divisible(double v) {
  int d = std::max(8, int(v + 4) / 8 * 8);
  if (d < 0.9 * v) d += 8;
  return d;
}

Shape conv_bn_act(ModelBuilder& b, Shape x, int filters, int k, int stride, const char* act, const std::string& name) {
  x = b.conv2d(x, filters, k, k, stride, Padding::Same, false, name + "_conv");
  x = b.batchnorm(x, true, name + "_bn");
  return act ? b.activation(x, act, name + "_act", true) : x;
}

Shape v3_block(ModelBuilder& b, Shape in, const V3Block& s, int id) {
  const std::string name = fmt::format("block{}", id);
  const char* act = s.hard_swish ? "hard_swish" : "relu";
  Shape x = in;
  if (s.expanded != in.c) x = conv_bn_act(b, x, s.expanded, 1, 1, act, name + "_expand");
  x = b.depthwise_conv2d(x, s.kernel, s.kernel, s.stride, Padding::Same, false, name + "_depthwise");
  x = b.activation(b.batchnorm(x, true, name + "_depthwise_bn"), act, name + "_depthwise_act", true);
  if (s.se) x = b.squeeze_excite(x, make_divisible(s.expanded / 4.0), "relu", "hard_sigmoid", name + "_se_");
  x = conv_bn_act(b, x, s.out, 1, 1, nullptr, name + "_project");
  if (s.stride == 1 && in.c == s.out) x = b.add({in, x}, name + "_add");
  return x;
}

template <std::size_t N>
Model build_mobilenet_v3(const char* name, const V3Block (&blocks)[N], int last, int hidden, const ModelOptions& o) {
  ModelBuilder b(name);
  Shape x = b.input(input_shape(o), "input_1");
  x = conv_bn_act(b, x, 16, 3, 2, "hard_swish", "stem");
  int id = 0;
  for (const V3Block& s : blocks) x = v3_block(b, x, s, ++id);
  x = conv_bn_act(b, x, last, 1, 1, "hard_swish", "last");
  x = b.global_pool(x, PoolKind::Avg, "avgpool");
  x = b.activation(b.dense(x, hidden, true, "classifier_hidden"), "hard_swish", "classifier_act", true);
  x = b.dense(x, o.classes, true, "predictions");
  b.activation(x, "softmax", "predictions_softmax");
  return b.finish(o.classes);
}

}  // namespace

Model build_mobilenet_v3_large(const ModelOptions& o) {
  return build_mobilenet_v3("mobilenet_v3_large", kV3Large, 960, 1280, o);
}
Model build_mobilenet_v3_small(const ModelOptions& o) {
  return build_mobilenet_v3("mobilenet_v3_small", kV3Small, 576, 1024, o);
}

}  // namespace model_layer
}  // namespace ddlsim
