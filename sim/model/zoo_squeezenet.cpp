// SqueezeNet 1.0 and 1.1 (Iandola et al., "SqueezeNet", 2016; 1.1 from the authors' repository) in
// torchvision's layout (torchvision/models/squeezenet.py): a stem convolution (1.0: 96 filters 7x7/2,
// 1.1: 64 filters 3x3/2) with ReLU; fire modules (a 1x1 squeeze convolution with ReLU, then 1x1 and
// 3x3 expand convolutions with ReLU, concatenated) between 3x3/2 max poolings in ceil mode (padded
// here by one row and column at the bottom and right, which gives the same output size); a final
// 1x1 convolution to the classes with ReLU (after dropout of 0.5, on the 512-channel map) and
// global average pooling. Biased convolutions, no batch norm. Parameter counts equal torchvision's (model_zoo_test).
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

struct Fire {
  int squeeze, expand;  // expand: each of the 1x1 and 3x3 branches
  bool pool_before;
};

Shape conv_relu(ModelBuilder& b, Shape x, int filters, int k, int stride, Padding pad, const std::string& name) {
  return b.activation(b.conv2d(x, filters, k, k, stride, pad, true, name), "relu", name + "_relu");
}

Shape pool_ceil(ModelBuilder& b, Shape x, const std::string& name) {
  x = b.zero_padding(x, 0, 1, 0, 1, name + "_pad");
  return b.pool(x, PoolKind::Max, 3, 2, Padding::Valid, name);
}

Shape fire(ModelBuilder& b, Shape x, const Fire& f, const std::string& name) {
  if (f.pool_before) x = pool_ceil(b, x, name + "_pool");
  x = conv_relu(b, x, f.squeeze, 1, 1, Padding::Same, name + "_squeeze");
  const Shape e1 = conv_relu(b, x, f.expand, 1, 1, Padding::Same, name + "_expand1x1");
  const Shape e3 = conv_relu(b, x, f.expand, 3, 1, Padding::Same, name + "_expand3x3");
  return b.concat({e1, e3}, name + "_concat");
}

template <std::size_t N>
Model build_squeezenet(const char* name, int stem, int stem_kernel, const Fire (&fires)[N], const ModelOptions& o) {
  ModelBuilder b(name);
  Shape x = b.input(input_shape(o));
  x = conv_relu(b, x, stem, stem_kernel, 2, Padding::Valid, "stem");
  x = pool_ceil(b, x, "stem_pool");
  int i = 0;
  for (const Fire& f : fires) x = fire(b, x, f, fmt::format("fire{}", ++i));
  x = b.dropout(x, "classifier_dropout", 0.5);  // torchvision's classifier: Dropout(0.5), in training
  x = conv_relu(b, x, o.classes, 1, 1, Padding::Same, "classifier");
  b.global_pool(x, PoolKind::Avg, "avgpool");
  return b.finish(o.classes);
}

constexpr Fire kFires10[] = {{16, 64, false},  {16, 64, false},  {32, 128, false}, {32, 128, true},
                             {48, 192, false}, {48, 192, false}, {64, 256, false}, {64, 256, true}};
constexpr Fire kFires11[] = {{16, 64, false},  {16, 64, false},  {32, 128, true},  {32, 128, false},
                             {48, 192, true},  {48, 192, false}, {64, 256, false}, {64, 256, false}};

}  // namespace

Model build_squeezenet1_0(const ModelOptions& o) { return build_squeezenet("squeezenet1_0", 96, 7, kFires10, o); }
Model build_squeezenet1_1(const ModelOptions& o) { return build_squeezenet("squeezenet1_1", 64, 3, kFires11, o); }

}  // namespace model_layer
}  // namespace ddlsim
