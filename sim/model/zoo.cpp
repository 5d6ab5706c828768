// The model zoo: names, default input sizes and the dispatch onto zoo_*.cpp builders.
#include <algorithm>
#include <fmt/format.h>

#include "core/error.hpp"
#include "core/text.hpp"
#include "model/zoo_models.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {

struct ZooEntry {
  const char* name;
  Model (*build)(const ModelOptions&);
  int default_size;     // usual training resolution (square)
  int default_classes;  // ImageNet or CIFAR-10
  int min_size;         // smallest height/width the downsampling allows (Keras' min_size)
  bool on_maps = true;  // marked on `ddlsim map` (not the scaled variants: their labels would crowd)
  bool text = false;    // a language model: default_size is the sequence length, classes the vocabulary
};

constexpr ZooEntry kZoo[] = {
    {"resnet18", build_resnet18, 224, 1000, 32},
    {"resnet34", build_resnet34, 224, 1000, 32, false},
    {"resnet50", build_resnet50, 224, 1000, 32},
    {"resnet101", build_resnet101, 224, 1000, 32},
    {"resnet152", build_resnet152, 224, 1000, 32},
    {"efficientnet_b0", build_efficientnet_b0, 224, 1000, 32},
    // B1-B7 at the resolutions of keras.applications (default_size): 240, 260, 300, 380, 456, 528, 600.
    {"efficientnet_b1", build_efficientnet_b1, 240, 1000, 32, false},
    {"efficientnet_b2", build_efficientnet_b2, 260, 1000, 32, false},
    {"efficientnet_b3", build_efficientnet_b3, 300, 1000, 32, false},
    {"efficientnet_b4", build_efficientnet_b4, 380, 1000, 32, false},
    {"efficientnet_b5", build_efficientnet_b5, 456, 1000, 32, false},
    {"efficientnet_b6", build_efficientnet_b6, 528, 1000, 32, false},
    {"efficientnet_b7", build_efficientnet_b7, 600, 1000, 32, false},
    // NVIDIA DeepLearningExamples' WideSE-B0 and -B4 at their default image sizes (224, 380).
    {"efficientnet_widese_b0", build_efficientnet_widese_b0, 224, 1000, 32, false},
    {"efficientnet_widese_b4", build_efficientnet_widese_b4, 380, 1000, 32, false},
    // EfficientNetV2 at the resolution of torchvision's weights (384, 480, 480).
    {"efficientnet_v2_s", build_efficientnet_v2_s, 384, 1000, 32, false},
    {"efficientnet_v2_m", build_efficientnet_v2_m, 480, 1000, 32, false},
    {"efficientnet_v2_l", build_efficientnet_v2_l, 480, 1000, 32, false},
    {"mobilenet_v2", build_mobilenet_v2, 224, 1000, 32},
    {"mobilenet_v3_large", build_mobilenet_v3_large, 224, 1000, 32, false},
    {"mobilenet_v3_small", build_mobilenet_v3_small, 224, 1000, 32, false},
    {"mnasnet0_5", build_mnasnet0_5, 224, 1000, 32, false},
    {"mnasnet0_75", build_mnasnet0_75, 224, 1000, 32, false},
    {"mnasnet1_0", build_mnasnet1_0, 224, 1000, 32, false},
    {"mnasnet1_3", build_mnasnet1_3, 224, 1000, 32, false},
    {"wide_resnet50_2", build_wide_resnet50_2, 224, 1000, 32, false},
    {"wide_resnet101_2", build_wide_resnet101_2, 224, 1000, 32, false},
    {"resnext50_32x4d", build_resnext50_32x4d, 224, 1000, 32, false},
    {"resnext101_32x8d", build_resnext101_32x8d, 224, 1000, 32, false},
    {"resnext101_64x4d", build_resnext101_64x4d, 224, 1000, 32, false},
    {"resnext101_32x4d", build_resnext101_32x4d, 224, 1000, 32, false},
    {"se_resnext101_32x4d", build_se_resnext101_32x4d, 224, 1000, 32, false},
    // RegNets at 224 (torchvision's weights; RegNetY-128GF's at 384).
    {"regnet_x_400mf", build_regnet_x_400mf, 224, 1000, 32, false},
    {"regnet_x_800mf", build_regnet_x_800mf, 224, 1000, 32, false},
    {"regnet_x_1_6gf", build_regnet_x_1_6gf, 224, 1000, 32, false},
    {"regnet_x_3_2gf", build_regnet_x_3_2gf, 224, 1000, 32, false},
    {"regnet_x_8gf", build_regnet_x_8gf, 224, 1000, 32, false},
    {"regnet_x_16gf", build_regnet_x_16gf, 224, 1000, 32, false},
    {"regnet_x_32gf", build_regnet_x_32gf, 224, 1000, 32, false},
    {"regnet_y_400mf", build_regnet_y_400mf, 224, 1000, 32, false},
    {"regnet_y_800mf", build_regnet_y_800mf, 224, 1000, 32, false},
    {"regnet_y_1_6gf", build_regnet_y_1_6gf, 224, 1000, 32, false},
    {"regnet_y_3_2gf", build_regnet_y_3_2gf, 224, 1000, 32, false},
    {"regnet_y_8gf", build_regnet_y_8gf, 224, 1000, 32, false},
    {"regnet_y_16gf", build_regnet_y_16gf, 224, 1000, 32, false},
    {"regnet_y_32gf", build_regnet_y_32gf, 224, 1000, 32, false},
    {"regnet_y_128gf", build_regnet_y_128gf, 384, 1000, 32, false},
    {"inception_v3", build_inception_v3, 299, 1000, 75},
    {"vgg11", build_vgg11, 224, 1000, 32, false},
    {"vgg13", build_vgg13, 224, 1000, 32, false},
    {"vgg16", build_vgg16, 224, 1000, 32},
    {"vgg19", build_vgg19, 224, 1000, 32, false},
    {"vgg11_bn", build_vgg11_bn, 224, 1000, 32, false},
    {"vgg13_bn", build_vgg13_bn, 224, 1000, 32, false},
    {"vgg16_bn", build_vgg16_bn, 224, 1000, 32, false},
    {"vgg19_bn", build_vgg19_bn, 224, 1000, 32, false},
    {"densenet121", build_densenet121, 224, 1000, 32, false},
    {"densenet169", build_densenet169, 224, 1000, 32, false},
    {"densenet201", build_densenet201, 224, 1000, 32, false},
    {"densenet161", build_densenet161, 224, 1000, 32, false},
    // ConvNeXt in torchvision's layout (the stem and three downsamplings divide by 32).
    {"convnext_tiny", build_convnext_tiny, 224, 1000, 32},
    {"convnext_small", build_convnext_small, 224, 1000, 32, false},
    {"convnext_base", build_convnext_base, 224, 1000, 32, false},
    {"convnext_large", build_convnext_large, 224, 1000, 32, false},
    // Vision Transformers at torchvision's 224 (the input must be a multiple of the patch);
    // ViT-S/16 and ViT-Ti/16 are DeiT's small and tiny (timm's vit_small / vit_tiny_patch16_224).
    {"vit_ti_16", build_vit_ti_16, 224, 1000, 16, false},
    {"vit_s_16", build_vit_s_16, 224, 1000, 16, false},
    {"vit_b_16", build_vit_b_16, 224, 1000, 16},
    {"vit_b_32", build_vit_b_32, 224, 1000, 32, false},
    {"vit_l_16", build_vit_l_16, 224, 1000, 16, false},
    {"vit_l_32", build_vit_l_32, 224, 1000, 32, false},
    {"vit_h_14", build_vit_h_14, 224, 1000, 14, false},
    // Swin Transformers at 224; any input from the patch convolution's 4 x 4 up (torchvision pads each
    // stage to whole windows).
    {"swin_t", build_swin_t, 224, 1000, 4, false},
    {"swin_s", build_swin_s, 224, 1000, 4, false},
    {"swin_b", build_swin_b, 224, 1000, 4, false},
    // SqueezeNet's stem and three ceil-mode poolings need 3 x 3 at the last fire module.
    {"squeezenet1_0", build_squeezenet1_0, 224, 1000, 48, false},
    {"squeezenet1_1", build_squeezenet1_1, 224, 1000, 48, false},
    // Language models: sequence lengths of GPT-2's training (1024), GPT-3's (2048) and BERT's first
    // phase (128);
    // vocabularies of GPT-2's byte-pair encoding (50,257) and BERT's uncased WordPiece (30,522).
    {"gpt2", build_gpt2_small, 1024, 50257, 1, false, true},
    {"gpt2_medium", build_gpt2_medium, 1024, 50257, 1, false, true},
    {"gpt2_large", build_gpt2_large, 1024, 50257, 1, false, true},
    {"gpt2_xl", build_gpt2_xl, 1024, 50257, 1, false, true},
    {"gpt3_6_7b", build_gpt3_6_7b, 2048, 50257, 1, false, true},
    {"bert_base", build_bert_base, 128, 30522, 1, false, true},
    {"bert_large", build_bert_large, 128, 30522, 1, false, true},
    {"alexnet", build_alexnet, 227, 1000, 67},
    {"small_cnn", build_small_cnn, 32, 10, 10},
};

