// VGG16 with the fully connected head (keras.applications.vgg16, include_top=True):
// 13 biased 3x3 convolutions with ReLU in 5 blocks, each ending in 2x2 max pooling,
// then Flatten, Dense 4096, Dense 4096, Dense classes.
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {

namespace {

struct VggBlock {
  int convs;
  int filters;
};

constexpr VggBlock kBlocks[] = {{2, 64}, {2, 128}, {3, 256}, {3, 512}, {3, 512}};

Shape vgg_block(ModelBuilder& b, Shape x, const VggBlock& blk, int index) {
  for (int i = 1; i <= blk.convs; ++i) {
    const std::string name = fmt::format("block{}_conv{}", index, i);
    x = b.conv2d(x, blk.filters, 3, 3, 1, Padding::Same, true, name);
    x = b.activation(x, "relu", name + "_relu");
  }
  return b.pool(x, PoolKind::Max, 2, 2, Padding::Valid, fmt::format("block{}_pool", index));
}

}  // namespace

Model build_vgg16(const ModelOptions& o) {
  ModelBuilder b("vgg16");
  Shape x = b.input(input_shape(o), "input_1");
  int index = 0;
  for (const VggBlock& blk : kBlocks) x = vgg_block(b, x, blk, ++index);
  x = b.flatten(x, "flatten");
  x = b.activation(b.dense(x, 4096, true, "fc1"), "relu", "fc1_relu");
  x = b.activation(b.dense(x, 4096, true, "fc2"), "relu", "fc2_relu");
  x = b.dense(x, o.classes, true, "predictions");
  b.activation(x, "softmax", "predictions_softmax");
  return b.finish(o.classes);
}

}  // namespace ddlsim
