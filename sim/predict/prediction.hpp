// Composes the three inputs into the figures users ask for: step and epoch time, throughput,
// speed-up over one GPU, scaling efficiency and communication overhead.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "cost/compute.hpp"
#include "cost/memory.hpp"
#include "predict/rests_on.hpp"
#include "predict/uncertainty.hpp"
#include "schedule/step_schedule.hpp"
#include "schedule/step_timing.hpp"
#include "scenario/scenario.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {
inline namespace predict_layer {

struct Prediction {
  std::string model, framework, library, algorithm, device, platform, precision, backend;
  std::string algorithm_run;     // what the buckets' exchanges run ('+'-joined, in bucket order): auto's choice
  long long params_total = 0;
  long long params_trainable = 0;
  Bytes gradient_bytes = 0;
  int ranks = 0, nodes = 0, gpus_per_node = 0;
  int batch_per_gpu = 0, sync_period = 1, buckets = 0;
  long long global_batch = 0;
  long long steps_per_epoch = 0, syncs_per_epoch = 0;
  Seconds step_time_s = 0;       // mean over the epoch's steps
  Seconds compute_time_s = 0;    // mean per step
  Seconds comm_time_s = 0;       // mean per step: exchange durations (overlapped or not)
  Seconds exposed_comm_s = 0;    // mean per step: what the exchanges add to the step
  Seconds input_time_s = 0;      // per step: producing one micro-batch (overlapped by prefetch)
  Seconds input_wait_s = 0;      // mean per step: what the input pipeline adds to the step
  Seconds straggler_wait_s = 0;  // mean per step: waiting for the slowest rank (compute.jitter_cv)
  Seconds epoch_time_s = 0;
  Seconds total_time_s = 0;      // all epochs
  double samples_per_s = 0;      // whole cluster
  Seconds single_gpu_epoch_s = 0;
  double speedup = 1;            // single-GPU epoch time / this epoch time
  double efficiency = 1;         // speedup / ranks
  double comm_overhead = 0;      // exposed_comm_s / step_time_s
  std::string optimizer;
  std::string sharding = "none";      // training.sharding: how the model state is spread (memory, exchanges)
  Bytes activation_memory_bytes = 0;  // per GPU: forward tensors kept for the backward pass
  Bytes memory_per_gpu_bytes = 0;     // per GPU, all of cost/memory.hpp's terms
  Bytes device_memory_bytes = 0;      // capacity of the scenario's device
  bool fits_in_memory = true;         // memory_per_gpu_bytes <= device_memory_bytes
  // Where a step goes (means per step; they add up to step_time_s): compute_time_s (of which
  // contention_s and host_wait_s), then the losses framework_s, interference_s, exposed_comm_s, input_wait_s and
  // straggler_wait_s.
  Seconds interference_s = 0;    // backward pass slowed by overlapped exchanges (cost/library_costs.hpp)
  double interference = 0;       // the library's slow-down fraction used
  Seconds per_call_s = 0;        // the library's cost per collective call used
  double staging_GBps = 0;       // host staging copy rate used (0: none)
  double host_contention = 1;    // CPU ranks sharing a node's cores: compute slow-down factor
  Seconds contention_s = 0;      // the part of compute_time_s that contention adds
  Seconds host_wait_s = 0;       // the part of compute_time_s the GPU waits for its host (compute.host_step_ms)
  Seconds framework_s = 0;       // the framework's host time per step (cost/framework_costs.hpp)
  std::string framework_mode;    // eager or graph
  Seconds negotiation_s = 0;     // before each exchange (Horovod's controller)
  StepPair steps;                // the two kinds of step, for traces
  std::vector<int> rank_kind;    // mixed clusters: each rank's index into steps.kind_sync/kind_local
  std::vector<RestsOn> rests_on; // the defaults it took that a measurement or a key would replace
                                 // (predict/rests_on.hpp; filled where a table shows them: simulate)
  std::optional<Uncertainty> uncertainty;  // the 80 % interval (predict/uncertainty.hpp; filled where a
                                          // report shows it: simulate)
};

// Epoch figures from the two kinds of step: a sync step every k-th micro-batch.
//   steps  = ceil(samples / (batch x ranks)) (floor with drop_last),  syncs = ceil(steps / k)
//   epoch  = syncs x (t_sync + wait) + (steps - syncs) x (t_local + wait_local)
// where wait is the straggler wait of cost/stragglers.hpp (compute.jitter_cv, compute.device_spread)
// over the k micro-batches; where a local step exchanges among the ranks too (sharded units,
// synchronised batch norms: Bucket::each_micro_batch), wait and wait_local are one micro-batch's.
struct EpochShape {
  long long steps = 0;
  long long syncs = 0;
};
EpochShape epoch_shape(long long samples, int batch, int ranks, int sync_period, bool drop_last = false);

// The prediction with the scenario's backend (the one-GPU reference for speed-up uses it too).
Prediction predict(const Scenario& sc);

// The compute profile of each kind of rank (system.hpp rank_kinds) as its device runs it, before
// the kind's host slow-down and compute.time_factor: predict's first and largest part. Scenarios
// that differ only in what it does not read (links, library, the step's cost factors, time_factor,
// interference) can share one: predict(sc, compute_profiles(base)) equals predict(sc).
struct ComputeProfiles {
  std::vector<ComputeProfile> by_kind;
  // What the walks over the layers give, made once here: each profile's passes and buckets (as
  // the scenario fuses its gradients), the model's sums memory_per_gpu reads.
  std::vector<ProfileWalk> walks;
  ModelMemory model_memory;
};
ComputeProfiles compute_profiles(const Scenario& sc);
Prediction predict(const Scenario& sc, const ComputeProfiles& profiles);

// Whether a scenario key leaves the compute profiles alone: the cluster's size (a count of nodes;
// not a mixed cluster's list) and links, the exchange (comm.*), the network model, the backend, the
// epoch's length and sync period, the input pipeline (input.*, but input.dataset, which sets model
// keys).
bool profile_neutral_key(const std::string& key);

// The compute profiles of the last scenario, kept for the next one whose settings differ from its
// only in neutral keys (values or where they were set): a sweep over node counts, networks or
// bucket sizes computes them once a thread. Not for several threads at once.
class ProfileMemo {
 public:
  // `sc` resolved from `settings`.
  const ComputeProfiles& profiles(const Scenario& sc, const Settings& settings);

 private:
  std::optional<Settings> settings_;
  ComputeProfiles profiles_;
};

// The compute profile of one micro-batch on the scenario's device (a mixed cluster: its first
// group's), before contention and stragglers: what `simulate` composes its step from
// (`ddlsim profile` prints it layer by layer).
ComputeProfile device_compute_profile(const Scenario& sc);

}  // namespace predict_layer
}  // namespace ddlsim
