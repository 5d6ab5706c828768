// A model of a given parameter count, for questions asked about model size alone ("a model of P
// parameters on this network"): the base model widened (or narrowed) uniformly, like a Wide ResNet.
// Every layer's channel count is multiplied by w = sqrt(P / P0), P0 the base model's parameters:
//   parameters (trainable and not) x w^2, forward operations x w^2, activation elements x w.
// The layer mix, the order in which gradients become ready and the operations per parameter stay
// those of the base model; the total is P exactly (the rounding difference goes to the layer with
// the most trainable parameters). Shapes are kept (they only name the layers' geometry).
#pragma once
#include "model/model.hpp"

namespace ddlsim {
inline namespace model_layer {

// Throws InputError when `params` is not a positive number or the base has no parameters.
// The largest synthetic model: 10^13 parameters (40 TB of FP32 weights, past any model trained).
constexpr double kMaxSyntheticParams = 1e13;
Model widen_to_params(const Model& base, double params);

}  // namespace model_layer
}  // namespace ddlsim
