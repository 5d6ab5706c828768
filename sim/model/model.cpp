#include "model/model.hpp"

#include <algorithm>

namespace ddlsim {
inline namespace model_layer {

const char* to_string(LayerKind kind) {
  switch (kind) {
    case LayerKind::Input: return "Input";
    case LayerKind::Conv2D: return "Conv2D";
    case LayerKind::DepthwiseConv2D: return "DepthwiseConv2D";
    case LayerKind::Dense: return "Dense";
    case LayerKind::BatchNorm: return "BatchNorm";
    case LayerKind::Activation: return "Activation";
    case LayerKind::Pool: return "Pool";
    case LayerKind::Add: return "Add";
    case LayerKind::Multiply: return "Multiply";
    case LayerKind::Concat: return "Concat";
    case LayerKind::Reshape: return "Reshape";
    case LayerKind::Normalization: return "Normalization";
    case LayerKind::LayerNorm: return "LayerNorm";
    case LayerKind::Attention: return "Attention";
    case LayerKind::Embedding: return "Embedding";
    case LayerKind::Dropout: return "Dropout";
    case LayerKind::Permute: return "Permute";
  }
  return "Unknown";
}

std::int64_t Model::params_total() const {
  std::int64_t n = 0;
  for (const auto& l : layers) n += l.params();
  return n;
}

double Layer::weight_elems() const {
  switch (kind) {
    case LayerKind::Conv2D: return double(geom.kernel_h) * geom.kernel_w * in.c * out.c / std::max(geom.groups, 1);
    case LayerKind::DepthwiseConv2D: return double(geom.kernel_h) * geom.kernel_w * in.c;
    case LayerKind::Dense: return double(in.c) * out.c;
    default: return 0;
  }
}

bool Layer::inplace_copies_input() const {
  if (kind != LayerKind::Activation || !inplace) return false;
  for (const char* f : {"swish", "silu", "hard_swish", "relu6", "hard_sigmoid"})
    if (fn == f) return true;
  return false;
}

int Layer::trainable_tensors() const {
  if (params_trainable <= 0) return 0;
  switch (kind) {
    case LayerKind::Conv2D:
    case LayerKind::DepthwiseConv2D:
    case LayerKind::Dense: return double(params_trainable) > weight_elems() ? 2 : 1;
    case LayerKind::BatchNorm:
    case LayerKind::LayerNorm: return params_trainable > out.c ? 2 : 1;
    default: return 1;
  }
}

Model::ParamCounts Model::param_counts() const {
  ParamCounts n;
  for (const auto& l : layers) n.total += l.params(), n.trainable += l.params_trainable;
  return n;
}

std::int64_t Model::params_trainable() const {
  std::int64_t n = 0;
  for (const auto& l : layers) n += l.params_trainable;
  return n;
}

double Model::fwd_flops_per_sample() const {
  double f = 0;
  for (const auto& l : layers) f += l.fwd_flops;
  return f;
}

std::int64_t Model::activation_elems_per_sample() const {
  std::int64_t n = 0;
  for (const auto& l : layers) n += l.out_elems;
  return n;
}

bool Model::reads_tokens() const { return layers.size() > 1 && layers[1].kind == LayerKind::Embedding; }

}  // namespace model_layer
}  // namespace ddlsim
