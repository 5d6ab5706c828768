// EfficientNet-B0 to B7, Keras applications layout (keras.applications.efficientnet): Rescaling and
// Normalization at the input, MBConv blocks with squeeze-excitation, swish activations. B1-B7
// scale B0's block table by their width and depth coefficients (Tan and Le, ICML 2019; Keras'
// round_filters to multiples of 8 and round_repeats = ceil). NVIDIA DeepLearningExamples' WideSE
// variants (PyTorch ConvNets, image_classification/models/efficientnet.py: widese_mbconv) are the
// same networks with each squeeze-excitation reduced to a quarter of the block's expanded channels
// instead of a quarter of its input channels (the Keras layout's input scaling is kept: NVIDIA
// normalises in its data pipeline instead).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

struct BlockArgs {
  int kernel;
  int repeats;
  int filters_in;
  int filters_out;
  int expand_ratio;
  int stride;
};

constexpr BlockArgs kBlocks[] = {
    {3, 1, 32, 16, 1, 1},  {3, 2, 16, 24, 6, 2},  {5, 2, 24, 40, 6, 2},   {3, 3, 40, 80, 6, 2},
    {5, 3, 80, 112, 6, 1}, {5, 4, 112, 192, 6, 2}, {3, 1, 192, 320, 6, 1},
};
constexpr double kSeRatio = 0.25;

// What the squeeze-excitation's quarter is taken of: the block's input channels (Keras, torchvision,
// NVIDIA's original_mbconv) or its expanded channels (NVIDIA's widese_mbconv).
enum class SeBase { Input, Expanded };

// Squeeze-excitation: global pool, reduce 1x1 conv (swish), expand 1x1 conv (sigmoid), scale.
Shape squeeze_excite(ModelBuilder& b, Shape x, int filters_se, const std::string& name) {
  Shape se = b.global_pool(x, PoolKind::Avg, name + "se_squeeze");
  se = b.conv2d(se, filters_se, 1, 1, 1, Padding::Same, true, name + "se_reduce");
  se = b.activation(se, "swish", name + "se_reduce_swish", true);
  se = b.conv2d(se, x.c, 1, 1, 1, Padding::Same, true, name + "se_expand");
  se = b.activation(se, "sigmoid", name + "se_expand_sigmoid");
  return b.multiply(x, se, name + "se_excite");
}

// One MBConv block: expand 1x1, depthwise kxk, squeeze-excitation, project 1x1, residual.
Shape mbconv(ModelBuilder& b, Shape in, const BlockArgs& a, int filters_in, int stride, double drop_rate,
             SeBase se_base, const std::string& name) {
  Shape x = in;
  if (a.expand_ratio != 1) {
    x = b.conv2d(x, filters_in * a.expand_ratio, 1, 1, 1, Padding::Same, false, name + "expand_conv");
    x = b.batchnorm(x, true, name + "expand_bn");
    x = b.activation(x, "swish", name + "expand_activation", true);
  }
  Padding pad = Padding::Same;
  if (stride == 2) {
    x = correct_pad(b, x, a.kernel, name + "dwconv_pad");
    pad = Padding::Valid;
  }
  x = b.depthwise_conv2d(x, a.kernel, a.kernel, stride, pad, false, name + "dwconv");
  x = b.batchnorm(x, true, name + "bn");
  x = b.activation(x, "swish", name + "activation", true);
  const int se_of = se_base == SeBase::Expanded ? filters_in * a.expand_ratio : filters_in;
  x = squeeze_excite(b, x, std::max(1, int(se_of * kSeRatio)), name);
  x = b.conv2d(x, a.filters_out, 1, 1, 1, Padding::Same, false, name + "project_conv");
  x = b.batchnorm(x, true, name + "project_bn");
  if (stride == 1 && filters_in == a.filters_out) {
    x = b.stochastic_depth(x, drop_rate, name + "drop");
    x = b.add({x, in}, name + "add");
  }
  return x;
}

}  // namespace

