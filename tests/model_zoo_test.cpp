// Model zoo totals against the Keras reference counts, input-size handling and the model-file reader.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "kernels/kernel_plan.hpp"
#include "model/model.hpp"

using namespace ddlsim;

namespace {

Model zoo(const std::string& name, int size = 0, int classes = 0, int channels = 0) {
  ModelOptions o = default_model_options(name);
  if (size > 0) o.input_h = o.input_w = size;
  if (classes > 0) o.classes = classes;
  if (channels > 0) o.input_c = channels;
  return build_zoo_model(name, o);
}

// The message of the InputError that `parse_model_file(text, origin)` throws ("" if none).
std::string parse_error(const std::string& text, const std::string& origin = "models/x.model") {
  try {
    parse_model_file(text, origin);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ModelZoo, KerasParameterTotals) {
  EXPECT_EQ(zoo("resnet50").params_total(), 25'636'712);
  EXPECT_EQ(zoo("resnet101").params_total(), 44'707'176);
  EXPECT_EQ(zoo("efficientnet_b0").params_total(), 5'330'571);
  EXPECT_EQ(zoo("mobilenet_v2").params_total(), 3'538'984);
  EXPECT_EQ(zoo("vgg16").params_total(), 138'357'544);
  EXPECT_EQ(zoo("inception_v3", 299).params_total(), 23'851'784);
}

// EfficientNet-B1..B7 (Keras applications' model.summary() totals, at their default sizes) and
// ResNet-18/34 (torchvision's parameter counts: sum(p.numel() for p in model.parameters()), which
// leaves out BatchNorm's running statistics, ddlsim's non-trainable parameters).
TEST(ModelZoo, ScaledEfficientNetsAndBasicBlockResNets) {
  const struct { const char* name; int size; long long total; } keras[] = {
      {"efficientnet_b1", 240, 7'856'239},   {"efficientnet_b2", 260, 9'177'569},
      {"efficientnet_b3", 300, 12'320'535},  {"efficientnet_b4", 380, 19'466'823},
      {"efficientnet_b5", 456, 30'562'527},  {"efficientnet_b6", 528, 43'265'143},
      {"efficientnet_b7", 600, 66'658'687}};
  for (const auto& k : keras) EXPECT_EQ(zoo(k.name, k.size).params_total(), k.total) << k.name;
  // torchvision 0.14's efficientnet_b4 has the same trainable parameters (sum of numel()).
  EXPECT_EQ(zoo("efficientnet_b4", 380).params_trainable(), 19'341'616);
  EXPECT_EQ(zoo("resnet18").params_trainable(), 11'689'512);
  EXPECT_EQ(zoo("resnet34").params_trainable(), 21'797'672);
  // 1.82 and 3.67 G multiply-adds at 224x224 (He et al. 2016, table 1: 1.8 and 3.6 x 10^9 FLOPs).
  EXPECT_NEAR(zoo("resnet18").fwd_flops_per_sample(), 3.64e9, 0.05e9);
  EXPECT_NEAR(zoo("resnet34").fwd_flops_per_sample(), 7.34e9, 0.05e9);
}

// NVIDIA DeepLearningExamples' EfficientNet-WideSE-B0 and -B4 (PyTorch ConvNets models/efficientnet.py:
// widese_mbconv squeezes to a quarter of the expanded channels). torch 1.13: torchvision 0.14's B0 and
// B4 with that squeeze-excitation have 8,423,848 and 34,927,246 parameters in 213 and 418 tensors,
// as many tensors as the originals. By hand, block 2a of B0 (16 -> 96 channels expanded): the
// original squeezes to 16 / 4 = 4 channels, WideSE to 96 / 4 = 24: 96 x 24 + 24 + 24 x 96 + 96
// = 4,728 parameters in its two 1x1 convolutions, against 96 x 4 + 4 + 4 x 96 + 96 = 868.
TEST(ModelZoo, NvidiaWideSeEfficientNets) {
  EXPECT_EQ(zoo("efficientnet_widese_b0").params_trainable(), 8'423'848);
  EXPECT_EQ(zoo("efficientnet_widese_b4", 380).params_trainable(), 34'927'246);
  for (const auto& [name, tensors] : {std::pair<const char*, int>{"efficientnet_widese_b0", 213},
                                      {"efficientnet_widese_b4", 418}, {"efficientnet_b0", 213}}) {
    int n = 0;
    for (const Layer& l : zoo(name).layers) n += l.trainable_tensors();
    EXPECT_EQ(n, tensors) << name;
  }
  const auto se_params = [](const char* name) {
    long long p = 0;
    for (const Layer& l : zoo(name).layers)
      if (l.name.rfind("block2a_se_", 0) == 0) p += l.params_trainable;
    return p;
  };
  EXPECT_EQ(se_params("efficientnet_widese_b0"), 4'728);
  EXPECT_EQ(se_params("efficientnet_b0"), 868);
  // NVIDIA's B0 drops no block (survival 1), its B4 as Keras' (drop rate 0.2 at the last block).
  const auto dropped = [](const char* name) {
    int n = 0;
    for (const Layer& l : zoo(name).layers)
      n += l.kind == LayerKind::Dropout && l.name.find("_drop") != std::string::npos;
    return n;
  };
  EXPECT_EQ(dropped("efficientnet_widese_b0"), 0);
  EXPECT_EQ(dropped("efficientnet_widese_b4"), dropped("efficientnet_b4"));
  EXPECT_GT(dropped("efficientnet_b4"), 0);
}

TEST(ModelZoo, ResNet50TrainableAndMacs) {
  const Model m = zoo("resnet50");
  EXPECT_EQ(m.params_trainable(), 25'583'592);
  EXPECT_GE(m.fwd_flops_per_sample(), 7.6e9);  // 3.8 to 4.0 G multiply-adds
  EXPECT_LE(m.fwd_flops_per_sample(), 8.0e9);
  EXPECT_EQ(m.input.h, 224);
  EXPECT_EQ(m.classes, 1000);
}

TEST(ModelZoo, NamesAndAliases) {
  for (const auto& name : zoo_model_names()) EXPECT_TRUE(is_zoo_model(name)) << name;
  EXPECT_TRUE(is_zoo_model("ResNet50"));
  EXPECT_TRUE(is_zoo_model("EfficientNetB0"));
  EXPECT_TRUE(is_zoo_model("EfficientNetB4"));
  EXPECT_TRUE(is_zoo_model("ResNet-18"));
  EXPECT_TRUE(is_zoo_model("MobileNetV2"));
  EXPECT_TRUE(is_zoo_model("InceptionV3"));
  EXPECT_FALSE(is_zoo_model("mlp"));
  EXPECT_EQ(build_zoo_model("ResNet50", ModelOptions{}).name, "resnet50");
  // timm's and Hugging Face's names of the same networks.
  EXPECT_EQ(build_zoo_model("vit_base_patch16_224", default_model_options("vit_b_16")).name, "vit_b_16");
  EXPECT_EQ(build_zoo_model("deit_small_patch16_224", default_model_options("vit_s_16")).name, "vit_s_16");
  EXPECT_EQ(build_zoo_model("mobilenetv3_large_100", default_model_options("mobilenet_v3_large")).name,
            "mobilenet_v3_large");
  EXPECT_EQ(default_model_options("bert-base-uncased").input_h, 128);
  EXPECT_EQ(default_model_options("gpt2-medium").input_h, 1024);
  EXPECT_EQ(default_model_options("inception_v3").input_h, 299);
  EXPECT_EQ(default_model_options("small_cnn").input_h, 32);
  EXPECT_THROW(build_zoo_model("resnet19", ModelOptions{}), InputError);
}

TEST(ModelZoo, SmallInputsWithMoreClasses) {
  for (const auto& name : zoo_model_names()) {
    // ViT-H/14's patch does not divide 64.
    if (name == "small_cnn" || name == "inception_v3" || name == "alexnet" || name == "vit_h_14")
      continue;
    const Model big = zoo(name);
    const Model small = zoo(name, 64, 200);
    EXPECT_LT(small.fwd_flops_per_sample(), big.fwd_flops_per_sample()) << name;
    EXPECT_EQ(small.classes, 200) << name;
    EXPECT_EQ(small.layers.back().out.c, 200) << name;
  }
  EXPECT_LT(zoo("inception_v3", 75, 200).fwd_flops_per_sample(), zoo("inception_v3").fwd_flops_per_sample());
  EXPECT_LT(zoo("vit_h_14", 56, 200).fwd_flops_per_sample(), zoo("vit_h_14").fwd_flops_per_sample());
  EXPECT_GT(zoo("swin_t", 448, 200).fwd_flops_per_sample(), zoo("swin_t").fwd_flops_per_sample());
  // AlexNet's 11x11/4 'valid' stem and three 3x3/2 pools need at least 67x67.
  EXPECT_LT(zoo("alexnet", 67, 200).fwd_flops_per_sample(), zoo("alexnet").fwd_flops_per_sample());
}

TEST(ModelZoo, HeadParametersFollowClasses) {
  // Only the final Dense changes: (features + 1) x classes.
  EXPECT_EQ(zoo("resnet50", 0, 200).params_total(), 25'636'712 - 2049 * 800);
  EXPECT_EQ(zoo("mobilenet_v2", 0, 10).params_total(), 3'538'984 - 1281 * 990);
  // VGG16's flatten size follows the input: 2x2x512 at 64x64.
  EXPECT_EQ(zoo("vgg16", 64, 200).params_total(), 14'714'688 + (2048 + 1) * 4096 + 4097 * 4096 + 4097 * 200);
}

TEST(ModelZoo, SmallCnnCifarAndFashionMnist) {
  const Model cifar = zoo("small_cnn", 32, 10, 3);
  EXPECT_EQ(cifar.params_total(), 1'250'858);
  const Model fashion = zoo("small_cnn", 28, 10, 1);
  EXPECT_EQ(fashion.params_total(), 889'834);
  EXPECT_LT(fashion.fwd_flops_per_sample(), cifar.fwd_flops_per_sample());
}

TEST(ModelZoo, TooSmallInputsThrow) {
  EXPECT_THROW(zoo("resnet50", 16), InputError);
  EXPECT_THROW(zoo("inception_v3", 64), InputError);
  EXPECT_THROW(zoo("small_cnn", 8), InputError);
  try {
    zoo("vgg16", 16);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("vgg16"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("32x32"), std::string::npos) << e.what();
  }
}

TEST(ModelZoo, LayerBookkeeping) {
  const Model m = zoo("efficientnet_b0");
  std::int64_t non_trainable_norm = 0;
  for (const auto& l : m.layers) {
    if (l.kind == LayerKind::Normalization) non_trainable_norm += l.params_non_trainable;
    if (l.kind == LayerKind::DepthwiseConv2D) EXPECT_EQ(l.geom.groups, l.in.c) << l.name;
    if (l.kind == LayerKind::Dense) EXPECT_EQ(l.geom.kernel_h, 1) << l.name;
    EXPECT_EQ(l.out_elems, l.out.elems()) << l.name;
  }
  EXPECT_EQ(non_trainable_norm, 7);
  EXPECT_EQ(m.layers.front().kind, LayerKind::Input);
  EXPECT_GT(m.activation_elems_per_sample(), 0);
  EXPECT_STREQ(to_string(LayerKind::Conv2D), "Conv2D");
}

TEST(ModelFile, MlpMaterialsTotals) {
  const Model m = load_model_file(DDLSIM_SOURCE_DIR "/models/mlp_materials.model");
  EXPECT_EQ(m.params_total(), 153'441);
  EXPECT_EQ(m.params_trainable(), 153'441);
  EXPECT_EQ(m.input.w * m.input.h * m.input.c, 600);
  EXPECT_EQ(m.classes, 2);
  EXPECT_EQ(m.name, "mlp_materials");
}

TEST(ModelFile, ParsesConvLayersAndComments) {
  const Model m = parse_model_file(
      "# a tiny CNN\n\ninput h=28 w=28 c=1\nconv2d 32 kernel=3 stride=1 padding=same activation=relu\n"
      "batchnorm scale=false\nmaxpool 2\nconv2d 8 kernel=1x3 padding=valid bias=false\nglobalavgpool\n"
      "dropout 0.5\ndense 10 activation=softmax  # head\n",
      "tiny.model");
  EXPECT_EQ(m.name, "tiny");
  EXPECT_EQ(m.params_total(), (9 * 32 + 32) + 3 * 32 + 3 * 32 * 8 + (8 * 10 + 10));
  EXPECT_EQ(m.params_trainable(), m.params_total() - 2 * 32);
  EXPECT_EQ(m.classes, 10);
}

TEST(ModelFile, ErrorsNameFileAndLine) {
  const std::string bad_number = parse_error("input 10\n# ok\ndense abc\n");
  EXPECT_NE(bad_number.find("models/x.model:3:"), std::string::npos) << bad_number;
  EXPECT_NE(bad_number.find("'abc'"), std::string::npos) << bad_number;

  const std::string unknown = parse_error("input 10\n\ndesne 4\n");
  EXPECT_NE(unknown.find("models/x.model:3:"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("desne"), std::string::npos) << unknown;

  const std::string no_input = parse_error("# no input\ndense 4\n");
  EXPECT_NE(no_input.find("models/x.model:2:"), std::string::npos) << no_input;
  EXPECT_NE(no_input.find("input"), std::string::npos) << no_input;

  EXPECT_NE(parse_error("").find("models/x.model"), std::string::npos);
  EXPECT_NE(parse_error("input 10\ndense 4 color=red\n").find("models/x.model:2:"), std::string::npos);
  EXPECT_NE(parse_error("input 4 4 1\nconv2d 2 kernel=5 padding=valid\n").find("models/x.model:2:"),
            std::string::npos);
  EXPECT_THROW(load_model_file("/nonexistent/none.model"), InputError);
}

// VGG-11/13/19 and DenseNet-121/169/201: torchvision's parameter counts (sum of numel(), checked
// with torchvision 0.14; Keras' VGG19 and DenseNet summaries give the same trainable figures, and
// their totals add BatchNorm's running statistics, 2 per channel) and torchvision's documented
// multiply-adds (GFLOPS column of its model table: 7.61, 11.31, 19.63, 2.83, 3.36, 4.29 G), to
// 2 %: ddlsim counts 2 operations per multiply-add and adds the element-wise layers.
TEST(ModelZoo, VggAndDenseNetVariants) {
  const struct {
    const char* name;
    long long trainable, total;
    double gmacs;
  } rows[] = {{"vgg11", 132'863'336, 132'863'336, 7.61},   {"vgg13", 133'047'848, 133'047'848, 11.31},
              {"vgg19", 143'667'240, 143'667'240, 19.63},  {"densenet121", 7'978'856, 8'062'504, 2.83},
              {"densenet169", 14'149'480, 14'307'880, 3.36}, {"densenet201", 20'013'928, 20'242'984, 4.29}};
  for (const auto& r : rows) {
    const Model m = zoo(r.name);
    EXPECT_EQ(m.params_trainable(), r.trainable) << r.name;
    EXPECT_EQ(m.params_total(), r.total) << r.name;
    EXPECT_NEAR(m.fwd_flops_per_sample() / 2, r.gmacs * 1e9, 0.02 * r.gmacs * 1e9) << r.name;
  }
  // The classifier's input: 64 + 32 x layers per block, halved by each transition (torchvision's
  // classifier in_features: 1024, 1664, 1920).
  const struct {
    const char* name;
    int features;
  } heads[] = {{"densenet121", 1024}, {"densenet169", 1664}, {"densenet201", 1920}};
  for (const auto& h : heads) {
    int found = 0;
    for (const Layer& l : zoo(h.name).layers)
      if (l.name == "predictions") {
        EXPECT_EQ(l.in.c, h.features) << h.name;
        ++found;
      }
    EXPECT_EQ(found, 1) << h.name;
  }
}

// The builder records which layers read each output (Layer::inputs, Layer::consumers): ResNet-50's
// 16 blocks each fork their input (the shortcut and the first convolution); DenseNet-121's blocks
// fork every concatenation but the last of a block, and each block's input (the next layer and the
// next concatenation): 5 + 11 + 23 + 15 + 4 = 58; a model file's layers form a chain.
TEST(ModelZoo, ConsumersOfEachOutput) {
  const auto forks = [](const Model& m) {
    int n = 0;
    for (const Layer& l : m.layers) n += l.consumers > 1;
    return n;
  };
  EXPECT_EQ(forks(zoo("resnet50")), 16);
  EXPECT_EQ(forks(zoo("densenet121")), 58);
  const Model chain = parse_model_file("input 8 3\nflatten\ndense 16 activation=relu\ndense 2\n", "m.model");
  EXPECT_EQ(forks(chain), 0);
  for (std::size_t i = 0; i + 1 < chain.layers.size(); ++i) EXPECT_EQ(chain.layers[i].consumers, 1) << i;
}

// MobileNetV3-Large and Wide ResNet-50-2 in torchvision's layout: its parameter counts (sum of
// numel(), torchvision 0.14) and its documented multiply-adds (0.22 and 11.40 G), to 2 %.
TEST(ModelZoo, MobileNetV3AndWideResNet) {
  const Model v3 = zoo("mobilenet_v3_large"), wrn = zoo("wide_resnet50_2");
  EXPECT_EQ(v3.params_trainable(), 5'483'032);
  EXPECT_EQ(wrn.params_trainable(), 68'883'240);
  EXPECT_NEAR(v3.fwd_flops_per_sample() / 2, 0.22e9, 0.02 * 0.22e9);
  EXPECT_NEAR(wrn.fwd_flops_per_sample() / 2, 11.40e9, 0.02 * 11.40e9);
}

// ResNeXt (torchvision 0.14's parameter counts and documented multiply-adds: 4.23, 16.41, 15.46 G)
// and the grouped convolution it is built from: weights k x k x (C / g) x F, operations likewise,
// calibrated as g GEMMs side by side.
TEST(ModelZoo, ResNeXtAndGroupedConvolutions) {
  EXPECT_EQ(zoo("resnext50_32x4d").params_trainable(), 25'028'904);
  EXPECT_EQ(zoo("resnext101_32x8d").params_trainable(), 88'791'336);
  EXPECT_EQ(zoo("resnext101_64x4d").params_trainable(), 83'455'272);
  EXPECT_NEAR(zoo("resnext50_32x4d").fwd_flops_per_sample() / 2, 4.23e9, 0.02 * 4.23e9);
  EXPECT_NEAR(zoo("resnext101_32x8d").fwd_flops_per_sample() / 2, 16.41e9, 0.02 * 16.41e9);
  EXPECT_NEAR(zoo("resnext101_64x4d").fwd_flops_per_sample() / 2, 15.46e9, 0.02 * 15.46e9);
  // NVIDIA DeepLearningExamples' ResNeXt-101 32x4d and SE-ResNeXt-101 32x4d (models/resnet.py),
  // rebuilt in torch 1.13 from torchvision's Bottleneck (groups 32, width 4) plus NVIDIA's SE of 16
  // channels: 44,177,704 and 45,251,128 parameters in 314 and 446 tensors; 7,969,996,800 and
  // 7,971,037,184 multiply-adds of convolutions and linear layers at 224x224 (forward hooks).
  EXPECT_EQ(zoo("resnext101_32x4d").params_trainable(), 44'177'704);
  EXPECT_EQ(zoo("se_resnext101_32x4d").params_trainable(), 45'251'128);
  EXPECT_NEAR(zoo("resnext101_32x4d").fwd_flops_per_sample() / 2, 7.9700e9, 0.02 * 7.9700e9);
  EXPECT_NEAR(zoo("se_resnext101_32x4d").fwd_flops_per_sample() / 2, 7.9710e9, 0.02 * 7.9710e9);
  for (const auto& [name, count] :
       {std::pair<const char*, int>{"resnext101_32x4d", 314}, {"se_resnext101_32x4d", 446}}) {
    int n = 0;
    for (const Layer& l : zoo(name).layers) n += l.trainable_tensors();
    EXPECT_EQ(n, count) << name;
  }
  int tensors = 0;
  for (const Layer& l : zoo("resnext50_32x4d").layers) tensors += l.trainable_tensors();
  EXPECT_EQ(tensors, 161);  // len(parameters()) of torchvision's model
  // A model file's grouped convolution: 3x3, 64 -> 128 channels in 4 groups, no bias: 3 x 3 x 16
  // x 128 = 18,432 weights; 8 x 8 outputs of 128 channels, 2 x 144 operations each.
  const Model m = parse_model_file("input 8 8 64\nconv2d 128 groups=4 bias=false\n", "g.model");
  const Layer& g = m.layers[1];
  EXPECT_EQ(g.params_trainable, 18'432);
  EXPECT_DOUBLE_EQ(g.fwd_flops, 2.0 * 8 * 8 * 128 * 144);
  EXPECT_NE(parse_error("input 8 8 64\nconv2d 100 groups=3\n").find("3 groups must divide the 64 input channels"),
            std::string::npos);
  const auto ks = layer_kernels(g, 2, Precision::FP32, true, ActivationBytes{});
  ASSERT_EQ(ks.size(), 5u);  // forward, data and weight gradients; the update and the accumulation
  for (int i = 0; i < 3; ++i) EXPECT_EQ(ks[std::size_t(i)].gemm.count, 4) << ks[std::size_t(i)].name;
  EXPECT_EQ(ks[0].gemm.m, 2 * 64);
  EXPECT_EQ(ks[0].gemm.n, 32);
  EXPECT_EQ(ks[0].gemm.k, 144);
  EXPECT_DOUBLE_EQ(ks[0].flops(), 2 * g.fwd_flops);
}

// EfficientNetV2 in torchvision's layout: its parameter counts (torchvision 0.14) and documented
// multiply-adds (8.37, 24.58, 56.08 G at 384, 480, 480), to 2 %.
TEST(ModelZoo, EfficientNetV2) {
  EXPECT_EQ(zoo("efficientnet_v2_s").params_trainable(), 21'458'488);
  EXPECT_EQ(zoo("efficientnet_v2_m").params_trainable(), 54'139'356);
  EXPECT_EQ(zoo("efficientnet_v2_l").params_trainable(), 118'515'272);
  EXPECT_EQ(zoo("efficientnet_v2_s").input.h, 384);
  EXPECT_NEAR(zoo("efficientnet_v2_s").fwd_flops_per_sample() / 2, 8.37e9, 0.02 * 8.37e9);
  EXPECT_NEAR(zoo("efficientnet_v2_m").fwd_flops_per_sample() / 2, 24.58e9, 0.02 * 24.58e9);
  EXPECT_NEAR(zoo("efficientnet_v2_l").fwd_flops_per_sample() / 2, 56.08e9, 0.02 * 56.08e9);
  int tensors = 0;
  for (const Layer& l : zoo("efficientnet_v2_s").layers) tensors += l.trainable_tensors();
  EXPECT_EQ(tensors, 452);
}

// torchvision 0.14's RegNets, Swin Transformers, MobileNetV3-Small, MNASNets, SqueezeNets,
// DenseNet-161, Wide ResNet-101-2, the batch-normed VGGs and ViT-H/14 (at 224): trainable parameters
// and tensors (sum of numel() and len(parameters()) of the models Debian's torchvision builds), and
// the multiply-adds of convolutions, dense layers and attention to 1 % against a count of torchvision's own forward at 224 (RegNetY-128GF: 384):
// forward hooks summing outputs x (inputs / groups) x kernel area for each Conv2d, outputs x inputs
// for each Linear, and for Swin's window attention 2 x 49 x H x W x C for its two products plus
// 4 H W C^2 for its q, k, v and output projections (F.linear, which the hooks do not see).
TEST(ModelZoo, TorchvisionFamiliesAdded) {
  struct Case {
    const char* name;
    std::int64_t params;
    int tensors;    // 0: not checked
    double gmacs;   // 0: not checked
  };
  const Case cases[] = {
      {"regnet_x_400mf", 5'495'976, 215, 0.414},   {"regnet_x_800mf", 7'259'656, 161, 0},
      {"regnet_x_1_6gf", 9'190'136, 179, 0},       {"regnet_x_3_2gf", 15'296'552, 242, 0},
      {"regnet_x_8gf", 39'572'648, 224, 0},        {"regnet_x_16gf", 54'278'536, 215, 15.941},
      {"regnet_x_32gf", 107'811'560, 224, 0},      {"regnet_y_400mf", 4'344'144, 225, 0.402},
      {"regnet_y_800mf", 6'432'512, 199, 0},       {"regnet_y_1_6gf", 11'202'430, 368, 0},
      {"regnet_y_3_2gf", 19'436'338, 290, 0},      {"regnet_y_8gf", 39'381'472, 238, 0},
      {"regnet_y_16gf", 83'590'140, 251, 15.912},  {"regnet_y_32gf", 145'046'770, 277, 0},
      {"regnet_y_128gf", 644'812'894, 368, 374.57}, {"swin_t", 28'288'354, 173, 4.491},
      {"swin_s", 49'606'258, 329, 8.741},          {"swin_b", 87'768'224, 329, 15.431},
      {"mobilenet_v3_small", 2'542'856, 142, 0.057}, {"mnasnet0_5", 2'218'512, 158, 0},
      {"mnasnet0_75", 3'170'208, 158, 0},          {"mnasnet1_0", 4'383'312, 158, 0.314},
      {"mnasnet1_3", 6'282'256, 158, 0},           {"squeezenet1_0", 1'248'424, 52, 0.819},
      {"squeezenet1_1", 1'235'496, 52, 0.349},     {"densenet161", 28'681'000, 484, 7.728},
      {"wide_resnet101_2", 126'886'696, 314, 22.753}, {"vgg11_bn", 132'868'840, 38, 0},
      {"vgg16_bn", 138'365'992, 58, 15.47},        {"vit_h_14", 632'045'800, 392, 0},
  };
  for (const Case& c : cases) {
    const Model m = zoo(c.name);
    EXPECT_EQ(m.params_trainable(), c.params) << c.name;
    int tensors = 0;
    for (const Layer& l : m.layers) tensors += l.trainable_tensors();
    EXPECT_EQ(tensors, c.tensors) << c.name;
    double macs = 0;  // the products' (a bias adds 1 an output; attention's softmax 1 a score)
    for (const Layer& l : m.layers)
      if (l.kind == LayerKind::Conv2D || l.kind == LayerKind::DepthwiseConv2D || l.kind == LayerKind::Dense ||
          l.kind == LayerKind::Attention)
        macs += l.fwd_flops / 2;
    if (c.gmacs > 0) EXPECT_NEAR(macs, c.gmacs * 1e9, 0.01 * c.gmacs * 1e9) << c.name;
  }
  // Names that normalise alike (regnet_x_1_6gf and regnet_x_16gf) resolve by their exact spelling;
  // timm's names for the same designs resolve too.
  EXPECT_EQ(zoo("regnet_x_16gf").params_trainable(), 54'278'536);
  EXPECT_EQ(zoo("regnetx_016").params_trainable(), 9'190'136);
  EXPECT_EQ(zoo("regnety_160").params_trainable(), 83'590'140);
  EXPECT_EQ(zoo("swin_tiny_patch4_window7_224").params_trainable(), 28'288'354);
  // Inputs that are not multiples of 224: torchvision pads each stage to whole 7 x 7 windows (and
  // odd grids to even before merging); its projections and attention run over the padded tokens.
  // Multiply-adds of torchvision 0.14's swin_t forward counted on this machine (F.linear and
  // Tensor.matmul patched to count, convolutions hooked): 7.3454 G at 256 x 256, 9.2875 G at 300.
  const auto gmacs = [](const Model& m) {
    double macs = 0;
    for (const Layer& l : m.layers)
      if (l.kind == LayerKind::Conv2D || l.kind == LayerKind::Dense || l.kind == LayerKind::Attention)
        macs += l.fwd_flops / 2;
    return macs / 1e9;
  };
  EXPECT_NEAR(gmacs(zoo("swin_t", 256)), 7.3454, 0.01 * 7.3454);
  EXPECT_NEAR(gmacs(zoo("swin_t", 300)), 9.2875, 0.01 * 9.2875);
  EXPECT_EQ(zoo("swin_t", 300).params_trainable(), 28'288'354);
}

// The activations torchvision runs in place and whose gradient reads their input, so that autograd
// copies the input first (Layer::inplace_copies_input): the copies torch 1.13's profiler
// counts in one training step of torchvision 0.14's models on this machine
// (calibration/torch/op_census.py: clone under silu_, hardtanh_ and hardswish_): EfficientNet-B0
// 49, EfficientNetV2-S 102, MobileNetV2 35, MobileNetV3-Large 21 (its ReLUs need none), ResNet-50 0.
TEST(ModelZoo, InPlaceActivationsAsTorchvisionRunsThem) {
  const auto copies = [](const std::string& name) {
    int n = 0;
    for (const Layer& l : zoo(name).layers)
      if (l.inplace_copies_input()) ++n;
    return n;
  };
  EXPECT_EQ(copies("efficientnet_b0"), 49);
  EXPECT_EQ(copies("efficientnet_v2_s"), 102);
  EXPECT_EQ(copies("mobilenet_v2"), 35);
  EXPECT_EQ(copies("mobilenet_v3_large"), 21);
  EXPECT_EQ(copies("resnet50"), 0);
}
