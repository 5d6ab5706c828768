// MNASNet (Tan et al., "MnasNet: Platform-Aware Neural Architecture Search for Mobile", CVPR 2019)
// in torchvision's layout (torchvision/models/mnasnet.py) at widths 0.5, 0.75, 1.0 and 1.3: a 3x3/2
// stem, a 3x3 depthwise separable convolution, six stacks of inverted residuals (1x1 expansion,
// depthwise k x k, linear 1x1 projection, a residual add where the width and stride stay), a 1x1
// convolution to 1280, global pooling and the classifier; batch norm after every (bias-free)
// convolution, ReLU after all but the projections. Widths are torchvision's _get_depths: each of
// 32, 16, 24, 40, 80, 96, 192, 320 times alpha, rounded to a multiple of 8 (not below 0.9 of it).
// Parameter counts equal torchvision's (model_zoo_test).
#include <algorithm>
#include <fmt/format.h>

#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

// torchvision's _round_to_multiple_of(v, 8, 0.9).
int round_to_8(double v) {
  int d = std::max(8, int(v + 4) / 8 * 8);
  if (d < 0.9 * v) d += 8;
  return d;
}

struct Stack {
  int out;  // index into the widths
  int kernel, stride, expansion, repeats;
};

constexpr int kWidths[] = {32, 16, 24, 40, 80, 96, 192, 320};
constexpr Stack kStacks[] = {{2, 3, 2, 3, 3}, {3, 5, 2, 3, 3}, {4, 5, 2, 6, 3},
                             {5, 3, 1, 6, 2}, {6, 5, 2, 6, 4}, {7, 3, 1, 6, 1}};

Shape bn_relu(ModelBuilder& b, Shape x, const std::string& name) {
  return b.activation(b.batchnorm(x, true, name + "_bn"), "relu", name + "_relu");
}

Shape inverted_residual(ModelBuilder& b, Shape in, int out, int kernel, int stride, int expansion,
                        const std::string& name) {
  Shape x = b.conv2d(in, in.c * expansion, 1, 1, 1, Padding::Same, false, name + "_expand");
  x = bn_relu(b, x, name + "_expand");
  x = bn_relu(b, b.depthwise_conv2d(x, kernel, kernel, stride, Padding::Same, false, name + "_depthwise"),
              name + "_depthwise");
  x = b.batchnorm(b.conv2d(x, out, 1, 1, 1, Padding::Same, false, name + "_project"), true, name + "_project_bn");
  return in.c == out && stride == 1 ? b.add({in, x}, name + "_add") : x;
}

Model build_mnasnet(const char* name, double alpha, const ModelOptions& o) {
  int w[8];
  for (int i = 0; i < 8; ++i) w[i] = round_to_8(kWidths[i] * alpha);
  ModelBuilder b(name);
  Shape x = b.input(input_shape(o));
  x = bn_relu(b, b.conv2d(x, w[0], 3, 3, 2, Padding::Same, false, "stem"), "stem");
  x = bn_relu(b, b.depthwise_conv2d(x, 3, 3, 1, Padding::Same, false, "sep_depthwise"), "sep_depthwise");
  x = b.batchnorm(b.conv2d(x, w[1], 1, 1, 1, Padding::Same, false, "sep_project"), true, "sep_project_bn");
  for (int s = 0; s < 6; ++s) {
    const Stack& st = kStacks[s];
    for (int i = 0; i < st.repeats; ++i)
      x = inverted_residual(b, x, w[st.out], st.kernel, i == 0 ? st.stride : 1, st.expansion,
                            fmt::format("stack{}_{}", s + 1, i));
  }
  x = bn_relu(b, b.conv2d(x, 1280, 1, 1, 1, Padding::Same, false, "last"), "last");
  x = b.global_pool(x, PoolKind::Avg, "avgpool");
  b.dense(x, o.classes, true, "classifier");
  return b.finish(o.classes);
}

}  // namespace

Model build_mnasnet0_5(const ModelOptions& o) { return build_mnasnet("mnasnet0_5", 0.5, o); }
Model build_mnasnet0_75(const ModelOptions& o) { return build_mnasnet("mnasnet0_75", 0.75, o); }
Model build_mnasnet1_0(const ModelOptions& o) { return build_mnasnet("mnasnet1_0", 1.0, o); }
Model build_mnasnet1_3(const ModelOptions& o) { return build_mnasnet("mnasnet1_3", 1.3, o); }

}  // namespace model_layer
}  // namespace ddlsim
