// The optimizer's footprint: state kept per trainable parameter and memory traffic of one update
// (FP32 master weights). sgd: w -= lr g. momentum: m = b m + g; w -= lr m. adam: m, v and w.
#pragma once
#include "core/units.hpp"

namespace ddlsim {
inline namespace spec_layer {

enum class Optimizer { Sgd, Momentum, Adam };

inline const char* to_string(Optimizer o) {
  return o == Optimizer::Sgd ? "sgd" : o == Optimizer::Momentum ? "momentum" : "adam";
}

// Bytes of optimizer state per trainable parameter: 0, 4 (momentum), 8 (Adam's m and v).
inline Bytes optimizer_state_bytes(Optimizer o) {
  return o == Optimizer::Sgd ? 0.0 : o == Optimizer::Momentum ? 4.0 : 8.0;
}

// Bytes read and written per trainable parameter by one update: weight and gradient read, weight
// written (12), plus each 4-byte state read and written.
inline Bytes optimizer_update_bytes(Optimizer o) { return 12.0 + 2.0 * optimizer_state_bytes(o); }

}  // namespace spec_layer
}  // namespace ddlsim
