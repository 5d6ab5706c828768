// small_cnn: the classic Keras CIFAR-10 example CNN (keras/examples/cifar10_cnn.py), usable
// for CIFAR-10 (32x32x3) and FashionMNIST (28x28x1):
//   Conv 32 3x3 same, ReLU; Conv 32 3x3 valid, ReLU; MaxPool 2; Dropout 0.25
//   Conv 64 3x3 same, ReLU; Conv 64 3x3 valid, ReLU; MaxPool 2; Dropout 0.25
//   Flatten; Dense 512, ReLU; Dropout 0.5; Dense classes, softmax
// 1,250,858 parameters at 32x32x3 with 10 classes; 889,834 at 28x28x1.
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

Shape conv_relu(ModelBuilder& b, Shape x, int filters, Padding pad) {
  return b.activation(b.conv2d(x, filters, 3, 3, 1, pad, true), "relu");
}

Shape conv_pair(ModelBuilder& b, Shape x, int filters) {
  x = conv_relu(b, x, filters, Padding::Same);
  x = conv_relu(b, x, filters, Padding::Valid);
  return b.dropout(b.pool(x, PoolKind::Max, 2, 2, Padding::Valid));
}

}  // namespace

Model build_small_cnn(const ModelOptions& o) {
  ModelBuilder b("small_cnn");
  Shape x = b.input(input_shape(o), "input_1");
  x = conv_pair(b, x, 32);
  x = conv_pair(b, x, 64);
  x = b.flatten(x);
  x = b.dropout(b.activation(b.dense(x, 512), "relu"));
  x = b.dense(x, o.classes, true, "predictions");
  b.activation(x, "softmax", "predictions_softmax");
  return b.finish(o.classes);
}

}  // namespace model_layer
}  // namespace ddlsim
