#include "schedule/compose.hpp"

#include <algorithm>

namespace ddlsim {

Seconds bucket_ready_s(const StepSchedule& s, std::size_t i) {
  return s.forward_s + (s.overlap ? s.buckets[i].ready_s : s.backward_s) + s.cycle_s / 2;
}

namespace {

// Time [a0, a1] and [b0, b1] share.
Seconds shared_s(Seconds a0, Seconds a1, Seconds b0, Seconds b1) { return std::max(0.0, std::min(a1, b1) - std::max(a0, b0)); }

}  // namespace

StepTiming compose_step(const StepSchedule& s, bool sync, const std::vector<Seconds>& exchange_s,
                        const std::string& label) {
  StepTiming t;
  const Seconds fwd_end = s.forward_s, bwd_end = fwd_end + s.backward_s;
  Seconds stream_free = 0, overlapped = 0;
  std::vector<Phase> comm;
  for (std::size_t i = 0; sync && i < s.buckets.size() && i < exchange_s.size(); ++i) {
    const Seconds start = std::max(bucket_ready_s(s, i), stream_free);
    const Seconds took = s.library.per_call_s + s.library.staging_s(s.buckets[i].bytes) + exchange_s[i];
    stream_free = start + took;
    t.comm_s += took;
    overlapped += shared_s(start, stream_free, fwd_end, bwd_end);
    comm.push_back({label + " bucket " + std::to_string(i), Lane::Comm, start, stream_free});
  }
  // First order: the backward pass runs slower while exchanges overlap it, by the library's
  // interference; the exchanges keep the start times of the undisturbed pass.
  t.interference_s = s.library.interference * overlapped;
  const Seconds bwd_done = bwd_end + t.interference_s;
  t.phases.push_back({"forward", Lane::Compute, 0, fwd_end});
  t.phases.push_back({"backward", Lane::Compute, fwd_end, bwd_done});
  t.phases.insert(t.phases.end(), comm.begin(), comm.end());
  const Seconds update_start = std::max(bwd_done, stream_free);
  t.exposed_comm_s = update_start - bwd_done;
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
