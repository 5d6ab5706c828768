// Builders of the individual zoo models (zoo_*.cpp); zoo.cpp maps names onto them and checks
// the input size first. Each follows the Keras applications layout so parameter counts match
// (the torchvision layout where a file says so).
#pragma once
#include <string>

#include "model/builder.hpp"
#include "model/model.hpp"

namespace ddlsim {
inline namespace model_layer {

Model build_resnet18(const ModelOptions& o);
Model build_resnet34(const ModelOptions& o);
Model build_resnet50(const ModelOptions& o);
Model build_resnet101(const ModelOptions& o);
Model build_resnet152(const ModelOptions& o);
Model build_alexnet(const ModelOptions& o);
Model build_efficientnet_b0(const ModelOptions& o);
Model build_efficientnet_b1(const ModelOptions& o);
Model build_efficientnet_b2(const ModelOptions& o);
Model build_efficientnet_b3(const ModelOptions& o);
Model build_efficientnet_b4(const ModelOptions& o);
Model build_efficientnet_b5(const ModelOptions& o);
Model build_efficientnet_b6(const ModelOptions& o);
Model build_efficientnet_b7(const ModelOptions& o);
Model build_efficientnet_widese_b0(const ModelOptions& o);
Model build_efficientnet_widese_b4(const ModelOptions& o);
Model build_efficientnet_v2_s(const ModelOptions& o);
Model build_efficientnet_v2_m(const ModelOptions& o);
Model build_efficientnet_v2_l(const ModelOptions& o);
Model build_mobilenet_v2(const ModelOptions& o);
Model build_mobilenet_v3_large(const ModelOptions& o);
Model build_swin_t(const ModelOptions& o);
Model build_swin_s(const ModelOptions& o);
Model build_swin_b(const ModelOptions& o);
Model build_regnet_x_400mf(const ModelOptions& o);
Model build_regnet_x_800mf(const ModelOptions& o);
Model build_regnet_x_1_6gf(const ModelOptions& o);
Model build_regnet_x_3_2gf(const ModelOptions& o);
Model build_regnet_x_8gf(const ModelOptions& o);
Model build_regnet_x_16gf(const ModelOptions& o);
Model build_regnet_x_32gf(const ModelOptions& o);
Model build_regnet_y_400mf(const ModelOptions& o);
Model build_regnet_y_800mf(const ModelOptions& o);
Model build_regnet_y_1_6gf(const ModelOptions& o);
Model build_regnet_y_3_2gf(const ModelOptions& o);
Model build_regnet_y_8gf(const ModelOptions& o);
Model build_regnet_y_16gf(const ModelOptions& o);
Model build_regnet_y_32gf(const ModelOptions& o);
Model build_regnet_y_128gf(const ModelOptions& o);
Model build_wide_resnet50_2(const ModelOptions& o);
Model build_resnext50_32x4d(const ModelOptions& o);
Model build_resnext101_32x8d(const ModelOptions& o);
Model build_resnext101_64x4d(const ModelOptions& o);
Model build_resnext101_32x4d(const ModelOptions& o);
Model build_se_resnext101_32x4d(const ModelOptions& o);
Model build_inception_v3(const ModelOptions& o);
Model build_vgg11(const ModelOptions& o);
Model build_vgg13(const ModelOptions& o);
Model build_vgg16(const ModelOptions& o);
Model build_vgg19(const ModelOptions& o);
Model build_densenet121(const ModelOptions& o);
Model build_densenet169(const ModelOptions& o);
Model build_densenet201(const ModelOptions& o);
Model build_vit_b_16(const ModelOptions& o);
Model build_vit_b_32(const ModelOptions& o);
Model build_vit_l_16(const ModelOptions& o);
Model build_vit_l_32(const ModelOptions& o);
Model build_mobilenet_v3_small(const ModelOptions& o);
Model build_wide_resnet101_2(const ModelOptions& o);
Model build_vgg11_bn(const ModelOptions& o);
Model build_vgg13_bn(const ModelOptions& o);
Model build_vgg16_bn(const ModelOptions& o);
Model build_vgg19_bn(const ModelOptions& o);
Model build_densenet161(const ModelOptions& o);
Model build_vit_h_14(const ModelOptions& o);
Model build_mnasnet0_5(const ModelOptions& o);
Model build_mnasnet0_75(const ModelOptions& o);
Model build_mnasnet1_0(const ModelOptions& o);
Model build_mnasnet1_3(const ModelOptions& o);
Model build_squeezenet1_0(const ModelOptions& o);
Model build_squeezenet1_1(const ModelOptions& o);
Model build_convnext_tiny(const ModelOptions& o);
Model build_convnext_small(const ModelOptions& o);
Model build_convnext_base(const ModelOptions& o);
Model build_convnext_large(const ModelOptions& o);
Model build_vit_s_16(const ModelOptions& o);
Model build_vit_ti_16(const ModelOptions& o);
Model build_gpt2_small(const ModelOptions& o);
Model build_gpt2_medium(const ModelOptions& o);
Model build_gpt2_large(const ModelOptions& o);
Model build_gpt2_xl(const ModelOptions& o);
Model build_gpt3_6_7b(const ModelOptions& o);
Model build_bert_base(const ModelOptions& o);
Model build_bert_large(const ModelOptions& o);
Model build_small_cnn(const ModelOptions& o);

// Keras `correct_pad` + ZeroPadding2D: pads so that a stride-2 'valid' window of `kernel`
// gives ceil(in / 2) outputs, as in EfficientNet and MobileNetV2.
Shape correct_pad(ModelBuilder& b, Shape x, int kernel, const std::string& name);

inline Shape input_shape(const ModelOptions& o) { return Shape{o.input_h, o.input_w, o.input_c}; }

}  // namespace model_layer
}  // namespace ddlsim
