// Swin Transformers (Liu et al., "Swin Transformer: Hierarchical Vision Transformer using Shifted
// Windows", ICCV 2021) in torchvision's layout (torchvision/models/swin_transformer.py, v1): a 4x4
// stride-4 patch convolution and a layer norm; four stages of pre-norm blocks, each attending within
// 7x7 windows (shifted by 3 in every second block, unless one window covers the stage), with a
// learned relative-position bias of 13 x 13 entries a head; patch merging between stages (2x2
// neighbouring tokens concatenated, a layer norm, a bias-free linear map to twice the width); a
// final layer norm, global average pooling and the classifier. The copies torchvision makes are
// layers of their own: each block pads its input to whole windows (F.pad, a copy even where nothing
// is padded: ATen's constant_pad_nd clones) and crops the result back (x[:, :H, :W]: a view, copied
// where it drops padding; backward two zero-filled slice gradients), the roll of a shifted block and
// its inverse, the window partition and its inverse, the merge's padding to an even grid and its
// concatenation (one copy: torchvision's four strided slices are not itemised). The projections and
// the attention run over the padded tokens, the MLP over the real ones; a dimension that one window
// covers after padding is not shifted. Stochastic depth on both residual branches at torchvision's
// stochastic_depth_prob (0.2, 0.3, 0.5) x block / (blocks - 1). Parameter counts equal
// torchvision's (model_zoo_test); multiply-adds at 224, 256 and 300 pixels too.
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

constexpr int kWindow = 7;
constexpr int kBiasTable = (2 * kWindow - 1) * (2 * kWindow - 1);

struct SwinConfig {
  const char* name;
  int dim;
  int depths[4];
  int heads[4];
  double drop_path;  // torchvision's stochastic_depth_prob
};

struct Grid {
  int h, w;
};

int whole_windows(int n) { return (n + kWindow - 1) / kWindow * kWindow; }

Shape block(ModelBuilder& b, Shape x, Grid g, int heads, bool shifted, double drop_rate, const std::string& p) {
  const int d = x.c;
  const Grid padded{whole_windows(g.h), whole_windows(g.w)};
  // torchvision turns the shift off in a dimension one window covers (after padding).
  shifted = shifted && (padded.h > kWindow || padded.w > kWindow);
  Shape y = b.layer_norm(x, p + "norm1");
  y = b.pad(y, Shape{padded.h * padded.w, 1, d}, p + "pad");
  if (shifted) y = b.permute(y, y, p + "roll");
  y = b.permute(y, y, p + "window_partition");
  y = b.dense(y, 3 * d, true, p + "qkv");
  y = b.window_attention(y, heads, kWindow * kWindow, kBiasTable, shifted, p + "attention");
  y = b.dense(y, d, true, p + "proj");
  y = b.permute(y, y, p + "window_reverse");
  if (shifted) y = b.permute(y, y, p + "roll_back");
  y = b.crop(y, x, 2, p + "crop");
  x = b.add({b.stochastic_depth(y, drop_rate, p + "stochastic_depth_1"), x}, p + "add_1");
  y = b.layer_norm(x, p + "norm2");
  y = b.activation(b.dense(y, 4 * d, true, p + "mlp_1"), "gelu", p + "gelu");
  y = b.dense(y, d, true, p + "mlp_2");
  return b.add({b.stochastic_depth(y, drop_rate, p + "stochastic_depth_2"), x}, p + "add_2");
}

// Pads an odd grid to even (F.pad), takes each 2x2 neighbourhood's four tokens side by side.
Shape patch_merging(ModelBuilder& b, Shape x, Grid g, const std::string& p) {
  const Grid half{(g.h + 1) / 2, (g.w + 1) / 2};
  x = b.pad(x, Shape{half.h * half.w, 1, 4 * x.c}, p + "concat");
  x = b.layer_norm(x, p + "norm");
  return b.dense(x, x.c / 2, false, p + "reduction");
}

Model build_swin(const SwinConfig& c, const ModelOptions& o) {
  ModelBuilder b(c.name);
  Shape x = b.input(input_shape(o));
  x = b.conv2d(x, c.dim, 4, 4, 4, Padding::Valid, true, "patch_conv");
  Grid g{x.h, x.w};
  x = b.layer_norm(b.tokens(x, "patch_tokens"), "patch_norm");
  const double drop_path = o.drop_path >= 0 ? o.drop_path : c.drop_path;
  const int blocks = c.depths[0] + c.depths[1] + c.depths[2] + c.depths[3];
  int id = 0;
  for (int s = 0; s < 4; ++s) {
    if (s > 0) {
      x = patch_merging(b, x, g, fmt::format("merge_{}_", s));
      g = {(g.h + 1) / 2, (g.w + 1) / 2};
    }
    for (int i = 0; i < c.depths[s]; ++i, ++id)
      x = block(b, x, g, c.heads[s], i % 2 == 1, drop_path * id / (blocks - 1.0),
                fmt::format("stage_{}_block_{}_", s, i));
  }
  x = b.layer_norm(x, "norm");
  x = b.global_pool(x, PoolKind::Avg, "avgpool");
  b.dense(x, o.classes, true, "head");
  return b.finish(o.classes);
}

}  // namespace

Model build_swin_t(const ModelOptions& o) { return build_swin({"swin_t", 96, {2, 2, 6, 2}, {3, 6, 12, 24}, 0.2}, o); }
Model build_swin_s(const ModelOptions& o) { return build_swin({"swin_s", 96, {2, 2, 18, 2}, {3, 6, 12, 24}, 0.3}, o); }
Model build_swin_b(const ModelOptions& o) { return build_swin({"swin_b", 128, {2, 2, 18, 2}, {4, 8, 16, 32}, 0.5}, o); }

}  // namespace model_layer
}  // namespace ddlsim
