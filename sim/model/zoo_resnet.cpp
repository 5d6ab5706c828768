// ResNet-50 / ResNet-101 / ResNet-152 v1, Keras applications layout (keras.applications.resnet):
// biased convolutions followed by BatchNorm, stride 2 on the first 1x1 conv of a stage.
// ResNet-18 / ResNet-34 (Keras has none), torchvision layout (torchvision.models.resnet): basic
// blocks of two 3x3 convolutions without bias, each followed by BatchNorm; a 1x1 projection with
// BatchNorm where a stage changes size.
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

// Conv2D (with bias) + BatchNorm, named like Keras: <prefix>_conv, <prefix>_bn. The bias is
// Keras's parameter count only: the ResNets users train (torchvision's, NVIDIA's, tf_cnn_benchmarks')
// have none before a batch norm, and run no bias kernels (checked on an H100: torchvision's
// ResNet-50 ran no bias add, calibration/measured/h100-zoo-kernels.csv).
Shape conv_bn(ModelBuilder& b, Shape x, int filters, int k, int stride, const std::string& prefix) {
  x = b.conv2d(x, filters, k, k, stride, Padding::Same, true, prefix + "_conv");
  b.bias_in_params_only();
  return b.batchnorm(x, true, prefix + "_bn");
}

// Bottleneck block1: 1x1 (stride) -> 3x3 -> 1x1 (x4), projection shortcut when asked.
Shape bottleneck(ModelBuilder& b, Shape x, int filters, int stride, bool conv_shortcut, const std::string& name) {
  Shape shortcut = x;
  if (conv_shortcut) shortcut = conv_bn(b, x, 4 * filters, 1, stride, name + "_0");
  x = conv_bn(b, x, filters, 1, stride, name + "_1");
  x = b.activation(x, "relu", name + "_1_relu");
  x = conv_bn(b, x, filters, 3, 1, name + "_2");
  x = b.activation(x, "relu", name + "_2_relu");
  x = conv_bn(b, x, 4 * filters, 1, 1, name + "_3");
  x = b.add({shortcut, x}, name + "_add");
  return b.activation(x, "relu", name + "_out");
}

Shape stack(ModelBuilder& b, Shape x, int filters, int blocks, int stride, const std::string& name) {
  x = bottleneck(b, x, filters, stride, true, name + "_block1");
  for (int i = 2; i <= blocks; ++i) x = bottleneck(b, x, filters, 1, false, fmt::format("{}_block{}", name, i));
  return x;
}

Model build_resnet(const ModelOptions& o, const std::string& name, const int (&blocks)[4]) {
  ModelBuilder b(name);
  Shape x = b.input(input_shape(o), "input_1");
  x = b.zero_padding(x, 3, 3, 3, 3, "conv1_pad");
  x = b.conv2d(x, 64, 7, 7, 2, Padding::Valid, true, "conv1_conv");
  b.bias_in_params_only();
  x = b.batchnorm(x, true, "conv1_bn");
  x = b.activation(x, "relu", "conv1_relu");
  x = b.zero_padding(x, 1, 1, 1, 1, "pool1_pad");
  x = b.pool(x, PoolKind::Max, 3, 2, Padding::Valid, "pool1_pool");
  x = stack(b, x, 64, blocks[0], 1, "conv2");
  x = stack(b, x, 128, blocks[1], 2, "conv3");
  x = stack(b, x, 256, blocks[2], 2, "conv4");
  x = stack(b, x, 512, blocks[3], 2, "conv5");
  x = b.global_pool(x, PoolKind::Avg, "avg_pool");
  x = b.dense(x, o.classes, true, "predictions");
  b.activation(x, "softmax", "predictions_softmax");
  return b.finish(o.classes);
}

