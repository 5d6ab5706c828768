#include "ops/autocast.hpp"

namespace ddlsim {
inline namespace ops_layer {

namespace {

enum class Cast { ToHalf, ToFloat, Keep, Promote, Float, FloatInside };

// What autocast does with a layer's input (autocast.hpp).
Cast rule(const Layer& l) {
  switch (l.kind) {
    case LayerKind::Conv2D:
    case LayerKind::DepthwiseConv2D:
    case LayerKind::Dense:
    case LayerKind::Attention: return Cast::ToHalf;
    case LayerKind::LayerNorm: return Cast::ToFloat;
    case LayerKind::Activation:
      if (l.fn == "gelu_new") return Cast::FloatInside;  // its pow autocasts to FP32 (ops/layer_ops.cpp)
      return l.fn == "softmax" || l.fn == "softplus" ? Cast::ToFloat : Cast::Keep;
    case LayerKind::Embedding: return Cast::Float;
    case LayerKind::Add:
    case LayerKind::Multiply:
    case LayerKind::Concat: return Cast::Promote;
    default: return Cast::Keep;
  }
}

// The parameters an FP16 op casts: its own weights and bias, or a tied layer's weights and its own bias.
double cast_weights(const Layer& l) {
  const double own = double(l.params_trainable), weights = l.weight_elems();
  return own < weights ? weights + own : own;
}

}  // namespace

std::vector<ActivationBytes> activation_bytes(const Model& m, Precision p, bool autocast) {
  const double half = p == Precision::Mixed ? 2 : 4;
  std::vector<ActivationBytes> out(m.layers.size(), ActivationBytes{half, half, 0});
  if (p != Precision::Mixed || !autocast) return out;
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const Layer& l = m.layers[i];
    // The input's width, averaged over the producers' outputs (a parameter operand, as ViT's
    // position table, is read as the layer's weights).
    double elems = 0, bytes = 0;
    for (int j : l.inputs) {
      elems += double(m.layers[std::size_t(j)].out_elems);
      bytes += double(m.layers[std::size_t(j)].out_elems) * out[std::size_t(j)].out;
    }
    const double in = elems > 0 ? bytes / elems : half;
    ActivationBytes& a = out[i];
    a.in = in;
    switch (rule(l)) {
      case Cast::ToHalf:
      case Cast::ToFloat: {
        const double target = rule(l) == Cast::ToHalf ? 2 : 4;
        if (in != target) a.cast_from = in;
        a.in = a.out = target;
        if (rule(l) == Cast::ToHalf) a.cast_weights = cast_weights(l);
        break;
      }
      case Cast::Float:
      case Cast::FloatInside: a.out = 4; break;
      case Cast::Promote: a.out = in > 2 || l.params_trainable > 0 ? 4 : 2; break;  // FP32 parameter operand
      case Cast::Keep: a.out = in; break;
    }
  }
  return out;
}

}  // namespace ops_layer
}  // namespace ddlsim
