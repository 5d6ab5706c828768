#include "schedule/compose.hpp"

#include <algorithm>

#include "schedule/step_rules.hpp"

namespace ddlsim {
inline namespace schedule_layer {

Seconds bucket_ready_s(const StepSchedule& s, std::size_t i) {
  return exchange_start_s(s, i, pass_position(s, s.buckets[i], s.buckets[i].ready_s));
}

namespace {

// The passes' waits for blocking exchanges so far, each where the pass needs its exchange (in the
// undisturbed pass's time, forward then backward).
struct Waits {
  std::vector<std::pair<Seconds, Seconds>> at;  // (position, how long)
  Seconds forward_s = 0, backward_s = 0;
  // How much the pass has waited by the time it reaches `position`.
  Seconds before(Seconds position) const {
    Seconds sum = 0;
    for (const auto& [p, w] : at)
      if (p <= position) sum += w;
    return sum;
  }
};

// The exchanges on the one communication stream, in launch order: exchange i starts when every
// kind of rank has it ready and the previous one has ended; it takes the longest kind's own cost
// (per call, host staging, buffer copies) plus the exchange itself. A blocking exchange holds its
// pass up on every kind until it ends (from where the pass needs it), which delays what that kind
// reaches after it.
struct Exchanges {
  std::vector<Phase> phases;
  std::vector<Interval> overlapping;  // the buckets' exchanges (those the backward pass runs beside)
  Seconds comm_s = 0;
  std::vector<Waits> waits;  // per kind: its passes held up
};

// The kinds of rank's schedules, one or a mixed cluster's several, without copying them.
struct Kinds {
  const StepSchedule* first;
  std::size_t count;
  std::size_t size() const { return count; }
  const StepSchedule& front() const { return *first; }
  const StepSchedule& operator[](std::size_t k) const { return first[k]; }
};

Exchanges place_exchanges(Kinds kinds, const std::vector<Seconds>& exchange_s, const std::string& label, bool sync) {
  Exchanges x;
  x.waits.assign(kinds.size(), Waits{});
  x.phases.reserve(kinds.front().buckets.size());
  const StepSchedule& s0 = kinds.front();
  // An exchange is reached after the waits the pass has met before its position.
  const auto ready_of = [&](std::size_t k, std::size_t i) {
    const Bucket& b = kinds[k].buckets[i];
    return bucket_ready_s(kinds[k], i) + x.waits[k].before(pass_position(kinds[k], b, b.ready_s));
  };
  Seconds stream_free = 0;
  int buckets_before = 0;
  for (std::size_t i = 0; i < s0.buckets.size() && i < exchange_s.size(); ++i) {
    const Bucket& b = s0.buckets[i];
    const int ordinal = b.blocking ? 0 : buckets_before++;
    if (!sync && !b.each_micro_batch) continue;  // a local step runs only what every micro-batch runs
    Seconds ready = 0, own = 0;
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      ready = std::max(ready, ready_of(k, i));
      own = std::max(own, kinds[k].exchange_own_s(i));
    }
    const Seconds start = std::max(ready, stream_free);
    const Seconds took = own + s0.exchange_rounds_s(exchange_s[i]);
    stream_free = start + took;
    x.comm_s += took;
    x.phases.push_back({exchange_name(b, ordinal, label), Lane::Comm, start, stream_free});
    if (!b.blocking) {
      x.overlapping.push_back({start, stream_free});
      continue;
    }
    // The pass waits where it needs the exchange (a prefetched gather: later than it was issued).
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      Waits& w = x.waits[k];
      const Seconds position = pass_position(kinds[k], b, b.needed_at());
      const Seconds wait = std::max(0.0, stream_free - std::max(ready_of(k, i), position + w.before(position)));
      w.at.push_back({position, wait});
      (b.in_forward ? w.forward_s : w.backward_s) += wait;
    }
  }
  return x;
}

// The step of kind `kind`'s rank around the exchanges `x` (for a local step, only those of every
// micro-batch: Bucket::each_micro_batch).
StepTiming rank_step(const StepSchedule& s, bool sync, const Exchanges& x, std::size_t kind) {
  StepTiming t;
  const Waits& w = x.waits[kind];
  const Seconds waits = w.forward_s + w.backward_s;
  const Seconds fwd_end = s.forward_s + w.forward_s, bwd_end = fwd_end + s.backward_s + w.backward_s;
  Seconds stream_free = 0;
  for (const Phase& p : x.phases) stream_free = p.end_s;
  t.comm_s = x.comm_s;
  t.phases.reserve(x.phases.size() + 5);  // forward, backward, the update, the framework, input wait
  t.interference_s = interference_s(s, x.overlapping, fwd_end, bwd_end);
  const Seconds bwd_done = bwd_end + t.interference_s;
  t.phases.push_back({"forward", Lane::Compute, 0, fwd_end});
  t.phases.push_back({"backward", Lane::Compute, fwd_end, bwd_done});
  t.phases.insert(t.phases.end(), x.phases.begin(), x.phases.end());
  const Seconds update_start = std::max(bwd_done, stream_free);
  t.exposed_comm_s = update_start - bwd_done + waits;
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
  return rank_step(s, sync, place_exchanges({&s, 1}, exchange_s, label, sync), 0);
}

StepPair compose_steps(const StepSchedule& s, const std::vector<Seconds>& exchange_s, const std::string& label) {
  return {compose_step(s, true, exchange_s, label), compose_step(s, false, exchange_s, label), {}, {}};
}

StepPair compose_steps(const RankSchedules& rs, const std::vector<Seconds>& exchange_s, const std::string& label) {
  if (rs.kinds.size() == 1) return compose_steps(rs.kinds.front(), exchange_s, label);
  const Kinds kinds{rs.kinds.data(), rs.kinds.size()};
  const Exchanges sync = place_exchanges(kinds, exchange_s, label, true);
  const Exchanges local = place_exchanges(kinds, exchange_s, label, false);
  StepPair out;
  for (std::size_t k = 0; k < rs.kinds.size(); ++k) {
    out.kind_sync.push_back(rank_step(rs.kinds[k], true, sync, k));
    out.kind_local.push_back(rank_step(rs.kinds[k], false, local, k));
  }
  out.sync = slowest(out.kind_sync);
  out.local = slowest(out.kind_local);
  return out;
}

}  // namespace schedule_layer
}  // namespace ddlsim