// torchvision BasicBlock: 3x3 (stride) -> 3x3, projection shortcut when the shape changes.
Shape basic_block(ModelBuilder& b, Shape x, int filters, int stride, const std::string& name) {
  Shape shortcut = x;
  if (stride != 1 || x.c != filters) {
    shortcut = b.conv2d(x, filters, 1, 1, stride, Padding::Same, false, name + "_downsample_conv");
    shortcut = b.batchnorm(shortcut, true, name + "_downsample_bn");
  }
  x = b.conv2d(x, filters, 3, 3, stride, Padding::Same, false, name + "_conv1");
  x = b.batchnorm(x, true, name + "_bn1");
  x = b.activation(x, "relu", name + "_relu1");
  x = b.conv2d(x, filters, 3, 3, 1, Padding::Same, false, name + "_conv2");
  x = b.batchnorm(x, true, name + "_bn2");
  x = b.add({shortcut, x}, name + "_add");
  return b.activation(x, "relu", name + "_out");
}

// torchvision Bottleneck (ResNet v1.5: the stride on the 3x3), inner width `width`: 1x1 -> 3x3
// (stride; grouped for ResNeXt) -> 1x1 (x4 filters), each followed by BatchNorm, no bias;
// projection when the shape changes. se_squeeze > 0: NVIDIA's SEBottleneck (DeepLearningExamples
// PyTorch ConvNets, models/resnet.py and common.py): a squeeze-excite of the third batch norm's
// output to se_squeeze channels (ReLU, sigmoid) scales it before the residual add. NVIDIA fuses
// the scale and the add into one addcmul; ddlsim charges them as two elementwise layers.
Shape tv_bottleneck(ModelBuilder& b, Shape x, int filters, int width, int stride, const std::string& name,
                    int groups = 1, int se_squeeze = 0) {
  Shape shortcut = x;
  if (stride != 1 || x.c != 4 * filters) {
    shortcut = b.conv2d(x, 4 * filters, 1, 1, stride, Padding::Same, false, name + "_downsample_conv");
    shortcut = b.batchnorm(shortcut, true, name + "_downsample_bn");
  }
  x = b.conv2d(x, width, 1, 1, 1, Padding::Same, false, name + "_conv1");
  x = b.activation(b.batchnorm(x, true, name + "_bn1"), "relu", name + "_relu1");
  x = b.conv2d(x, width, 3, 3, stride, Padding::Same, false, name + "_conv2", groups);
  x = b.activation(b.batchnorm(x, true, name + "_bn2"), "relu", name + "_relu2");
  x = b.conv2d(x, 4 * filters, 1, 1, 1, Padding::Same, false, name + "_conv3");
  x = b.batchnorm(x, true, name + "_bn3");
  if (se_squeeze > 0) x = b.squeeze_excite(x, se_squeeze, "relu", "sigmoid", name + "_se_");
  x = b.add({shortcut, x}, name + "_add");
  return b.activation(x, "relu", name + "_out");
}

Shape tv_stem(ModelBuilder& b, const ModelOptions& o) {
  Shape x = b.input(input_shape(o), "input_1");
  x = b.zero_padding(x, 3, 3, 3, 3, "conv1_pad");
  x = b.conv2d(x, 64, 7, 7, 2, Padding::Valid, false, "conv1");
  x = b.batchnorm(x, true, "bn1");
  x = b.activation(x, "relu", "relu");
  x = b.zero_padding(x, 1, 1, 1, 1, "maxpool_pad");
  return b.pool(x, PoolKind::Max, 3, 2, Padding::Valid, "maxpool");
}

Model build_basic_resnet(const ModelOptions& o, const std::string& name, const int (&blocks)[4]) {
  ModelBuilder b(name);
  Shape x = tv_stem(b, o);
  const int filters[4] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage)
    for (int i = 0; i < blocks[stage]; ++i)
      x = basic_block(b, x, filters[stage], stage > 0 && i == 0 ? 2 : 1, fmt::format("layer{}_{}", stage + 1, i));
  x = b.global_pool(x, PoolKind::Avg, "avgpool");
  x = b.dense(x, o.classes, true, "fc");
  b.activation(x, "softmax", "softmax");
  return b.finish(o.classes);
}

}  // namespace

