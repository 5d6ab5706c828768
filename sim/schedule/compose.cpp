#include "schedule/compose.hpp"

#include <algorithm>

#include "schedule/step_rules.hpp"

namespace ddlsim {
inline namespace schedule_layer {

Seconds bucket_ready_s(const StepSchedule& s, std::size_t i) {
  return exchange_start_s(s, s.forward_s + (s.overlap ? s.buckets[i].ready_s : s.backward_s));
}

namespace {

// The exchanges on the one communication stream: bucket i starts when every kind of rank has it
// ready and the previous exchange has ended; it takes the longest kind's own cost (per call, host
// staging, buffer copies) plus the exchange itself.
struct Exchanges {
  std::vector<Phase> phases;
  Seconds comm_s = 0;
};

Exchanges place_exchanges(const std::vector<StepSchedule>& kinds, const std::vector<Seconds>& exchange_s,
                          const std::string& label) {
  Exchanges x;
  const StepSchedule& s0 = kinds.front();
  Seconds stream_free = 0;
  for (std::size_t i = 0; i < s0.buckets.size() && i < exchange_s.size(); ++i) {
    Seconds ready = bucket_ready_s(s0, i), own = s0.exchange_own_s(i);
    for (const StepSchedule& s : kinds) {
      ready = std::max(ready, bucket_ready_s(s, i));
      own = std::max(own, s.exchange_own_s(i));
    }
    const Seconds start = std::max(ready, stream_free);
    const Seconds took = own + exchange_s[i];
    stream_free = start + took;
    x.comm_s += took;
    x.phases.push_back({label + " bucket " + std::to_string(i), Lane::Comm, start, stream_free});
  }
  return x;
}

// One rank's step around the exchanges `x` (none for a local step).
StepTiming rank_step(const StepSchedule& s, bool sync, const Exchanges& x) {
  StepTiming t;
  const Seconds fwd_end = s.forward_s, bwd_end = fwd_end + s.backward_s;
  Seconds stream_free = 0;
  std::vector<Interval> exchanges;
  for (const Phase& p : x.phases) {
    exchanges.push_back({p.start_s, p.end_s});
    stream_free = p.end_s;
  }
  t.comm_s = x.comm_s;
  t.interference_s = interference_s(s, exchanges, fwd_end, bwd_end);
  const Seconds bwd_done = bwd_end + t.interference_s;
  t.phases.push_back({"forward", Lane::Compute, 0, fwd_end});
  t.phases.push_back({"backward", Lane::Compute, fwd_end, bwd_done});
  t.phases.insert(t.phases.end(), x.phases.begin(), x.phases.end());
  const Seconds update_start = std::max(bwd_done, stream_free);
  t.exposed_comm_s = update_start - bwd_done;
  const Seconds update = sync ? s.optimizer_s : s.accumulate_s;
  const Seconds update_end = update_start + update;
  t.phases.push_back({sync ? "optimizer" : "accumulate", Lane::Compute, update_start, update_end});
  t.framework_s = s.framework.step_overhead_s;
  const Seconds core = update_end + t.framework_s;
  if (t.framework_s > 0) t.phases.push_back({"framework", Lane::Compute, update_end, core});
  t.compute_s = s.forward_s + s.backward_s + update;
  close_step(s, core, t);
  return t;
}

// The step of the rank that ends last (the first such kind on ties).
const StepTiming& slowest(const std::vector<StepTiming>& steps) {
  std::size_t at = 0;
  for (std::size_t k = 1; k < steps.size(); ++k)
    if (steps[k].step_s > steps[at].step_s) at = k;
  return steps[at];
}

}  // namespace

StepTiming compose_step(const StepSchedule& s, bool sync, const std::vector<Seconds>& exchange_s,
                        const std::string& label) {
  return rank_step(s, sync, sync ? place_exchanges({s}, exchange_s, label) : Exchanges{});
}

StepPair compose_steps(const StepSchedule& s, const std::vector<Seconds>& exchange_s, const std::string& label) {
  return {compose_step(s, true, exchange_s, label), compose_step(s, false, {}, label), {}, {}};
}

StepPair compose_steps(const RankSchedules& rs, const std::vector<Seconds>& exchange_s, const std::string& label) {
  if (rs.kinds.size() == 1) return compose_steps(rs.kinds.front(), exchange_s, label);
  const Exchanges x = place_exchanges(rs.kinds, exchange_s, label);
  StepPair out;
  for (const StepSchedule& s : rs.kinds) {
    out.kind_sync.push_back(rank_step(s, true, x));
    out.kind_local.push_back(rank_step(s, false, Exchanges{}));
  }
  out.sync = slowest(out.kind_sync);
  out.local = slowest(out.kind_local);
  return out;
}

}  // namespace schedule_layer
}  // namespace ddlsim
