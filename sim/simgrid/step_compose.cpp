#include "simgrid/step_compose.hpp"

#include <algorithm>

namespace ddlsim {

Seconds bucket_ready_s(const StepSchedule& s, std::size_t i) {
  return s.forward_s + (s.overlap ? s.buckets[i].ready_s : s.backward_s) + s.cycle_s / 2;
}

void finish_step(StepTiming& t, const StepSchedule& s, Seconds update_start) {
  const Seconds bwd_end = s.forward_s + s.backward_s;
  update_start = std::max(update_start, bwd_end);
  t.exposed_comm_s = update_start - bwd_end;
  const Seconds core = update_start + s.optimizer_s;
  t.phases.push_back({"optimizer", Lane::Compute, update_start, core});
  t.compute_s = s.forward_s + s.backward_s + s.optimizer_s;
  t.input_wait_s = std::max(0.0, s.input_s - core);
  t.step_s = core + t.input_wait_s;
  if (t.input_wait_s > 0) t.phases.push_back({"input wait", Lane::Input, core, t.step_s});
}

StepTiming compose_sync_step(const StepSchedule& s, const std::vector<Seconds>& comm_s, const std::string& label) {
  StepTiming t;
  const Seconds fwd_end = s.forward_s, bwd_end = fwd_end + s.backward_s;
  t.phases.push_back({"forward", Lane::Compute, 0, fwd_end});
  t.phases.push_back({"backward", Lane::Compute, fwd_end, bwd_end});
  Seconds stream_free = 0;
  for (std::size_t i = 0; i < s.buckets.size() && i < comm_s.size(); ++i) {
    const Seconds start = std::max(bucket_ready_s(s, i), stream_free);
    stream_free = start + comm_s[i];
    t.comm_s += comm_s[i];
    t.phases.push_back({label + " bucket " + std::to_string(i), Lane::Comm, start, stream_free});
  }
  finish_step(t, s, stream_free);
  return t;
}

}  // namespace ddlsim
