// ConvNeXt (Liu et al., "A ConvNet for the 2020s", CVPR 2022) in torchvision's layout
// (torchvision/models/convnext.py): a 4x4 stride-4 stem convolution and a layer norm; four stages
// of blocks (7x7 depthwise convolution, layer norm over the channels, dense 4C with GELU, dense C,
// a learned per-channel layer scale, residual add), each stage after the first opened by a layer
// norm and a 2x2 stride-2 convolution; global average pooling, a layer norm and the classifier.
// Stochastic depth runs no kernel in torchvision's defaults here (p = 0 for the tiny model; a
// training recipe's p > 0 drops whole samples' branches, not modelled). Parameter counts equal
// torchvision's (model_zoo_test).
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {

namespace {

struct ConvNextConfig {
  const char* name;
  int depths[4];
  int dims[4];
};

Shape block(ModelBuilder& b, Shape x, const std::string& p) {
  Shape y = b.depthwise_conv2d(x, 7, 7, 1, Padding::Same, true, p + "_dwconv");
  y = b.layer_norm(y, p + "_ln");
  y = b.activation(b.dense(y, 4 * x.c, true, p + "_fc1"), "gelu", p + "_gelu");
  y = b.dense(y, x.c, true, p + "_fc2");
  y = b.channel_scale(y, p + "_layer_scale");
  return b.add({y, x}, p + "_add");
}

Model build_convnext(const ConvNextConfig& c, const ModelOptions& o) {
  ModelBuilder b(c.name);
  Shape x = b.input(input_shape(o));
  x = b.conv2d(x, c.dims[0], 4, 4, 4, Padding::Valid, true, "stem_conv");
  x = b.layer_norm(x, "stem_ln");
  for (int s = 0; s < 4; ++s) {
    if (s > 0) {
      x = b.layer_norm(x, fmt::format("downsample_{}_ln", s));
      x = b.conv2d(x, c.dims[s], 2, 2, 2, Padding::Valid, true, fmt::format("downsample_{}_conv", s));
    }
    for (int i = 0; i < c.depths[s]; ++i) x = block(b, x, fmt::format("stage_{}_block_{}", s, i));
  }
  x = b.global_pool(x, PoolKind::Avg, "avgpool");
  x = b.layer_norm(x, "head_ln");
  b.dense(x, o.classes, true, "classifier");
  return b.finish(o.classes);
}

}  // namespace

Model build_convnext_tiny(const ModelOptions& o) { return build_convnext({"convnext_tiny", {3, 3, 9, 3}, {96, 192, 384, 768}}, o); }
Model build_convnext_small(const ModelOptions& o) {
  return build_convnext({"convnext_small", {3, 3, 27, 3}, {96, 192, 384, 768}}, o);
}
Model build_convnext_base(const ModelOptions& o) {
  return build_convnext({"convnext_base", {3, 3, 27, 3}, {128, 256, 512, 1024}}, o);
}
Model build_convnext_large(const ModelOptions& o) {
  return build_convnext({"convnext_large", {3, 3, 27, 3}, {192, 384, 768, 1536}}, o);
}

}  // namespace ddlsim
