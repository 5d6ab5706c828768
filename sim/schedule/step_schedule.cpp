#include "schedule/step_schedule.hpp"

#include <algorithm>
#include <iterator>

namespace ddlsim {
inline namespace schedule_layer {

namespace {
// The open bucket while make_buckets scans the layers from the last.
struct OpenBucket {
  Bytes bytes = 0;
  Seconds t = 0, ready = 0;  // backward time so far; when its last gradients were ready
  int first = 0, last = 0, tensors = 0;
  int next = 0;  // the next layer to scan (-1: none left)
};

// Adds layers to `b` from b.next down until it holds `cap` bytes (cap > 0; it then closes) or the
// layers end; true where it closed. Written for the machine: no call inside the loop (a call there
// makes the compiler keep the sums in memory), no branch on whether a layer has gradients (a
// model's mix of layers would mispredict it: a layer without adds 0 bytes, which leaves the sum as
// it was) and no select of a time (compiled as integer moves on the sum's path). A bucket closes
// only after a layer that added to it, so it was ready when it closed; one the layers ended was
// ready after its first layer: the same sum again, that far.
bool fill(const std::vector<LayerCost>& layers, Bytes cap, double elem_bytes, OpenBucket& b) {
  Bytes bytes = b.bytes;
  Seconds t = b.t;
  int first = b.first, last = b.last, tensors = b.tensors, i = b.next;
  bool closed = false;
  for (; i >= 0 && !closed; --i) {
    const LayerCost& l = layers[std::size_t(i)];
    t += l.bwd_s;
    const bool grads = l.grad_elems > 0;
    last = grads && bytes == 0 ? i : last;
    first = grads ? i : first;
    bytes += l.grad_elems * elem_bytes;
    tensors += grads ? l.grad_tensors : 0;
    closed = cap > 0 && bytes >= cap;
  }
  Seconds ready = t;
  if (!closed) {
    ready = b.t;
    for (int j = b.next; j >= first; --j) ready += layers[std::size_t(j)].bwd_s;
  }
  b = {bytes, t, ready, first, last, tensors, i};
  return closed;
}

Bucket closed_bucket(const OpenBucket& o) {
  Bucket b;
  b.bytes = o.bytes, b.ready_s = o.ready, b.first_layer = o.first, b.last_layer = o.last, b.tensors = o.tensors;
  return b;
}
}  // namespace

std::vector<Bucket> make_buckets(const ComputeProfile& prof, Bytes bucket_bytes, Bytes first_bucket_bytes,
                                 double elem_bytes) {
  std::vector<Bucket> buckets;
  OpenBucket open;
  open.next = int(prof.layers.size()) - 1;
  Bytes cap = first_bucket_bytes > 0 ? first_bucket_bytes : bucket_bytes;
  while (fill(prof.layers, cap, elem_bytes, open)) {
    buckets.push_back(closed_bucket(open));
    open.bytes = 0, open.tensors = 0, cap = bucket_bytes;
  }
  if (open.bytes > 0) buckets.push_back(closed_bucket(open));
  return buckets;
}

std::vector<Bucket> sync_norm_exchanges(const ComputeProfile& prof, int ranks) {
  constexpr double kStatBytes = 4;  // FP32 statistics, whatever the activations' precision
  std::vector<Bucket> out;
  Seconds t = 0;
  for (std::size_t i = 0; i < prof.layers.size(); ++i) {
    const LayerCost& l = prof.layers[i];
    if (l.norm_channels > 0)
      out.push_back({double(ranks) * (2.0 * l.norm_channels + 1) * kStatBytes, t, int(i), int(i), 0,
                     Collective::Allgather, true, true});
    if (l.norm_channels > 0) out.back().each_micro_batch = true;
    t += l.fwd_s;
  }
  t = 0;
  for (int i = int(prof.layers.size()) - 1; i >= 0; --i) {
    const LayerCost& l = prof.layers[std::size_t(i)];
    if (l.norm_channels > 0) {
      out.push_back({2.0 * l.norm_channels * kStatBytes, t, i, i, 0, Collective::Allreduce, true, false});
      out.back().each_micro_batch = true;
    }
    t += l.bwd_s;
  }
  return out;
}

namespace {

// Where a backward exchange comes in the pass's program order (the same on every rank, whatever
// its kernels' times): layers from the last to the first, a synchronised layer's statistics when
// its backward starts, a bucket when the backward of the lowest layer it holds ends.
long backward_position(const Bucket& b) { return -2L * b.first_layer + (b.blocking ? 0 : 1); }

// The stream's launch order: the forward pass's exchanges, then the backward pass's as it reaches
// them; without overlap every bucket waits for the end of the pass.
std::vector<Bucket> launch_order(const std::vector<Bucket>& sync, const std::vector<Bucket>& buckets, bool overlap) {
  std::vector<Bucket> out, backward;
  for (const Bucket& b : sync) (b.in_forward ? out : backward).push_back(b);
  if (!overlap) {
    out.insert(out.end(), backward.begin(), backward.end());
    out.insert(out.end(), buckets.begin(), buckets.end());
    return out;
  }
  std::merge(backward.begin(), backward.end(), buckets.begin(), buckets.end(), std::back_inserter(out),
             [](const Bucket& a, const Bucket& b) { return backward_position(a) < backward_position(b); });
  return out;
}

}  // namespace

namespace {

// What sharded_exchanges needs of a step: its units (from the last layer) and where each layer's
// forward and backward start.
struct ShardedStep {
  const Execution& exec;
  std::vector<Bucket> units;
  std::vector<Seconds> fwd_start, bwd_start;  // from the start of the forward / backward pass
  RankGroup group;                             // the shard's ranks: all, or a node's (fsdp_hybrid)
  bool replicas;                               // fsdp_hybrid across nodes: shards all-reduced
  int gpus_per_node;

  ShardedStep(const ComputeProfile& prof, const Execution& e, int ranks, int gpus_per_node)
      : exec(e),
        units(make_buckets(prof, e.bucket_bytes, 0, e.gradient_elem_bytes())),
        fwd_start(prof.layers.size() + 1, 0),
        bwd_start(prof.layers.size(), 0),
        group(e.sharding == Sharding::FsdpHybrid ? RankGroup::Node : RankGroup::All),
        replicas(e.sharding == Sharding::FsdpHybrid && ranks > gpus_per_node),
        gpus_per_node(gpus_per_node) {
    for (std::size_t i = 0; i < prof.layers.size(); ++i) fwd_start[i + 1] = fwd_start[i] + prof.layers[i].fwd_s;
    Seconds t = 0;
    for (std::size_t i = prof.layers.size(); i-- > 0;) {
      bwd_start[i] = t;
      t += prof.layers[i].bwd_s;
    }
  }

  // Unit u's parameters all-gathered: issued at `ready`, its pass waiting at `needed`.
  Bucket gather(const Bucket& u, bool forward, Seconds ready, Seconds needed) const {
    Bucket g = u;
    g.bytes = u.bytes / exec.gradient_elem_bytes() * exec.working_param_bytes();
    g.collective = Collective::Allgather;
    g.blocking = g.parameters = true;
    g.in_forward = forward;
    g.ready_s = ready;
    g.needed_s = needed;
    g.group = group;
    g.tensors = 0;
    // ZeRO-1 and ZeRO-2 gather the updated parameters once an update (the step's gathers before its
    // forward pass); sharded parameters are gathered for every pass.
    g.each_micro_batch = shards_parameters(exec.sharding);
    return g;
  }

  // Forward, units from the first layer on: unit f's gather issued when unit f-1 starts (or where
  // it starts itself without prefetch); zero1/zero2 gather everything before the forward pass.
  void forward(std::vector<Bucket>& out) const {
    const std::size_t n = units.size();
    for (std::size_t f = 0; f < n; ++f) {
      const Bucket& u = units[n - 1 - f];
      if (!shards_parameters(exec.sharding)) {
        out.push_back(gather(u, true, 0, 0));
        continue;
      }
      const Seconds needed = fwd_start[std::size_t(u.first_layer)];
      const Seconds ready = f == 0                  ? 0
                            : exec.prefetch_forward ? fwd_start[std::size_t(units[n - f].first_layer)]
                                                    : needed;
      out.push_back(gather(u, true, ready, needed));
    }
  }

  // Unit u's gradients reduce-scattered (and, across fsdp_hybrid's replicas, its shard all-reduced).
  // Sharded gradients are reduce-scattered after every micro-batch, each adding to the rank's shard
  // (DeepSpeed's engine.py allreduce_gradients: "ZeRO stage >= 2 communicates during non gradient
  // accumulation boundaries as well", stage 1 only at a boundary, microsoft/DeepSpeed@38327e07;
  // FSDP outside no_sync(): _post_backward_hook's `_saved_grad_shard += output`, torch 1.13
  // fully_sharded_data_parallel.py); ZeRO-1's whole gradients accumulate on each rank, and so do
  // FSDP's under no_sync() (training.no_sync), reduce-scattered once an update.
  void reduce(const Bucket& u, std::vector<Bucket>& out) const {
    Bucket r = u;
    r.collective = Collective::ReduceScatter;
    r.group = group;
    r.each_micro_batch = shards_gradients(exec.sharding) && !exec.no_sync;
    out.push_back(r);
    if (!replicas) return;
    Bucket a = u;
    a.bytes = u.bytes / gpus_per_node;
    a.group = RankGroup::AcrossNodes;
    a.tensors = 0;
    a.each_micro_batch = r.each_micro_batch;
    out.push_back(a);
  }
  // Backward, units from the last layer on: gathers again where the mode needs them (the next
  // unit's issued when one starts, or where the next starts without prefetch), each unit's
  // reduce-scatter when its backward ends.
  void backward(std::vector<Bucket>& out) const {
    const bool gathers = gathers_in_backward(exec.sharding);
    const std::size_t n = units.size();
    for (std::size_t k = 0; k < n; ++k) {
      const bool next = gathers && k + 1 < n;
      if (gathers && k == 0) out.push_back(gather(units[0], false, 0, 0));
      if (next && exec.prefetch_backward)
        out.push_back(gather(units[k + 1], false, bwd_start[std::size_t(units[k].last_layer)],
                             bwd_start[std::size_t(units[k + 1].last_layer)]));
      reduce(units[k], out);
      if (next && !exec.prefetch_backward) {
        const Seconds at = bwd_start[std::size_t(units[k + 1].last_layer)];
        out.push_back(gather(units[k + 1], false, at, at));
      }
    }
  }
};

}  // namespace

std::vector<Bucket> sharded_exchanges(const ComputeProfile& prof, const Execution& exec, int ranks, int gpus_per_node) {
  const ShardedStep step(prof, exec, ranks, gpus_per_node);
  std::vector<Bucket> out;
  step.forward(out);
  step.backward(out);
  return out;
}

int StepSchedule::gradient_buckets() const {
  return int(std::count_if(buckets.begin(), buckets.end(), [](const Bucket& b) { return !b.blocking; }));
}

ProfileWalk walk_profile(const ComputeProfile& prof, const Execution& exec) {
  ProfileWalk w;
  w.passes = prof.passes();
  w.bucket_bytes = exec.bucket_bytes;
  w.first_bucket_bytes = exec.first_bucket_bytes;
  w.elem_bytes = exec.gradient_elem_bytes();
  w.buckets = make_buckets(prof, w.bucket_bytes, w.first_bucket_bytes, w.elem_bytes);
  return w;
}

StepSchedule build_schedule(const ComputeProfile& prof, const Execution& exec, Seconds input_s, int ranks,
                            const LibraryCosts& library, const FrameworkCosts& framework, int gpus_per_node) {
  return build_schedule(prof, walk_profile(prof, exec), exec, input_s, ranks, library, framework, gpus_per_node);
}

StepSchedule build_schedule(const ComputeProfile& prof, const ProfileWalk& walk, const Execution& exec,
                            Seconds input_s, int ranks, const LibraryCosts& library, const FrameworkCosts& framework,
                            int gpus_per_node) {
  StepSchedule s;
  s.input_s = input_s;
  s.forward_s = walk.passes.forward_s;
  s.backward_s = walk.passes.backward_s;
  const bool sharded = exec.sharding != Sharding::None && ranks > 1;
  if (sharded) {
    s.buckets = sharded_exchanges(prof, exec, ranks, gpus_per_node);
  } else if (ranks > 1) {  // one rank exchanges nothing
    const bool walked = walk.fuses_as(exec);
    const std::vector<Bucket> own =
        walked ? std::vector<Bucket>{}
               : make_buckets(prof, exec.bucket_bytes, exec.first_bucket_bytes, exec.gradient_elem_bytes());
    s.buckets = launch_order(exec.sync_batchnorm ? sync_norm_exchanges(prof, ranks) : std::vector<Bucket>{},
                             walked ? walk.buckets : own, exec.overlap);
  }
  s.overlap = exec.overlap;
  s.cycle_s = exec.cycle_time_s;
  // The optimizer updates one shard: its kernels' work divides by the ranks sharing the state.
  const int shards = exec.sharding == Sharding::FsdpHybrid ? std::min(ranks, gpus_per_node) : ranks;
  s.optimizer_s = sharded ? prof.optimizer_s / shards : prof.optimizer_s;
  // Accumulating into a gradient shard (ZeRO-2 and -3, FSDP outside no_sync) adds 1/shards of the gradients.
  const bool into_shard = sharded && shards_gradients(exec.sharding) && !exec.no_sync;
  s.accumulate_s = into_shard ? prof.accumulate_s / shards : prof.accumulate_s;
  s.sync_period = exec.sync_period;
  s.library = library;
  if (library.nccl)
    for (const Bucket& b : s.buckets) s.nccl_calls.push_back(library.nccl_exchange(b.bytes, b.collective));
  s.framework = framework;
  s.framework.step_overhead_s = prof.step_overhead_s;
  return s;
}

}  // namespace schedule_layer
}  // namespace ddlsim
