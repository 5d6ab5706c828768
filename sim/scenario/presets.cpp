#include "scenario/presets.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace ddlsim {
inline namespace scenario_layer {

// The framework's own costs (spec/framework.hpp, cost/framework_costs.hpp). Buffer copies: Horovod
// copies the tensors into its fusion buffer and out of it after the allreduce (docs, "Tensor
// Fusion", steps 3 and 5), batched up to 160 tensors a kernel (horovod PR #2435); PyTorch DDP copies
// each gradient into its bucket in the autograd hook and back after the allreduce unless
// gradient_as_bucket_view=True (torch 1.13 DistributedDataParallel docs; Reducer::mark_variable_ready,
// copy_bucket_to_grad); TensorFlow's packed all-reduce concatenates and splits the gradients;
// per-variable transfers (TF1 benchmarks, LBANN, parameter servers) copy nothing. Negotiation:
// Horovod's controller coordinates every cycle (docs, "Horovod concepts"; response cache: two
// bit-vector allreduces, horovod/common/response_cache.cc CacheCoordinator::sync). Mode: PyTorch
// runs eagerly; TensorFlow presets (Horovod's original framework too) run graphs.
const std::vector<FrameworkPreset>& framework_presets() {
  static const std::vector<FrameworkPreset> presets = {
      // NCCL's own choice (`auto`: ring, double binary tree since NCCL 2.4, NVLS since 2.17) for the
      // presets of today's frameworks; `horovod` (0.20 and before, back to 2017's NCCL 2.0 with
      // rings only) and the TF1 presets keep the ring.
      {"horovod", Library::Nccl, Algorithm::Ring, 64, true, 5, 1,
       "Horovod 0.20 and before: ring allreduce (NCCL/MPI), 64 MB tensor-fusion buffer, 5 ms cycle, overlapped "
       "with the backward pass", 0, FrameworkMode::Graph, BufferCopies::Batched, true},
      // Horovod 0.21 changed its defaults (changelog: HOROVOD_FUSION_THRESHOLD 64 -> 128 MB,
      // HOROVOD_CYCLE_TIME 5 -> 1 ms); `horovod` keeps the earlier ones (0.20 and before).
      {"horovod021", Library::Nccl, Algorithm::Auto, 128, true, 1, 1,
       "Horovod 0.21 and later: the library's own allreduce (NCCL: ring, tree or NVLS), 128 MB tensor-fusion "
       "buffer, 1 ms cycle, overlapped with the backward pass", 0, FrameworkMode::Graph, BufferCopies::Batched, true},
      // PyTorch DDP rebuilds its buckets after the first iteration in the order gradients became
      // ready, the first capped at dist._DEFAULT_FIRST_BUCKET_BYTES = 1 MiB and the others at
      // bucket_cap_mb = 25 (torch 1.13 nn/parallel/distributed.py and Reducer::rebuild_buckets);
      // ddlsim models the steady state after that rebuild.
      {"pytorch_ddp", Library::Nccl, Algorithm::Auto, 25, true, 0, 1,
       "PyTorch DDP: 25 MB buckets (the first 1 MB) allreduced as they fill during the backward pass", 1,
       FrameworkMode::Eager, BufferCopies::PerTensor},
      {"tf_mirrored", Library::Nccl, Algorithm::Auto, 0, false, 0, 1,
       "TF MultiWorkerMirroredStrategy with model.fit: one packed allreduce after the backward pass", 0,
       FrameworkMode::Graph, BufferCopies::Batched},
      {"tf_custom_accum", Library::Nccl, Algorithm::Auto, 0, false, 0, 4,
       "TF custom training loop accumulating gradients, one packed allreduce every 4 batches", 0,
       FrameworkMode::Graph, BufferCopies::Batched},
      {"tf_ps", Library::Grpc, Algorithm::ParameterServer, 0, false, 0, 1,
       "TF ParameterServerStrategy: push gradients to and pull weights from the servers"},
      // LBANN starts a non-blocking Aluminum allreduce (NCCL backend: ring) for each layer's
      // gradients as soon as that layer's backward step ends: no fusion (1-byte buckets: one a layer).
      {"lbann", Library::Nccl, Algorithm::Auto, 1.0 / (1024 * 1024), true, 0, 1,
       "LBANN with Aluminum (NCCL): one non-blocking allreduce per layer, started as the layer's "
       "backward step ends"},
      // Tarantella fuses gradients into buffers of its fusion threshold (32 KiB by default) and
      // allreduces each with GPI-2 recursive halving as soon as its gradients are ready.
      {"tarantella", Library::Gpi2, Algorithm::HalvingDoubling, 32.0 / 1024, true, 0, 1,
       "Tarantella (GPI-2): 32 KiB fusion buffers, recursive halving-doubling allreduce, overlapped "
       "with the backward pass", 0, FrameworkMode::Graph, BufferCopies::Batched},
      // TensorFlow 1 tf_cnn_benchmarks (2017), used by `ddlsim validate`: every variable is its own
      // transfer (1 KiB buckets ~ one per layer). parameter_server pushes each gradient as it is
      // ready; the replicated modes sum the towers' gradients first, after the whole backward pass.
      {"tf1_ps", Library::Grpc, Algorithm::ParameterServer, 1.0 / 1024, true, 0, 1,
       "TF1 tf_cnn_benchmarks variable_update=parameter_server: per-variable push and pull through "
       "the parameter server (one per node), overlapped with the backward pass"},
      {"tf1_replicated", Library::Nccl, Algorithm::Ring, 1.0 / 1024, false, 0, 1,
       "TF1 tf_cnn_benchmarks variable_update=replicated: per-variable allreduce of the summed tower "
       "gradients once every tower has finished its backward pass (not overlapped)"},
      {"tf1_distributed_replicated", Library::Grpc, Algorithm::Hierarchical, 1.0 / 1024, false, 0, 1,
       "TF1 tf_cnn_benchmarks distributed_replicated: gradients summed inside each node, then "
       "exchanged between nodes through parameter servers on every node (ring-equivalent traffic), "
       "after the backward pass (not overlapped)"},
  };
  return presets;
}

const FrameworkPreset& find_preset(const std::string& name, const std::string& key) {
  const std::string n = to_lower(name);
  const auto& all = framework_presets();
  auto it = std::find_if(all.begin(), all.end(), [&](const FrameworkPreset& p) { return p.name == n; });
  if (it == all.end())
    throw_unknown(key, name, "framework preset", names_of(all, [](const FrameworkPreset& p) { return p.name; }));
  return *it;
}

}  // namespace scenario_layer
}  // namespace ddlsim