// "ResNet50", "resnet-50" and "resnet_50" all match "resnet50".
std::string normalise(const std::string& name) {
  std::string s = to_lower(name);
  s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == '_' || c == '-' || c == ' '; }), s.end());
  return s;
}

// Other libraries' names of the same architectures: timm's (Wightman, pytorch-image-models: a
// ViT's width and patch at 224; DeiT's are the same networks), Hugging Face's model ids.
struct Alias {
  const char* alias;
  const char* name;
};
constexpr Alias kAliases[] = {
    {"vit_tiny_patch16_224", "vit_ti_16"},   {"deit_tiny_patch16_224", "vit_ti_16"},
    {"vit_small_patch16_224", "vit_s_16"},   {"deit_small_patch16_224", "vit_s_16"},
    {"vit_base_patch16_224", "vit_b_16"},    {"deit_base_patch16_224", "vit_b_16"},
    {"vit_base_patch32_224", "vit_b_32"},    {"vit_large_patch16_224", "vit_l_16"},
    {"vit_large_patch32_224", "vit_l_32"},   {"mobilenetv2_100", "mobilenet_v2"},
    {"mobilenetv3_large_100", "mobilenet_v3_large"}, {"bert-base-uncased", "bert_base"},
    {"bert-large-uncased", "bert_large"},    {"gpt2-small", "gpt2"},
    {"swin_tiny_patch4_window7_224", "swin_t"}, {"swin_small_patch4_window7_224", "swin_s"},
    {"swin_base_patch4_window7_224", "swin_b"},
    // timm's RegNets (pycls' model zoo, the same designs as torchvision's): regnetx_016 is 1.6 GF.
    {"regnetx_004", "regnet_x_400mf"}, {"regnetx_008", "regnet_x_800mf"}, {"regnetx_016", "regnet_x_1_6gf"},
    {"regnetx_032", "regnet_x_3_2gf"}, {"regnetx_080", "regnet_x_8gf"}, {"regnetx_160", "regnet_x_16gf"},
    {"regnetx_320", "regnet_x_32gf"}, {"regnety_004", "regnet_y_400mf"}, {"regnety_008", "regnet_y_800mf"},
    {"regnety_016", "regnet_y_1_6gf"}, {"regnety_032", "regnet_y_3_2gf"}, {"regnety_080", "regnet_y_8gf"},
    {"regnety_160", "regnet_y_16gf"}, {"regnety_320", "regnet_y_32gf"},
    // timm's names of other networks here: its TensorFlow ports (tf_) have the same layers.
    {"vit_huge_patch14_224", "vit_h_14"}, {"mobilenetv3_small_100", "mobilenet_v3_small"},
    {"mnasnet_050", "mnasnet0_5"}, {"mnasnet_075", "mnasnet0_75"}, {"mnasnet_100", "mnasnet1_0"},
    {"tf_efficientnet_b0", "efficientnet_b0"}, {"tf_efficientnet_b1", "efficientnet_b1"},
    {"tf_efficientnet_b2", "efficientnet_b2"}, {"tf_efficientnet_b3", "efficientnet_b3"},
    {"tf_efficientnet_b4", "efficientnet_b4"}, {"tf_efficientnet_b5", "efficientnet_b5"},
    {"tf_efficientnet_b6", "efficientnet_b6"}, {"tf_efficientnet_b7", "efficientnet_b7"},
    {"tf_efficientnetv2_s", "efficientnet_v2_s"}, {"tf_efficientnetv2_m", "efficientnet_v2_m"},
    {"tf_efficientnetv2_l", "efficientnet_v2_l"},
};

