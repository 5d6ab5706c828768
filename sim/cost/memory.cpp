#include "cost/memory.hpp"

#include <algorithm>
#include <string_view>

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
  if (m.layers[i].fn == std::string_view("gelu_new")) n += 3 * m.layers[i].out_elems;
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
  return weights + gradients + optimizer_state + accumulator + activations + comm_buffers + gathered + reserved;
}

double largest_unit_params(const Model& m, Bytes unit_bytes, double elem_bytes) {
  double largest = 0, open = 0;
  for (std::size_t i = m.layers.size(); i-- > 0;) {
    open += double(m.layers[i].params_trainable);
    if (unit_bytes > 0 && open * elem_bytes >= unit_bytes) {
      largest = std::max(largest, open);
      open = 0;
    }
  }
  return std::max(largest, open);
}

namespace {

// The replicated estimate's state spread over the shards (header: "Sharded").
void shard_state(MemoryEstimate& est, const Model& m, double trainable, const Execution& e, int shards) {
  const Sharding s = e.sharding;
  if (!shards_optimizer(s) || shards <= 1) return;
  const bool mixed = e.precision == Precision::Mixed;
  const double n = shards;
  est.optimizer_state /= n;
  const Bytes master = mixed ? trainable * 4 : 0;  // FP32 master weights: the optimizer's state
  est.weights -= master - master / n;
  if (!shards_gradients(s)) return;
  const double unit = largest_unit_params(m, e.bucket_bytes, e.gradient_elem_bytes());
  est.gradients /= n;
  // Micro-batches add into the rank's gradient shard; under FSDP's no_sync() the whole gradients
  // accumulate ("accumulate the full model gradients (instead of gradient shards)", torch 1.13's
  // FullyShardedDataParallel.no_sync).
  if (!e.no_sync) est.accumulator /= n;
  est.gathered = unit * e.gradient_elem_bytes();
  if (!gathers_in_backward(s)) return;
  const Bytes working = est.weights - master / n;  // the parameters computed with, whole
  est.weights = master / n + working / n;
  est.gathered += 2 * unit * e.working_param_bytes();
}

}  // namespace

MemoryEstimate memory_per_gpu(const Model& m, const Execution& e, bool scores_saved, int shard_ranks) {
  return memory_per_gpu(m, model_memory(m, scores_saved, e.fw.recompute), e, shard_ranks);
}

ModelMemory model_memory(const Model& m, bool scores_saved, bool recompute) {
  return {m.param_counts(),
          recompute ? recomputed_saved_elems_per_sample(m, scores_saved) : saved_elems_per_sample(m, scores_saved)};
}

MemoryEstimate memory_per_gpu(const Model& m, const ModelMemory& mm, const Execution& e, int shard_ranks) {
  const bool mixed = e.precision == Precision::Mixed;
  const Model::ParamCounts& params = mm.params;
  const double trainable = double(params.trainable);
  MemoryEstimate est;
  est.weights = double(params.total) * 4 + (mixed ? trainable * 2 : 0);
  est.gradients = trainable * e.gradient_elem_bytes();
  if (e.algorithm != Algorithm::ParameterServer) est.optimizer_state = trainable * optimizer_state_bytes(e.optimizer);
  if (e.sync_period > 1) est.accumulator = est.gradients;
  const std::int64_t saved = mm.saved_per_sample;
  est.activations = double(saved) * e.batch_per_gpu * (mixed ? 2 : 4);
  est.comm_buffers = e.bucket_bytes > 0 ? std::min(e.bucket_bytes, est.gradients) : est.gradients;
  shard_state(est, m, trainable, e, shard_ranks);
  return est;
}

}  // namespace cost_layer
}  // namespace ddlsim