namespace {

// Keras round_filters: width-scaled, to a multiple of 8, never more than 10 % below the scaled value.
int round_filters(int filters, double width) {
  constexpr int kDivisor = 8;
  const double scaled = filters * width;
  int rounded = std::max(kDivisor, int(scaled + kDivisor / 2.0) / kDivisor * kDivisor);
  if (rounded < 0.9 * scaled) rounded += kDivisor;
  return rounded;
}

int round_repeats(int repeats, double depth) { return int(std::ceil(depth * repeats)); }

// drop_connect: Keras' drop_connect_rate (0.2) unless the options set one; NVIDIA's B0 has none.
Model build_efficientnet(const ModelOptions& o, const char* name, double width, double depth,
                         SeBase se_base = SeBase::Input, double drop_connect_default = 0.2) {
  ModelBuilder b(name);
  Shape x = b.input(input_shape(o), "input_1");
  x = b.rescaling(x, "rescaling");
  x = b.normalization(x, "normalization");
  x = correct_pad(b, x, 3, "stem_conv_pad");
  x = b.conv2d(x, round_filters(32, width), 3, 3, 2, Padding::Valid, false, "stem_conv");
  x = b.batchnorm(x, true, "stem_bn");
  x = b.activation(x, "swish", "stem_activation", true);
  // Stochastic depth: drop_connect x block / blocks, blocks counted from 0 (Keras and NVIDIA alike).
  const double drop_connect = o.drop_path >= 0 ? o.drop_path : drop_connect_default;
  int blocks = 0, block = 0, block_no = 0;
  for (const BlockArgs& a : kBlocks) blocks += round_repeats(a.repeats, depth);
  for (BlockArgs a : kBlocks) {
    ++block_no;
    a.filters_in = round_filters(a.filters_in, width);
    a.filters_out = round_filters(a.filters_out, width);
    const int repeats = round_repeats(a.repeats, depth);
    for (int j = 0; j < repeats; ++j, ++block) {
      const std::string prefix = fmt::format("block{}{}_", block_no, char('a' + j));
      x = mbconv(b, x, a, j == 0 ? a.filters_in : a.filters_out, j == 0 ? a.stride : 1,
                 drop_connect * block / blocks, se_base, prefix);
    }
  }
  x = b.conv2d(x, round_filters(1280, width), 1, 1, 1, Padding::Same, false, "top_conv");
  x = b.batchnorm(x, true, "top_bn");
  x = b.activation(x, "swish", "top_activation", true);
  x = b.global_pool(x, PoolKind::Avg, "avg_pool");
  x = b.dropout(x, "top_dropout");
  x = b.dense(x, o.classes, true, "predictions");
  b.activation(x, "softmax", "predictions_softmax");
  return b.finish(o.classes);
}

}  // namespace

// Width and depth coefficients of keras.applications.efficientnet.EfficientNetB0 ... B7.
Model build_efficientnet_b0(const ModelOptions& o) { return build_efficientnet(o, "efficientnet_b0", 1.0, 1.0); }
Model build_efficientnet_b1(const ModelOptions& o) { return build_efficientnet(o, "efficientnet_b1", 1.0, 1.1); }
Model build_efficientnet_b2(const ModelOptions& o) { return build_efficientnet(o, "efficientnet_b2", 1.1, 1.2); }
Model build_efficientnet_b3(const ModelOptions& o) { return build_efficientnet(o, "efficientnet_b3", 1.2, 1.4); }
Model build_efficientnet_b4(const ModelOptions& o) { return build_efficientnet(o, "efficientnet_b4", 1.4, 1.8); }
Model build_efficientnet_b5(const ModelOptions& o) { return build_efficientnet(o, "efficientnet_b5", 1.6, 2.2); }
Model build_efficientnet_b6(const ModelOptions& o) { return build_efficientnet(o, "efficientnet_b6", 1.8, 2.6); }
Model build_efficientnet_b7(const ModelOptions& o) { return build_efficientnet(o, "efficientnet_b7", 2.0, 3.1); }
// NVIDIA's two published WideSE networks (efficientnet.py's entry points) with their survival
// probabilities: none dropped in B0 (EffNetParams' default 1), 0.8 in B4 (a drop rate of 0.2).
Model build_efficientnet_widese_b0(const ModelOptions& o) {
  return build_efficientnet(o, "efficientnet_widese_b0", 1.0, 1.0, SeBase::Expanded, 0.0);
}
Model build_efficientnet_widese_b4(const ModelOptions& o) {
  return build_efficientnet(o, "efficientnet_widese_b4", 1.4, 1.8, SeBase::Expanded, 0.2);
}

}  // namespace model_layer
}  // namespace ddlsim
