// EfficientNetV2-S/M/L (Tan and Le, ICML 2021) in torchvision's layout
// (torchvision/models/efficientnet.py, _efficientnet_conf): a 3x3 stride-2 stem; Fused-MBConv
// stages (a kxk convolution expanding the channels, then a 1x1 projection; one kxk convolution
// when the expansion is 1) and MBConv stages (1x1 expansion, kxk depthwise, squeeze-excitation
// of input / 4 channels, 1x1 projection), each conv followed by batch norm and SiLU but the
// projections; a residual add where the stride is 1 and the widths match; a 1x1 head convolution
// to 1280 channels, global pooling and the classifier. Parameter counts equal torchvision's.
#include <algorithm>
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

struct Stage {
  bool fused;
  int expand;
  int kernel;
  int stride;
  int in;
  int out;
  int layers;
};

Shape conv_bn(ModelBuilder& b, Shape x, int filters, int k, int stride, bool act, const std::string& name) {
  x = b.conv2d(x, filters, k, k, stride, Padding::Same, false, name + "_conv");
  x = b.batchnorm(x, true, name + "_bn");
  return act ? b.activation(x, "silu", name + "_silu", true) : x;
}

Shape block(ModelBuilder& b, Shape in, const Stage& s, int stride, double drop_rate, const std::string& name) {
  const int c_in = in.c, wide = c_in * s.expand;
  Shape x = in;
  if (s.fused && s.expand == 1) {
    x = conv_bn(b, x, s.out, s.kernel, stride, true, name + "_fused");
  } else if (s.fused) {
    x = conv_bn(b, x, wide, s.kernel, stride, true, name + "_fused_expand");
    x = conv_bn(b, x, s.out, 1, 1, false, name + "_project");
  } else {
    x = conv_bn(b, x, wide, 1, 1, true, name + "_expand");
    x = b.depthwise_conv2d(x, s.kernel, s.kernel, stride, Padding::Same, false, name + "_dwconv");
    x = b.activation(b.batchnorm(x, true, name + "_dw_bn"), "silu", name + "_dw_silu", true);
    x = b.squeeze_excite(x, std::max(1, c_in / 4), "silu", "sigmoid", name + "_se_");
    x = conv_bn(b, x, s.out, 1, 1, false, name + "_project");
  }
  if (stride != 1 || c_in != s.out) return x;
  return b.add({b.stochastic_depth(x, drop_rate, name + "_stochastic_depth"), in}, name + "_add");
}

template <std::size_t N>
Model build_v2(const char* name, const Stage (&stages)[N], const ModelOptions& o) {
  ModelBuilder b(name);
  Shape x = b.input(input_shape(o));
  x = conv_bn(b, x, stages[0].in, 3, 2, true, "stem");
  // Stochastic depth: torchvision's stochastic_depth_prob (0.2) x block / blocks, from block 0.
  const double drop_path = o.drop_path >= 0 ? o.drop_path : 0.2;
  int blocks = 0, id = 0;
  for (const Stage& s : stages) blocks += s.layers;
  for (std::size_t s = 0; s < N; ++s)
    for (int i = 0; i < stages[s].layers; ++i, ++id)
      x = block(b, x, stages[s], i == 0 ? stages[s].stride : 1, drop_path * id / blocks,
                fmt::format("stage{}_{}", s + 1, i));
  x = conv_bn(b, x, 1280, 1, 1, true, "head");
  x = b.global_pool(x, PoolKind::Avg, "avgpool");
  b.dense(x, o.classes, true, "classifier");
  return b.finish(o.classes);
}

// torchvision's _efficientnet_conf tables: (fused, expand, kernel, stride, in, out, layers).
constexpr Stage kS[] = {{true, 1, 3, 1, 24, 24, 2},     {true, 4, 3, 2, 24, 48, 4},    {true, 4, 3, 2, 48, 64, 4},
                        {false, 4, 3, 2, 64, 128, 6},   {false, 6, 3, 1, 128, 160, 9}, {false, 6, 3, 2, 160, 256, 15}};
constexpr Stage kM[] = {{true, 1, 3, 1, 24, 24, 3},     {true, 4, 3, 2, 24, 48, 5},     {true, 4, 3, 2, 48, 80, 5},
                        {false, 4, 3, 2, 80, 160, 7},   {false, 6, 3, 1, 160, 176, 14}, {false, 6, 3, 2, 176, 304, 18},
                        {false, 6, 3, 1, 304, 512, 5}};
constexpr Stage kL[] = {{true, 1, 3, 1, 32, 32, 4},     {true, 4, 3, 2, 32, 64, 7},     {true, 4, 3, 2, 64, 96, 7},
                        {false, 4, 3, 2, 96, 192, 10},  {false, 6, 3, 1, 192, 224, 19}, {false, 6, 3, 2, 224, 384, 25},
                        {false, 6, 3, 1, 384, 640, 7}};

}  // namespace

Model build_efficientnet_v2_s(const ModelOptions& o) { return build_v2("efficientnet_v2_s", kS, o); }
Model build_efficientnet_v2_m(const ModelOptions& o) { return build_v2("efficientnet_v2_m", kM, o); }
Model build_efficientnet_v2_l(const ModelOptions& o) { return build_v2("efficientnet_v2_l", kL, o); }

}  // namespace model_layer
}  // namespace ddlsim
