// Memory model: the device memory one rank needs at the peak of a training step (end of the
// forward pass), so that a batch that cannot fit is flagged. First-order accounting, per rank:
//   model state  = weights x 4 B (+ 2 B FP16 copy of trainable weights when mixed)
//                + gradients (trainable x 4 B, 2 B when mixed)
//                + optimizer state (trainable x 0 / 4 / 8 B for sgd / momentum / adam; on the
//                  servers, not the workers, with a parameter server)
//                + a gradient accumulator (gradient bytes) when syncing every k > 1 micro-batches
//   activations  = saved elements per sample x batch x 4 B (2 B when mixed); with recomputation
//                  the blocks' inputs and one block's saved elements
//   comm buffers = one fusion buffer / bucket (bucket bytes, at most the gradients), or a packed
//                  copy of all gradients when they are exchanged in one piece
//   reserved     = 1 GiB: CUDA context, cuDNN/cuBLAS workspaces, allocator slack
// Sharded (training.sharding over `shard_ranks` ranks; ZeRO, SC 2020, Figure 1 and section 5):
//   zero1 and up   optimizer state and, with mixed precision, the FP32 master weights / shard_ranks
//   zero2 and up   + gradients (and the accumulator, but under FSDP's no_sync) / shard_ranks, and one
//                  unit's full gradients before its reduce-scatter
//   zero3, fsdp_full and fsdp_hybrid  + the remaining weights / shard_ranks, and two units gathered
//                  at once (the one computing and the one prefetched: FSDP's limit_all_gathers)
//   fsdp_grad_op   weights whole at the peak (gathered for the forward pass, kept through backward)
// A unit is the largest group of consecutive layers of at most comm.bucket_mb of gradients (or the
// largest layer).
#pragma once
#include <cstdint>

#include "core/units.hpp"
#include "model/model.hpp"
#include "spec/execution.hpp"

namespace ddlsim {
inline namespace cost_layer {

constexpr Bytes kReservedDeviceBytes = kGiB;

// Elements per sample kept from the forward pass for the backward pass: the output of every
// activation (its gradient needs it) and every output consumed next by a layer whose gradient
// needs its input (convolution, dense, batch norm, pooling, multiply). Outputs only passed on to
// an activation or an add are freed (fused batch norm, in-place ReLU). Attention's score matrices
// are kept only on the math path (`scores_saved`; fused attention recomputes them in backward).
std::int64_t saved_elems_per_sample(const Model& m, bool scores_saved = false);

// The same with activations recomputed (training.recompute = full), each residual block a
// checkpoint: every residual add's output kept, plus, while one block is
// recomputed in the backward pass, what that block saves (the largest block's). A model without
// residual adds is one block: no memory saved.
std::int64_t recomputed_saved_elems_per_sample(const Model& m, bool scores_saved = false);

struct MemoryEstimate {
  Bytes weights = 0;
  Bytes gradients = 0;
  Bytes optimizer_state = 0;
  Bytes accumulator = 0;
  Bytes activations = 0;
  Bytes comm_buffers = 0;
  Bytes gathered = 0;  // sharded parameters' unit buffers in flight (and a unit's full gradients)
  Bytes reserved = kReservedDeviceBytes;

  Bytes total() const;
};

// `shard_ranks`: the ranks one copy of the state is sharded over under e.sharding (all the ranks,
// or a node's GPUs for fsdp_hybrid); ignored without sharding.
MemoryEstimate memory_per_gpu(const Model& m, const Execution& e, bool scores_saved = false, int shard_ranks = 1);

// What memory_per_gpu reads of a model by walking its layers: its parameter counts, and what a
// sample keeps for the backward pass (saved_elems_per_sample, or with `recompute` its
// recomputed_saved_elems_per_sample). Summed once where many predictions share a model.
struct ModelMemory {
  Model::ParamCounts params;
  std::int64_t saved_per_sample = 0;
};
ModelMemory model_memory(const Model& m, bool scores_saved, bool recompute);
// memory_per_gpu with those sums given (`mm`: model_memory(m, scores_saved, e.fw.recompute)).
MemoryEstimate memory_per_gpu(const Model& m, const ModelMemory& mm, const Execution& e, int shard_ranks);

// The parameters of the largest unit a sharded mode gathers at once: consecutive layers from the
// last, closed once they hold at least `unit_bytes` of gradients (`elem_bytes` each) as the
// step's buckets are; all of them when unit_bytes is 0.
double largest_unit_params(const Model& m, Bytes unit_bytes, double elem_bytes);

}  // namespace cost_layer
}  // namespace ddlsim
