// The training-step schedule one rank runs, shared by every backend:
//   input (prefetched) | forward | backward, layers in reverse | bucket exchanges | optimizer
// Gradients are gathered into buckets in reverse layer order as the backward pass produces them;
// a bucket is ready when the layer that fills it has finished its backward kernels. Synchronised
// batch norms (model.sync_bn) add exchanges of their statistics that the pass waits for.
#pragma once
#include <vector>

#include "core/units.hpp"
#include "cost/compute.hpp"
#include "cost/framework_costs.hpp"
#include "cost/library_costs.hpp"
#include "spec/comm.hpp"
#include "spec/execution.hpp"

namespace ddlsim {
inline namespace schedule_layer {

// The ranks an exchange runs among: all of them, the GPUs of each node (one group a node, at once),
// or one GPU of each node (one group per local rank, at once, the node's NICs shared: fsdp_hybrid's
// replicas).
enum class RankGroup { All, Node, AcrossNodes };

// One exchange on the communication stream: a bucket of gradients, or a synchronised layer's
// statistics (`blocking`: it starts as soon as its pass reaches it, and the pass waits for its end),
// or a sharded mode's parameter all-gather (blocking, issued ahead of where its pass needs it).
struct Bucket {
  Bytes bytes = 0;       // the collective's size as nccl-tests counts it (an allgather: its output)
  Seconds ready_s = 0;   // after the start of the backward pass (in_forward: of the forward pass)
  int first_layer = 0;   // lowest model index of a layer whose gradients it holds
  int last_layer = 0;    // highest
  int tensors = 0;       // gradient tensors it holds
  Collective collective = Collective::Allreduce;
  bool blocking = false;
  bool in_forward = false;
  Seconds needed_s = -1;   // a blocking one: where its pass waits for it (as ready_s); -1: at ready_s
  bool parameters = false; // a sharded unit's parameters (all-gathered), not gradients or statistics
  RankGroup group = RankGroup::All;
  // Runs in every micro-batch's step, not only in the step that updates the weights: a local
  // (accumulating) step runs it too. Synchronised batch norms' statistics; under sharding with
  // accumulation, gradients that are reduce-scattered every micro-batch and parameters gathered for
  // every pass (build_schedule's sharded_exchanges says which).
  bool each_micro_batch = false;

  Seconds needed_at() const { return needed_s < 0 ? ready_s : needed_s; }
};

struct StepSchedule {
  Seconds input_s = 0;      // producing this rank's micro-batch (overlapped by prefetch)
  Seconds forward_s = 0;
  Seconds backward_s = 0;
  std::vector<Bucket> buckets;  // in launch order (the forward pass's blocking exchanges first)
  bool overlap = true;      // buckets launch when ready; else all after the backward pass
  Seconds cycle_s = 0;      // coordination cycle: an exchange waits half a cycle on average
  Seconds optimizer_s = 0;  // after a synchronising step
  Seconds accumulate_s = 0; // after a local (accumulating) step
  int sync_period = 1;
  LibraryCosts library;     // interference, per-call cost and host staging of each exchange
  // Per bucket, NCCL's call as library.nccl makes it (LibraryCosts::nccl_exchange, once in
  // build_schedule): what NCCL's own estimate adds to the rounds (its residual), and the algorithm
  // and closed form of the rounds, which an exchange among all the ranks runs on that same topology
  // (predict builds both from one): the analytic backend's time and the algorithm a prediction
  // names. Empty, or rounds_s < 0: none, the backend makes the call itself.
  std::vector<LibraryCosts::NcclExchange> nccl_calls;
  // Bucket i's call, where nccl_calls has it for the exchange's ranks; null else.
  const LibraryCosts::NcclExchange* nccl_call(std::size_t i) const {
    const bool made = i < nccl_calls.size() && nccl_calls[i].rounds_s >= 0 && buckets[i].group == RankGroup::All;
    return made ? &nccl_calls[i] : nullptr;
  }
  FrameworkCosts framework; // buffer copies and negotiation of each exchange; host time per step

  // What one rank spends around exchange i besides the network rounds: the call (and what NCCL's
  // own estimate adds to its rounds), host staging, the framework's buffer copies.
  // A blocking exchange is the layer's own call: no bucket copies.
  Seconds exchange_own_s(std::size_t i) const {
    const Bucket& b = buckets[i];
    const Seconds residual = i < nccl_calls.size() ? nccl_calls[i].residual_s : 0;
    return library.time_factor * (library.per_call_s + residual) + library.staging_s(b.bytes) +
           (b.blocking ? 0 : framework.copies_s(b.bytes, b.tensors));
  }
  // Exchange i's network rounds, `rounds_s` as a backend timed them, as the library runs them.
  Seconds exchange_rounds_s(Seconds rounds_s) const { return library.time_factor * rounds_s; }
  // How long after it is ready exchange i can start: a bucket waits half a coordination cycle on
  // average, then the controller's negotiation; a synchronised layer calls the library at once.
  Seconds start_delay_s(std::size_t i) const {
    return buckets[i].blocking ? 0 : cycle_s / 2 + framework.negotiation_s;
  }
  int gradient_buckets() const;
};

// What the ranks of a cluster run: one schedule per kind of rank (its device and host speed:
// system.hpp RankKinds), and which kind each rank is (empty: every rank runs kinds[0]). The kinds'
// buckets hold the same gradients (one model); only their times differ.
struct RankSchedules {
  std::vector<StepSchedule> kinds;
  std::vector<int> of_rank;
  int kind_of(int rank) const { return of_rank.empty() ? 0 : of_rank[std::size_t(rank)]; }
};

// Buckets: close a bucket once it holds at least `bucket_bytes` (0: one bucket for everything);
// the first one, when `first_bucket_bytes` > 0, once it holds that much (PyTorch DDP).
std::vector<Bucket> make_buckets(const ComputeProfile& prof, Bytes bucket_bytes, Bytes first_bucket_bytes = 0,
                                 double elem_bytes = 4);

// SyncBatchNorm's exchanges (torch 1.13, torch/nn/modules/_functions.py SyncBatchNorm): forward,
// each rank's mean, invstd and count (2C + 1 FP32 values) all-gathered from the `ranks` before the
// normalisation, when the layer's forward starts; backward, sum_dy and sum_dy_xmu (2C FP32 values)
// all-reduced before the input's gradient, when its backward starts (before its own gradients'
// bucket). Forward ones from the start of the forward pass, backward ones of the backward.
std::vector<Bucket> sync_norm_exchanges(const ComputeProfile& prof, int ranks);

// A sharded mode's exchanges (exec.sharding; units as make_buckets groups gradients), in launch order:
//  * parameters sharded (zero3, fsdp_*): each unit's parameters all-gathered before its forward,
//    issued when the unit before it starts (one prefetched, FSDP's forward_prefetch and
//    limit_all_gathers; exec.prefetch_forward false: where the unit starts), its pass waiting
//    where the unit starts;
//  * gathered again in backward (zero3, fsdp_full, fsdp_hybrid): unit k's all-gather issued when
//    unit k-1's backward starts (BACKWARD_PRE; exec.prefetch_backward false: where unit k's starts,
//    after unit k-1's reduce-scatter), awaited where unit k's starts;
//  * gradients: each unit's reduce-scattered when its backward ends (zero1 and zero2: DeepSpeed's
//    reduce-scatter of the partitions); fsdp_hybrid reduce-scatters inside the node, then its
//    replicas all-reduce the shard (bytes / g) across nodes;
//  * zero1 and zero2: the updated parameters all-gathered after the step, before the next forward
//    (placed at the forward's start, which every one of them holds up).
// Parameters move in the working precision, gradients in the gradients' (Execution).
std::vector<Bucket> sharded_exchanges(const ComputeProfile& prof, const Execution& exec, int ranks, int gpus_per_node);

// What build_schedule reads of a profile by walking its layers: both passes' sums and the gradient
// buckets of one fusion setting (make_buckets with the execution's bucket sizes and gradient
// precision). Made once beside a profile that many schedules share (predict's ComputeProfiles).
struct ProfileWalk {
  ComputeProfile::Passes passes;
  std::vector<Bucket> buckets;
  Bytes bucket_bytes = 0, first_bucket_bytes = 0;
  double elem_bytes = 0;
  // Whether `buckets` are those `exec` fills.
  bool fuses_as(const Execution& exec) const {
    return exec.bucket_bytes == bucket_bytes && exec.first_bucket_bytes == first_bucket_bytes &&
           exec.gradient_elem_bytes() == elem_bytes;
  }
};
ProfileWalk walk_profile(const ComputeProfile& prof, const Execution& exec);

// `ranks`: the ranks the step's exchanges run among (for a synchronised layer's allgather; one
// rank: no exchanges, no buckets);
// `gpus_per_node`: a node's (fsdp_hybrid's shard group).
StepSchedule build_schedule(const ComputeProfile& prof, const Execution& exec, Seconds input_s, int ranks,
                            const LibraryCosts& library, const FrameworkCosts& framework = FrameworkCosts{},
                            int gpus_per_node = 1);
// The same with the profile's walk made already (walk_profile(prof, ...)); where exec fuses
// otherwise than the walk did, its own buckets.
StepSchedule build_schedule(const ComputeProfile& prof, const ProfileWalk& walk, const Execution& exec,
                            Seconds input_s, int ranks, const LibraryCosts& library, const FrameworkCosts& framework,
                            int gpus_per_node);

}  // namespace schedule_layer
}  // namespace ddlsim