const ZooEntry* exact_entry(const std::string& name) {
  for (const ZooEntry& e : kZoo)
    if (to_lower(name) == e.name) return &e;
  return nullptr;
}

// The exact name (or an alias' target) first: normalising makes regnet_x_1_6gf and regnet_x_16gf one key.
const ZooEntry* find_entry(const std::string& name) {
  if (const ZooEntry* e = exact_entry(name)) return e;
  const std::string key = normalise(name);
  for (const Alias& a : kAliases)
    if (normalise(a.alias) == key) return exact_entry(a.name);
  for (const ZooEntry& e : kZoo)
    if (normalise(e.name) == key) return &e;
  return nullptr;
}

const ZooEntry& entry_or_throw(const std::string& name) {
  if (const ZooEntry* e = find_entry(name)) return *e;
  throw InputError(fmt::format("unknown model '{}'; expected one of {}", name, fmt::join(zoo_model_names(), ", ")));
}

void check_options(const ZooEntry& e, const ModelOptions& o) {
  if (o.input_c < 1 || o.classes < 1)
    throw InputError(fmt::format("{}: channels and classes must be positive, got {} channels and {} classes", e.name,
                                 o.input_c, o.classes));
  if (o.input_h < e.min_size || o.input_w < e.min_size)
    throw InputError(fmt::format("{}: input {}x{} is too small for the model's downsampling; it needs at least {}x{}",
                                 e.name, o.input_h, o.input_w, e.min_size, e.min_size));
}

}  // namespace

