// DenseNet-121 / -169 / -201 (and -161 below) (Huang et al., "Densely Connected Convolutional Networks", CVPR 2017,
// table 1), Keras applications layout (keras.applications.densenet): a 7x7/2 stem and 3x3/2 max
// pooling, four dense blocks of 6-12-24-16 / 6-12-32-32 / 6-12-48-32 layers, each layer
// BN-ReLU-Conv 1x1 (4 x 32 filters) then BN-ReLU-Conv 3x3 (32 filters, the growth rate), its
// output concatenated to its input; between blocks a transition BN-ReLU-Conv 1x1 halving the
// channels and 2x2 average pooling; convolutions without bias; final BN-ReLU, global average
// pooling and the classifier.
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

Shape bn_relu(ModelBuilder& b, Shape x, const std::string& name) {
  return b.activation(b.batchnorm(x, true, name + "_bn"), "relu", name + "_relu");
}

Shape dense_layer(ModelBuilder& b, Shape x, int growth, const std::string& name) {
  Shape y = bn_relu(b, x, name + "_0");
  y = b.conv2d(y, 4 * growth, 1, 1, 1, Padding::Valid, false, name + "_1_conv");
  y = bn_relu(b, y, name + "_1");
  y = b.conv2d(y, growth, 3, 3, 1, Padding::Same, false, name + "_2_conv");
  return b.concat({x, y}, name + "_concat");
}

Shape transition(ModelBuilder& b, Shape x, const std::string& name) {
  x = bn_relu(b, x, name);
  x = b.conv2d(x, x.c / 2, 1, 1, 1, Padding::Valid, false, name + "_conv");
  return b.pool(x, PoolKind::Avg, 2, 2, Padding::Valid, name + "_pool");
}

// growth: the growth rate (32; DenseNet-161 48), stem: the stem's filters (64; DenseNet-161 96).
Model build_densenet(const std::string& name, const int (&blocks)[4], const ModelOptions& o, int growth = 32,
                     int stem = 64) {
  ModelBuilder b(name);
  Shape x = b.input(input_shape(o), "input_1");
  x = b.zero_padding(x, 3, 3, 3, 3, "zero_padding2d");
  x = b.conv2d(x, stem, 7, 7, 2, Padding::Valid, false, "conv1_conv");
  x = bn_relu(b, x, "conv1");
  x = b.zero_padding(x, 1, 1, 1, 1, "zero_padding2d_1");
  x = b.pool(x, PoolKind::Max, 3, 2, Padding::Valid, "pool1");
  for (int i = 0; i < 4; ++i) {
    for (int j = 1; j <= blocks[i]; ++j) x = dense_layer(b, x, growth, fmt::format("conv{}_block{}", i + 2, j));
    if (i < 3) x = transition(b, x, fmt::format("pool{}", i + 2));
  }
  x = bn_relu(b, x, "final");
  x = b.global_pool(x, PoolKind::Avg, "avg_pool");
  x = b.dense(x, o.classes, true, "predictions");
  b.activation(x, "softmax", "predictions_softmax");
  return b.finish(o.classes);
}

}  // namespace

Model build_densenet121(const ModelOptions& o) { return build_densenet("densenet121", {6, 12, 24, 16}, o); }
Model build_densenet169(const ModelOptions& o) { return build_densenet("densenet169", {6, 12, 32, 32}, o); }
Model build_densenet201(const ModelOptions& o) { return build_densenet("densenet201", {6, 12, 48, 32}, o); }
// DenseNet-161 (the paper's table 1 note; torchvision.models.densenet161): growth 48, a stem of 96.
Model build_densenet161(const ModelOptions& o) { return build_densenet("densenet161", {6, 12, 36, 24}, o, 48, 96); }

}  // namespace model_layer
}  // namespace ddlsim
