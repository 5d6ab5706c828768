#include "backend/analytic.hpp"

#include <algorithm>
#include <string>

namespace ddlsim {

StepTiming analytic_step(const StepSchedule& s, const CommTopology& topo, Algorithm a, bool sync) {
  StepTiming t;
  const Seconds fwd_end = s.forward_s;
  const Seconds bwd_end = fwd_end + s.backward_s;
  t.phases.push_back({"forward", Lane::Compute, 0, fwd_end});
  t.phases.push_back({"backward", Lane::Compute, fwd_end, bwd_end});
  Seconds update_start = bwd_end;
  const bool exchange = sync && topo.ranks() > 1;
  if (exchange) {
    Seconds stream_free = 0;
    for (std::size_t i = 0; i < s.buckets.size(); ++i) {
      const Bucket& b = s.buckets[i];
      const Seconds ready = fwd_end + (s.overlap ? b.ready_s : s.backward_s) + s.cycle_s / 2;
      const Seconds start = std::max(ready, stream_free);
      const Seconds d = collective_time_s(a, topo, b.bytes);
      stream_free = start + d;
      t.comm_s += d;
      t.phases.push_back({std::string(to_string(a)) + " bucket " + std::to_string(i), Lane::Comm, start,
                          stream_free});
    }
    update_start = std::max(bwd_end, stream_free);
  }
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

StepPair analytic_steps(const StepSchedule& s, const CommTopology& topo, Algorithm a) {
  return {analytic_step(s, topo, a, true), analytic_step(s, topo, a, false)};
}

}  // namespace ddlsim