Shape correct_pad(ModelBuilder& b, Shape x, int kernel, const std::string& name) {
  const int half = kernel / 2;
  const int top = half - (1 - x.h % 2);
  const int left = half - (1 - x.w % 2);
  return b.zero_padding(x, top, half, left, half, name);
}

std::vector<std::string> zoo_model_names() {
  std::vector<std::string> names;
  for (const ZooEntry& e : kZoo) names.emplace_back(e.name);
  return names;
}

std::vector<std::string> zoo_map_model_names() {
  std::vector<std::string> names;
  for (const ZooEntry& e : kZoo)
    if (e.on_maps) names.emplace_back(e.name);
  return names;
}

bool is_zoo_model(const std::string& name) { return find_entry(name) != nullptr; }

Model build_zoo_model(const std::string& name, const ModelOptions& opts) {
  const ZooEntry& e = entry_or_throw(name);
  check_options(e, opts);
  try {
    return e.build(opts);
  } catch (const InputError& err) {
    if (e.text) throw InputError(fmt::format("{} at {} tokens: {}", e.name, opts.input_h, err.what()));
    throw InputError(fmt::format("{} at {}x{}x{}: {}", e.name, opts.input_h, opts.input_w, opts.input_c, err.what()));
  }
}

ModelOptions default_model_options(const std::string& name) {
  const ZooEntry& e = entry_or_throw(name);
  ModelOptions o;
  o.input_h = e.default_size;
  o.input_w = e.text ? 1 : e.default_size;
  o.input_c = e.text ? 1 : 3;
  o.classes = e.default_classes;
  return o;
}

}  // namespace model_layer
}  // namespace ddlsim
