// compute.fusion = pointwise: what torch.compile (TorchInductor) and XLA do to a training step's
// elementwise work. Both generate one kernel for each chain of pointwise operations (XLA's
// "operation fusion", TorchInductor's pointwise fusion), while matrix products and convolutions
// stay library calls (cuBLAS, cuDNN). Here a chain is a run of pointwise layers (activations but
// softmax, adds, multiplies, dropout, copies into another layout, free reshapes) each fed by the
// one before, which nothing else reads (a lone pointwise layer is a chain of one: its own
// operations fuse). Norms, pooling, softmax, attention and learned addends are reductions and stay
// their own kernels (a conservative reading: both compilers fuse some reductions too).
#pragma once
#include <cstddef>
#include <vector>

#include "model/model.hpp"

namespace ddlsim {
inline namespace cost_layer {

bool is_pointwise(const Layer& l);

// Every pointwise layer's chain, each in model order (head first, tail last); a layer is in one.
std::vector<std::vector<std::size_t>> pointwise_chains(const Model& m);

}  // namespace cost_layer
}  // namespace ddlsim
