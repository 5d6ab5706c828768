// Execution input: how training runs (framework preset, precision, batch, synchronisation,
// gradient exchange, data loading), independent of the model and of the machine.
#pragma once
#include <string>

#include "core/units.hpp"
#include "spec/comm.hpp"
#include "spec/framework.hpp"
#include "spec/optimizer.hpp"
#include "spec/precision.hpp"

namespace ddlsim {
inline namespace spec_layer {

enum class DataFormat { Synthetic, Records, Files };  // Records: TFRecord-like shards

// What the exchanged gradients are made of (comm.gradient_dtype). Mixed precision as the frameworks
// run it keeps FP32 master weights, so gradients are FP32 unless a compression asks for FP16:
// PyTorch AMP ("gradients ... are float32", torch.cuda.amp docs; DDP allreduces param.grad),
// TensorFlow's mixed_float16 policy (variables stay float32), tf_cnn_benchmarks --use_fp16
// (fp16_vars off by default), Horovod (Compression.none unless Compression.fp16 is passed).
enum class GradientDtype { FP32, FP16 };

// How the model state is spread over the data-parallel ranks (training.sharding): replicated (none),
// DeepSpeed ZeRO stages 1-3 (Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training
// Trillion Parameter Models", SC 2020: optimizer state; + gradients; + parameters), PyTorch FSDP's
// FULL_SHARD (as ZeRO-3), SHARD_GRAD_OP (parameters gathered for forward and kept through backward,
// as ZeRO-2) and HYBRID_SHARD (FULL_SHARD inside a node, replicated across nodes).
enum class Sharding { None, Zero1, Zero2, Zero3, FsdpFull, FsdpGradOp, FsdpHybrid };
const char* to_string(Sharding s);
// The optimizer state (and, with mixed precision, the FP32 master weights) lives on one shard.
inline bool shards_optimizer(Sharding s) { return s != Sharding::None; }
// Gradients are reduce-scattered: each rank keeps its shard's.
inline bool shards_gradients(Sharding s) { return s != Sharding::None && s != Sharding::Zero1; }
// FSDP's modes (no_sync() is theirs: DeepSpeed refuses it under gradient partitioning).
inline bool is_fsdp(Sharding s) {
  return s == Sharding::FsdpFull || s == Sharding::FsdpGradOp || s == Sharding::FsdpHybrid;
}
// Parameters are sharded between uses: gathered unit by unit before the forward pass (and the
// backward pass, but for SHARD_GRAD_OP, which keeps them from forward to backward).
inline bool shards_parameters(Sharding s) {
  return s == Sharding::Zero3 || s == Sharding::FsdpFull || s == Sharding::FsdpGradOp || s == Sharding::FsdpHybrid;
}
inline bool gathers_in_backward(Sharding s) {
  return s == Sharding::Zero3 || s == Sharding::FsdpFull || s == Sharding::FsdpHybrid;
}

// Whether gradients go through host memory around each exchange (cost/library_costs.hpp).
enum class HostStaging { Auto, On, Off };  // Auto: the library's usual way
// MPI and gloo on GPUs copy each buffer to host memory and reduce it there (Auto); GPU ranks only.
inline bool staged_through_host(HostStaging s, Library l, bool cpu_ranks) {
  return !cpu_ranks && (s == HostStaging::On || (s == HostStaging::Auto && (l == Library::Mpi || l == Library::Gloo)));
}

// What each exchange costs the step beyond its network time, when the user overrides the
// library's defaults (cost/library_costs.hpp); a negative value keeps the default.
struct StepCostOverrides {
  double interference = -1;  // comm.interference: compute slow-down while an exchange overlaps it
  Seconds per_call_s = -1;   // comm.per_call_us: fixed cost of one collective call
  HostStaging staging = HostStaging::Auto;  // comm.host_staging
  double time_p10 = 0, time_p90 = 0;  // comm.time_p10 and comm.time_p90: a fitted spread of the
                                      // exchanges' time (predict/uncertainty.hpp); 0: none
  double exchange_time_factor = 1;  // every exchange's rounds and library time times this: what an
                                    // uncertainty range sets (predict/uncertainty.hpp); no key
};

struct Execution {
  std::string framework;           // preset name, for the report
  Precision precision = Precision::FP32;
  int batch_per_gpu = 32;
  int sync_period = 1;             // allreduce every k micro-batches (gradient accumulation)
  Optimizer optimizer = Optimizer::Momentum;
  long long samples = 0;           // training samples per epoch
  int epochs = 1;
  bool drop_last = false;          // an epoch's last partial step dropped (training.drop_last)
  Library library = Library::Nccl;
  Algorithm algorithm = Algorithm::Ring;  // Auto: the library's choice per exchange (cost/decision.hpp)
  Protocol protocol = Protocol::Simple;   // NCCL's protocol; Auto: its tuning model's per call
  bool ring_steps_in_flight = true;       // NCCL's rings across nodes pipelined (comm.ring_steps)
  Bytes eager_limit_bytes = 0;            // MPI's eager sends (comm.eager_limit_kib)
  Bytes bucket_bytes = 25 * kMiB;  // 0: one packed exchange of all gradients
  bool overlap = true;             // buckets start as they fill during the backward pass
  Seconds cycle_time_s = 0;        // framework coordination delay before each exchange
  int ps_servers = 1;
  DataFormat format = DataFormat::Synthetic;
  int loader_workers = 4;
  StepCostOverrides step_costs;
  Bytes first_bucket_bytes = 0;    // PyTorch DDP: the first bucket's own cap (0: as the others)
  GradientDtype gradient_dtype = GradientDtype::FP32;
  bool sync_batchnorm = false;     // batch norms synchronised across the ranks (model.sync_bn)
  Sharding sharding = Sharding::None;  // training.sharding
  bool no_sync = false;                // FSDP's micro-batches between updates under no_sync() (training.no_sync)
  bool prefetch_forward = true;        // comm.prefetch: a unit's gather issued while the one before
  bool prefetch_backward = true;       // it computes, in each pass
  FrameworkSpec fw;                // the framework's own costs (spec/framework.hpp)

  double gradient_elem_bytes() const { return gradient_dtype == GradientDtype::FP16 ? 2 : 4; }
  // What a sharded mode gathers and reduce-scatters: parameters in the compute precision (FP16 under
  // mixed precision: FSDP's MixedPrecision param_dtype, DeepSpeed's fp16 weights), gradients as
  // gradient_elem_bytes.
  double working_param_bytes() const { return precision == Precision::Mixed ? 2 : 4; }

  CommMethod comm() const { return {library, algorithm, protocol, ring_steps_in_flight, eager_limit_bytes}; }
};

}  // namespace spec_layer
}  // namespace ddlsim
