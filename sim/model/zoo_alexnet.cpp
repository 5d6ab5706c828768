// AlexNet as tf_cnn_benchmarks builds it (tensorflow/benchmarks,
// scripts/tf_cnn_benchmarks/models/alexnet_model.py): the one-tower variant with 64-192-384-384-256
// filters, no LRN, a 227x227 input (224 + 3 for the 'valid' 11x11/4 first convolution), biased
// convolutions and ReLU, three 3x3/2 max pools, two 4096-unit dense layers with dropout and the
// classifier. 61,838,248 parameters at 227x227 with 1000 classes (tf_cnn_benchmarks itself uses
// 1001 classes: 61,842,345).
#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

Shape conv_relu(ModelBuilder& b, Shape x, int filters, int k, int stride, Padding pad, const std::string& name) {
  x = b.conv2d(x, filters, k, k, stride, pad, true, name);
  return b.activation(x, "relu", name + "_relu");
}

}  // namespace

Model build_alexnet(const ModelOptions& o) {
  ModelBuilder b("alexnet");
  Shape x = b.input(input_shape(o), "input_1");
  x = conv_relu(b, x, 64, 11, 4, Padding::Valid, "conv1");
  x = b.pool(x, PoolKind::Max, 3, 2, Padding::Valid, "pool1");
  x = conv_relu(b, x, 192, 5, 1, Padding::Same, "conv2");
  x = b.pool(x, PoolKind::Max, 3, 2, Padding::Valid, "pool2");
  x = conv_relu(b, x, 384, 3, 1, Padding::Same, "conv3");
  x = conv_relu(b, x, 384, 3, 1, Padding::Same, "conv4");
  x = conv_relu(b, x, 256, 3, 1, Padding::Same, "conv5");
  x = b.pool(x, PoolKind::Max, 3, 2, Padding::Valid, "pool5");
  x = b.flatten(x, "flatten");
  x = b.dense(x, 4096, true, "fc6");
  x = b.activation(x, "relu", "fc6_relu");
  x = b.dropout(x, "drop6");
  x = b.dense(x, 4096, true, "fc7");
  x = b.activation(x, "relu", "fc7_relu");
  x = b.dropout(x, "drop7");
  x = b.dense(x, o.classes, true, "predictions");
  b.activation(x, "softmax", "predictions_softmax");
  return b.finish(o.classes);
}

}  // namespace model_layer
}  // namespace ddlsim
