#include "schedule/step_schedule.hpp"

#include <algorithm>
#include <iterator>

namespace ddlsim {
inline namespace schedule_layer {

std::vector<Bucket> make_buckets(const ComputeProfile& prof, Bytes bucket_bytes, Bytes first_bucket_bytes,
                                 double elem_bytes) {
  std::vector<Bucket> buckets;
  Bucket open;
  Seconds t = 0;
  for (int i = int(prof.layers.size()) - 1; i >= 0; --i) {
    const LayerCost& l = prof.layers[i];
    t += l.bwd_s;
    if (l.grad_elems <= 0) continue;
    if (open.bytes == 0) open.last_layer = i;
    open.first_layer = i;
    open.bytes += l.grad_elems * elem_bytes;
    open.tensors += l.grad_tensors;
    open.ready_s = t;
    const Bytes cap = buckets.empty() && first_bucket_bytes > 0 ? first_bucket_bytes : bucket_bytes;
    if (cap > 0 && open.bytes >= cap) {
      buckets.push_back(open);
      open = Bucket{};
    }
  }
  if (open.bytes > 0) buckets.push_back(open);
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
    t += l.fwd_s;
  }
  t = 0;
  for (int i = int(prof.layers.size()) - 1; i >= 0; --i) {
    const LayerCost& l = prof.layers[std::size_t(i)];
    if (l.norm_channels > 0)
      out.push_back({2.0 * l.norm_channels * kStatBytes, t, i, i, 0, Collective::Allreduce, true, false});
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

int StepSchedule::gradient_buckets() const {
  return int(std::count_if(buckets.begin(), buckets.end(), [](const Bucket& b) { return !b.blocking; }));
}

StepSchedule build_schedule(const ComputeProfile& prof, const Execution& exec, Seconds input_s, int ranks,
                            const LibraryCosts& library, const FrameworkCosts& framework) {
  StepSchedule s;
  s.input_s = input_s;
  s.forward_s = prof.forward_s();
  s.backward_s = prof.backward_s();
  s.buckets = launch_order(exec.sync_batchnorm && ranks > 1 ? sync_norm_exchanges(prof, ranks) : std::vector<Bucket>{},
                           make_buckets(prof, exec.bucket_bytes, exec.first_bucket_bytes, exec.gradient_elem_bytes()),
                           exec.overlap);
  s.overlap = exec.overlap;
  s.cycle_s = exec.cycle_time_s;
  s.optimizer_s = prof.optimizer_s;
  s.accumulate_s = prof.accumulate_s;
  s.sync_period = exec.sync_period;
  s.library = library;
  if (library.nccl)
    for (const Bucket& b : s.buckets) s.library_residual_s.push_back(library.nccl_residual_s(b.bytes, b.collective));
  s.framework = framework;
  s.framework.step_overhead_s = prof.step_overhead_s;
  return s;
}

}  // namespace schedule_layer
}  // namespace ddlsim
