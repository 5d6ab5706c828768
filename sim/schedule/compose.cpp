#include "schedule/compose.hpp"

#include <algorithm>

namespace ddlsim {

Seconds bucket_ready_s(const StepSchedule& s, std::size_t i) {
  return s.forward_s + (s.overlap ? s.buckets[i].ready_s : s.backward_s) + s.cycle_s / 2;
}

StepTiming compose_step(const StepSchedule& s, bool sync, const std::vector<Seconds>& exchange_s,
                        const std::string& label) {
  StepTiming t;
  const Seconds fwd_end = s.forward_s, bwd_end = fwd_end + s.backward_s;
  t.phases.push_back({"forward", Lane::Compute, 0, fwd_end});
  t.phases.push_back({"backward", Lane::Compute, fwd_end, bwd_end});
  Seconds stream_free = 0;
  for (std::size_t i = 0; sync && i < s.buckets.size() && i < exchange_s.size(); ++i) {
    const Seconds start = std::max(bucket_ready_s(s, i), stream_free);
    stream_free = start + exchange_s[i];
    t.comm_s += exchange_s[i];
    t.phases.push_back({label + " bucket " + std::to_string(i), Lane::Comm, start, stream_free});
  }
  const Seconds update_start = std::max(bwd_end, stream_free);
  t.exposed_comm_s = update_start - bwd_end;
  const Seconds update = sync ? s.optimizer_s : s.accumulate_s;
  const Seconds core = update_start + update;
  t.phases.push_back({sync ? "optimizer" : "accumulate", Lane::Compute, update_start, core});
  t.compute_s = s.forward_s + s.backward_s + update;
  t.input_wait_s = std::max(0.0, s.input_s - core);
  t.step_s = core + t.input_wait_s;
  if (t.input_wait_s > 0) t.phases.push_back({"input wait", Lane::Input, core, t.step_s});
  return t;
}

StepPair compose_steps(const StepSchedule& s, const std::vector<Seconds>& exchange_s, const std::string& label) {
  return {compose_step(s, true, exchange_s, label), compose_step(s, false, {}, label)};
}

}  // namespace ddlsim
