// ConvNeXt (Liu et al., "A ConvNet for the 2020s", CVPR 2022) in torchvision's layout
// (torchvision/models/convnext.py): a 4x4 stride-4 stem convolution and a layer norm; four stages
// of blocks (7x7 depthwise convolution, layer norm over the channels, dense 4C with GELU, dense C,
// a learned per-channel layer scale, residual add), each stage after the first opened by a layer
// norm and a 2x2 stride-2 convolution; global average pooling, a layer norm and the classifier.
// Each layer norm over a convolution's output copies it to channels-last first (below); each block's
// gradient is copied once more where it is permuted back to the second dense layer.
// Stochastic depth after the layer scale, at torchvision's stochastic_depth_prob (0.1, 0.4, 0.5,
// 0.5) x block / (blocks - 1): the first block's is 0 and free. Parameter counts equal
// torchvision's (model_zoo_test).
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

struct ConvNextConfig {
  const char* name;
  int depths[4];
  int dims[4];
  double drop_path;  // torchvision's stochastic_depth_prob
};

// torchvision permutes the convolution's channels-first output to channels-last before its layer
// norm, and ATen's layer norm makes a non-contiguous input contiguous first (layer_norm_cuda's
// expect_contiguous): a copy, forward and (for the gradient) backward.
Shape layer_norm_of_permuted(ModelBuilder& b, Shape x, const std::string& p) {
  return b.layer_norm(b.permute(x, x, p + "_permute"), p + "_ln");
}

Shape block(ModelBuilder& b, Shape x, double drop_rate, const std::string& p) {
  Shape y = b.depthwise_conv2d(x, 7, 7, 1, Padding::Same, true, p + "_dwconv");
  y = layer_norm_of_permuted(b, y, p);
  y = b.activation(b.dense(y, 4 * x.c, true, p + "_fc1"), "gelu", p + "_gelu");
  y = b.dense(y, x.c, true, p + "_fc2");
  // Permuted back to channels-first (a view) for the layer scale: backward, the scale's gradient
  // reaches fc2 as a permuted view that its gradient reshapes, a copy (op_census.py on CNBlock).
  y = b.permuted_view(y, p + "_permute_back");
  y = b.channel_scale(y, p + "_layer_scale");
  y = b.stochastic_depth(y, drop_rate, p + "_stochastic_depth");
  return b.add({y, x}, p + "_add");
}

Model build_convnext(const ConvNextConfig& c, const ModelOptions& o) {
  ModelBuilder b(c.name);
  Shape x = b.input(input_shape(o));
  x = b.conv2d(x, c.dims[0], 4, 4, 4, Padding::Valid, true, "stem_conv");
  x = layer_norm_of_permuted(b, x, "stem");
  const double drop_path = o.drop_path >= 0 ? o.drop_path : c.drop_path;
  const int blocks = c.depths[0] + c.depths[1] + c.depths[2] + c.depths[3];
  int id = 0;
  for (int s = 0; s < 4; ++s) {
    if (s > 0) {
      x = layer_norm_of_permuted(b, x, fmt::format("downsample_{}", s));
      x = b.conv2d(x, c.dims[s], 2, 2, 2, Padding::Valid, true, fmt::format("downsample_{}_conv", s));
    }
    for (int i = 0; i < c.depths[s]; ++i, ++id)
      x = block(b, x, drop_path * id / (blocks - 1.0), fmt::format("stage_{}_block_{}", s, i));
  }
  x = b.global_pool(x, PoolKind::Avg, "avgpool");
  x = b.layer_norm(x, "head_ln");
  b.dense(x, o.classes, true, "classifier");
  return b.finish(o.classes);
}

}  // namespace

Model build_convnext_tiny(const ModelOptions& o) {
  return build_convnext({"convnext_tiny", {3, 3, 9, 3}, {96, 192, 384, 768}, 0.1}, o);
}
Model build_convnext_small(const ModelOptions& o) {
  return build_convnext({"convnext_small", {3, 3, 27, 3}, {96, 192, 384, 768}, 0.4}, o);
}
Model build_convnext_base(const ModelOptions& o) {
  return build_convnext({"convnext_base", {3, 3, 27, 3}, {128, 256, 512, 1024}, 0.5}, o);
}
Model build_convnext_large(const ModelOptions& o) {
  return build_convnext({"convnext_large", {3, 3, 27, 3}, {192, 384, 768, 1536}, 0.5}, o);
}

}  // namespace model_layer
}  // namespace ddlsim
