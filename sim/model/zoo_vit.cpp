// Vision Transformers (Dosovitskiy et al., "An Image is Worth 16x16 Words", ICLR 2021) in
// torchvision's layout (torchvision/models/vision_transformer.py): a patch convolution, the class
// token, a learned position embedding, pre-norm encoder blocks (ModelBuilder::patch_embedding and
// encoder_block), a final layer norm and a linear classifier on the class token. Dropout is 0 in
// torchvision's defaults and runs no kernel. Parameter counts equal torchvision's (model_zoo_test).
#include <algorithm>
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

struct VitConfig {
  const char* name;
  int patch;
  int layers;
  int heads;
  int hidden;
  int mlp;
};

Model build_vit(const VitConfig& c, const ModelOptions& o) {
  ModelBuilder b(c.name);
  Shape x = b.input(input_shape(o));
  x = b.patch_embedding(x, c.patch, c.hidden, {});
  const double dropout = std::max(0.0, o.dropout);  // torchvision's default: 0
  x = b.dropout(x, "encoder_dropout", dropout);
  for (int i = 0; i < c.layers; ++i)
    x = b.encoder_block(x, c.heads, c.mlp, fmt::format("encoder_layer_{}_", i), {false, false, dropout});
  x = b.layer_norm(x, "encoder_ln");
  x = b.take_token(x, "class_token_out");
  b.dense(x, o.classes, true, "head");
  return b.finish(o.classes);
}

}  // namespace

// DeiT's (Touvron et al. 2021) smaller widths: 192 with 3 heads, 384 with 6.
Model build_vit_ti_16(const ModelOptions& o) { return build_vit({"vit_ti_16", 16, 12, 3, 192, 768}, o); }
Model build_vit_s_16(const ModelOptions& o) { return build_vit({"vit_s_16", 16, 12, 6, 384, 1536}, o); }
Model build_vit_b_16(const ModelOptions& o) { return build_vit({"vit_b_16", 16, 12, 12, 768, 3072}, o); }
Model build_vit_b_32(const ModelOptions& o) { return build_vit({"vit_b_32", 32, 12, 12, 768, 3072}, o); }
Model build_vit_l_16(const ModelOptions& o) { return build_vit({"vit_l_16", 16, 24, 16, 1024, 4096}, o); }
Model build_vit_l_32(const ModelOptions& o) { return build_vit({"vit_l_32", 32, 24, 16, 1024, 4096}, o); }
Model build_vit_h_14(const ModelOptions& o) { return build_vit({"vit_h_14", 14, 32, 16, 1280, 5120}, o); }

}  // namespace model_layer
}  // namespace ddlsim
