// VGG with the fully connected head (keras.applications.vgg16 / vgg19, include_top=True; VGG-11
// and VGG-13 after torchvision's configurations A and B, the same layers without batch norm):
// biased 3x3 convolutions with ReLU in 5 blocks, each ending in 2x2 max pooling, then Flatten,
// Dense 4096, Dense 4096, Dense classes. Convolutions per block: VGG-11 1-1-2-2-2, VGG-13
// 2-2-2-2-2, VGG-16 2-2-3-3-3, VGG-19 2-2-4-4-4 (Simonyan and Zisserman 2015, table 1).
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

struct VggBlock {
  int convs;
  int filters;
};

constexpr int kFilters[] = {64, 128, 256, 512, 512};

Shape vgg_block(ModelBuilder& b, Shape x, const VggBlock& blk, int index, bool bn) {
  for (int i = 1; i <= blk.convs; ++i) {
    const std::string name = fmt::format("block{}_conv{}", index, i);
    x = b.conv2d(x, blk.filters, 3, 3, 1, Padding::Same, true, name);
    if (bn) x = b.batchnorm(x, true, name + "_bn");
    x = b.activation(x, "relu", name + "_relu");
  }
  return b.pool(x, PoolKind::Max, 2, 2, Padding::Valid, fmt::format("block{}_pool", index));
}

Model build_vgg(const std::string& name, const int (&convs)[5], const ModelOptions& o, bool bn = false) {
  ModelBuilder b(name);
  Shape x = b.input(input_shape(o), "input_1");
  for (int i = 0; i < 5; ++i) x = vgg_block(b, x, {convs[i], kFilters[i]}, i + 1, bn);
  x = b.flatten(x, "flatten");
  x = b.activation(b.dense(x, 4096, true, "fc1"), "relu", "fc1_relu");
  x = b.activation(b.dense(x, 4096, true, "fc2"), "relu", "fc2_relu");
  x = b.dense(x, o.classes, true, "predictions");
  b.activation(x, "softmax", "predictions_softmax");
  return b.finish(o.classes);
}

}  // namespace

Model build_vgg11(const ModelOptions& o) { return build_vgg("vgg11", {1, 1, 2, 2, 2}, o); }
Model build_vgg13(const ModelOptions& o) { return build_vgg("vgg13", {2, 2, 2, 2, 2}, o); }
Model build_vgg16(const ModelOptions& o) { return build_vgg("vgg16", {2, 2, 3, 3, 3}, o); }
Model build_vgg19(const ModelOptions& o) { return build_vgg("vgg19", {2, 2, 4, 4, 4}, o); }
// torchvision's vgg*_bn: batch norm between each convolution and its ReLU.
Model build_vgg11_bn(const ModelOptions& o) { return build_vgg("vgg11_bn", {1, 1, 2, 2, 2}, o, true); }
Model build_vgg13_bn(const ModelOptions& o) { return build_vgg("vgg13_bn", {2, 2, 2, 2, 2}, o, true); }
Model build_vgg16_bn(const ModelOptions& o) { return build_vgg("vgg16_bn", {2, 2, 3, 3, 3}, o, true); }
Model build_vgg19_bn(const ModelOptions& o) { return build_vgg("vgg19_bn", {2, 2, 4, 4, 4}, o, true); }

}  // namespace model_layer
}  // namespace ddlsim
