// RegNetX and RegNetY (Radosavovic et al., "Designing Network Design Spaces", CVPR 2020) in
// torchvision's layout (torchvision/models/regnet.py): a 3x3 stride-2 stem of 32 channels (batch
// norm, ReLU); four stages of residual bottleneck blocks, the first of each stage with stride 2 and
// a 1x1 stride-2 projection (batch norm) of the shortcut; a block is 1x1 convolution, 3x3 grouped
// convolution (groups = width / group width), for RegNetY a squeeze-excite of the block input's
// width / 4 channels (biased 1x1 convolutions, ReLU, sigmoid), a 1x1 convolution; batch norm after
// each convolution, ReLU after the first two and after the residual add (bottleneck multiplier 1).
// Global average pooling and the classifier. The stage tables are torchvision 0.14's
// BlockParams.from_init_params for each model (depths, widths, group widths, printed from the
// models it builds); parameter counts equal torchvision's (model_zoo_test).
#include <algorithm>
#include <cmath>
#include <iterator>
#include <fmt/format.h>

#include "core/error.hpp"
#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

struct RegNetStage {
  int depth, width, group_width;
};

struct RegNetConfig {
  const char* name;
  bool se;  // RegNetY: squeeze-excite of ratio 0.25
  RegNetStage stages[4];
};

constexpr RegNetConfig kRegNets[] = {
    {"regnet_x_400mf", false, {{1, 32, 16}, {2, 64, 16}, {7, 160, 16}, {12, 400, 16}}},
    {"regnet_x_800mf", false, {{1, 64, 16}, {3, 128, 16}, {7, 288, 16}, {5, 672, 16}}},
    {"regnet_x_1_6gf", false, {{2, 72, 24}, {4, 168, 24}, {10, 408, 24}, {2, 912, 24}}},
    {"regnet_x_3_2gf", false, {{2, 96, 48}, {6, 192, 48}, {15, 432, 48}, {2, 1008, 48}}},
    {"regnet_x_8gf", false, {{2, 80, 80}, {5, 240, 120}, {15, 720, 120}, {1, 1920, 120}}},
    {"regnet_x_16gf", false, {{2, 256, 128}, {6, 512, 128}, {13, 896, 128}, {1, 2048, 128}}},
    {"regnet_x_32gf", false, {{2, 336, 168}, {7, 672, 168}, {13, 1344, 168}, {1, 2520, 168}}},
    {"regnet_y_400mf", true, {{1, 48, 8}, {3, 104, 8}, {6, 208, 8}, {6, 440, 8}}},
    {"regnet_y_800mf", true, {{1, 64, 16}, {3, 144, 16}, {8, 320, 16}, {2, 784, 16}}},
    {"regnet_y_1_6gf", true, {{2, 48, 24}, {6, 120, 24}, {17, 336, 24}, {2, 888, 24}}},
    {"regnet_y_3_2gf", true, {{2, 72, 24}, {5, 216, 24}, {13, 576, 24}, {1, 1512, 24}}},
    {"regnet_y_8gf", true, {{2, 224, 56}, {4, 448, 56}, {10, 896, 56}, {1, 2016, 56}}},
    {"regnet_y_16gf", true, {{2, 224, 112}, {4, 448, 112}, {11, 1232, 112}, {1, 3024, 112}}},
    {"regnet_y_32gf", true, {{2, 232, 232}, {5, 696, 232}, {12, 1392, 232}, {1, 3712, 232}}},
    {"regnet_y_128gf", true, {{2, 528, 264}, {7, 1056, 264}, {17, 2904, 264}, {1, 7392, 264}}},
};

Shape conv_bn(ModelBuilder& b, Shape x, int filters, int k, int stride, int groups, const std::string& name) {
  x = b.conv2d(x, filters, k, k, stride, Padding::Same, false, name + "_conv", groups);
  return b.batchnorm(x, true, name + "_bn");
}

Shape block(ModelBuilder& b, Shape in, const RegNetStage& s, bool se, int stride, const std::string& name) {
  Shape x = b.activation(conv_bn(b, in, s.width, 1, 1, 1, name + "_a"), "relu", name + "_a_relu");
  x = b.activation(conv_bn(b, x, s.width, 3, stride, s.width / s.group_width, name + "_b"), "relu", name + "_b_relu");
  if (se) x = b.squeeze_excite(x, int(std::lround(0.25 * in.c)), "relu", "sigmoid", name + "_se_");
  x = conv_bn(b, x, s.width, 1, 1, 1, name + "_c");
  const Shape shortcut = in.c != s.width || stride != 1 ? conv_bn(b, in, s.width, 1, stride, 1, name + "_proj") : in;
  return b.activation(b.add({shortcut, x}, name + "_add"), "relu", name + "_relu");
}

Model build_regnet(const char* name, const ModelOptions& o) {
  const auto it = std::find_if(std::begin(kRegNets), std::end(kRegNets),
                               [&](const RegNetConfig& r) { return std::string(r.name) == name; });
  if (it == std::end(kRegNets)) throw InputError(fmt::format("no RegNet named '{}'", name));
  const RegNetConfig& c = *it;
  ModelBuilder b(c.name);
  Shape x = b.input(input_shape(o));
  x = b.activation(conv_bn(b, x, 32, 3, 2, 1, "stem"), "relu", "stem_relu");
  for (int s = 0; s < 4; ++s)
    for (int i = 0; i < c.stages[s].depth; ++i)
      x = block(b, x, c.stages[s], c.se, i == 0 ? 2 : 1, fmt::format("block{}_{}", s + 1, i));
  x = b.global_pool(x, PoolKind::Avg, "avgpool");
  x = b.dense(x, o.classes, true, "fc");
  b.activation(x, "softmax", "softmax");
  return b.finish(o.classes);
}

}  // namespace

Model build_regnet_x_400mf(const ModelOptions& o) { return build_regnet("regnet_x_400mf", o); }
Model build_regnet_x_800mf(const ModelOptions& o) { return build_regnet("regnet_x_800mf", o); }
Model build_regnet_x_1_6gf(const ModelOptions& o) { return build_regnet("regnet_x_1_6gf", o); }
Model build_regnet_x_3_2gf(const ModelOptions& o) { return build_regnet("regnet_x_3_2gf", o); }
Model build_regnet_x_8gf(const ModelOptions& o) { return build_regnet("regnet_x_8gf", o); }
Model build_regnet_x_16gf(const ModelOptions& o) { return build_regnet("regnet_x_16gf", o); }
Model build_regnet_x_32gf(const ModelOptions& o) { return build_regnet("regnet_x_32gf", o); }
Model build_regnet_y_400mf(const ModelOptions& o) { return build_regnet("regnet_y_400mf", o); }
Model build_regnet_y_800mf(const ModelOptions& o) { return build_regnet("regnet_y_800mf", o); }
Model build_regnet_y_1_6gf(const ModelOptions& o) { return build_regnet("regnet_y_1_6gf", o); }
Model build_regnet_y_3_2gf(const ModelOptions& o) { return build_regnet("regnet_y_3_2gf", o); }
Model build_regnet_y_8gf(const ModelOptions& o) { return build_regnet("regnet_y_8gf", o); }
Model build_regnet_y_16gf(const ModelOptions& o) { return build_regnet("regnet_y_16gf", o); }
Model build_regnet_y_32gf(const ModelOptions& o) { return build_regnet("regnet_y_32gf", o); }
Model build_regnet_y_128gf(const ModelOptions& o) { return build_regnet("regnet_y_128gf", o); }

}  // namespace model_layer
}  // namespace ddlsim
