#include "cost/memory.hpp"

#include <algorithm>

#include "cost/compute.hpp"
#include "spec/optimizer.hpp"

namespace ddlsim {
inline namespace cost_layer {

namespace {

bool gradient_needs_input(LayerKind k) {
  switch (k) {
    case LayerKind::Conv2D:
    case LayerKind::DepthwiseConv2D:
    case LayerKind::Dense:
    case LayerKind::BatchNorm:
    case LayerKind::LayerNorm:
    case LayerKind::Attention:  // q, k, v (the math path's scores: saved_elems_per_sample's scores_saved)
    case LayerKind::Pool:
    case LayerKind::Multiply: return true;
    default: return false;
  }
}

}  // namespace

// What layer i keeps for the backward pass, elements per sample.
std::int64_t saved_by_layer(const Model& m, std::size_t i, bool scores_saved) {
  std::int64_t n = 0;
  const bool next_needs = i + 1 < m.layers.size() && gradient_needs_input(m.layers[i + 1].kind);
  if (m.layers[i].kind == LayerKind::Activation || next_needs) n += m.layers[i].out_elems;
  // gelu_new's operations save three more tensors of its size for autograd: tanh's result, 1 + it
  // and 0.5 x (cost/compute.cpp gelu_new_kernels).
  if (m.layers[i].fn == "gelu_new") n += 3 * m.layers[i].out_elems;
  if (scores_saved) n += m.layers[i].inner_elems;
  return n;
}

std::int64_t saved_elems_per_sample(const Model& m, bool scores_saved) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < m.layers.size(); ++i) n += saved_by_layer(m, i, scores_saved);
  return n;
}

std::int64_t recomputed_saved_elems_per_sample(const Model& m, bool scores_saved) {
  std::int64_t kept = 0, segment = 0, largest = 0;
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    segment += saved_by_layer(m, i, scores_saved);
    if (m.layers[i].kind != LayerKind::Add) continue;
    kept += m.layers[i].out_elems;
    largest = std::max(largest, segment);
    segment = 0;
  }
  return kept + std::max(largest, segment);
}

Bytes MemoryEstimate::total() const {
  return weights + gradients + optimizer_state + accumulator + activations + comm_buffers + reserved;
}

MemoryEstimate memory_per_gpu(const Model& m, const Execution& e, bool scores_saved) {
  const bool mixed = e.precision == Precision::Mixed;
  const double trainable = double(m.params_trainable());
  MemoryEstimate est;
  est.weights = double(m.params_total()) * 4 + (mixed ? trainable * 2 : 0);
  est.gradients = trainable * e.gradient_elem_bytes();
  if (e.algorithm != Algorithm::ParameterServer) est.optimizer_state = trainable * optimizer_state_bytes(e.optimizer);
  if (e.sync_period > 1) est.accumulator = est.gradients;
  const std::int64_t saved =
      e.fw.recompute ? recomputed_saved_elems_per_sample(m, scores_saved) : saved_elems_per_sample(m, scores_saved);
  est.activations = double(saved) * e.batch_per_gpu * (mixed ? 2 : 4);
  est.comm_buffers = e.bucket_bytes > 0 ? std::min(e.bucket_bytes, est.gradients) : est.gradients;
  return est;
}

}  // namespace cost_layer
}  // namespace ddlsim