// torchvision's bottleneck ResNets of other widths: inner width = filters x width_per_group / 64 x
// groups (torchvision.models.resnet.Bottleneck).
Model build_tv_bottleneck_resnet(const ModelOptions& o, const std::string& name, const int (&blocks)[4], int groups,
                                 int width_per_group, int se_squeeze = 0) {
  ModelBuilder b(name);
  Shape x = tv_stem(b, o);
  const int filters[4] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage)
    for (int i = 0; i < blocks[stage]; ++i)
      x = tv_bottleneck(b, x, filters[stage], filters[stage] * width_per_group / 64 * groups,
                        stage > 0 && i == 0 ? 2 : 1, fmt::format("layer{}_{}", stage + 1, i), groups, se_squeeze);
  x = b.global_pool(x, PoolKind::Avg, "avgpool");
  x = b.dense(x, o.classes, true, "fc");
  b.activation(x, "softmax", "softmax");
  return b.finish(o.classes);
}


// Wide ResNet-50-2 (Zagoruyko and Komodakis 2016; torchvision.models.wide_resnet50_2): ResNet-50's
// bottlenecks with their inner 1x1 and 3x3 convolutions twice as wide.
Model build_wide_resnet50_2(const ModelOptions& o) {
  return build_tv_bottleneck_resnet(o, "wide_resnet50_2", {3, 4, 6, 3}, 1, 128);
}
Model build_wide_resnet101_2(const ModelOptions& o) {
  return build_tv_bottleneck_resnet(o, "wide_resnet101_2", {3, 4, 23, 3}, 1, 128);
}
// ResNeXt (Xie et al., CVPR 2017; torchvision.models.resnext*): grouped 3x3 convolutions of
// `groups` x `width` channels.
Model build_resnext50_32x4d(const ModelOptions& o) {
  return build_tv_bottleneck_resnet(o, "resnext50_32x4d", {3, 4, 6, 3}, 32, 4);
}
Model build_resnext101_32x8d(const ModelOptions& o) {
  return build_tv_bottleneck_resnet(o, "resnext101_32x8d", {3, 4, 23, 3}, 32, 8);
}
Model build_resnext101_64x4d(const ModelOptions& o) {
  return build_tv_bottleneck_resnet(o, "resnext101_64x4d", {3, 4, 23, 3}, 64, 4);
}
// NVIDIA DeepLearningExamples' ResNeXt-101 32x4d and SE-ResNeXt-101 32x4d (PyTorch ConvNets,
// models/resnet.py: widths 128..1024, expansion 2, cardinality 32, the same layers as torchvision's
// layout above; SEBottleneck squeezes to 16 channels whatever the width).
Model build_resnext101_32x4d(const ModelOptions& o) {
  return build_tv_bottleneck_resnet(o, "resnext101_32x4d", {3, 4, 23, 3}, 32, 4);
}
Model build_se_resnext101_32x4d(const ModelOptions& o) {
  return build_tv_bottleneck_resnet(o, "se_resnext101_32x4d", {3, 4, 23, 3}, 32, 4, 16);
}
Model build_resnet18(const ModelOptions& o) { return build_basic_resnet(o, "resnet18", {2, 2, 2, 2}); }
Model build_resnet34(const ModelOptions& o) { return build_basic_resnet(o, "resnet34", {3, 4, 6, 3}); }
Model build_resnet50(const ModelOptions& o) { return build_resnet(o, "resnet50", {3, 4, 6, 3}); }
Model build_resnet101(const ModelOptions& o) { return build_resnet(o, "resnet101", {3, 4, 23, 3}); }
Model build_resnet152(const ModelOptions& o) { return build_resnet(o, "resnet152", {3, 8, 36, 3}); }

}  // namespace model_layer
}  // namespace ddlsim
