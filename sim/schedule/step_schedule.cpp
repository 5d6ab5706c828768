#include "schedule/step_schedule.hpp"

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

StepSchedule build_schedule(const ComputeProfile& prof, const Execution& exec, Seconds input_s,
                            const LibraryCosts& library, const FrameworkCosts& framework) {
  StepSchedule s;
  s.input_s = input_s;
  s.forward_s = prof.forward_s();
  s.backward_s = prof.backward_s();
  s.buckets = make_buckets(prof, exec.bucket_bytes, exec.first_bucket_bytes, exec.gradient_elem_bytes());
  s.overlap = exec.overlap;
  s.cycle_s = exec.cycle_time_s;
  s.optimizer_s = prof.optimizer_s;
  s.accumulate_s = prof.accumulate_s;
  s.sync_period = exec.sync_period;
  s.library = library;
  if (library.nccl)
    for (const Bucket& b : s.buckets) s.library_residual_s.push_back(library.nccl_residual_s(b.bytes));
  s.framework = framework;
  s.framework.step_overhead_s = prof.step_overhead_s;
  return s;
}

}  // namespace schedule_layer
}  // namespace ddlsim
