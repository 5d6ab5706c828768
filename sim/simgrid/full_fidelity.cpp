#include "simgrid/full_fidelity.hpp"

#include <algorithm>
#include <limits>

namespace sg4 = simgrid::s4u;

namespace ddlsim {

namespace {

struct RankState {
  sg4::SemaphorePtr ready = sg4::Semaphore::create(0);      // one release per filled bucket
  sg4::SemaphorePtr comm_done = sg4::Semaphore::create(0);  // released after the last bucket
  std::vector<Seconds> ready_at;
  std::vector<std::pair<Seconds, Seconds>> exchanges;  // [start, end]; end infinite while running
  Seconds backward_end = 0, update_start = 0, end = 0, compute = 0, interference = 0;
};

// The exchanges' time within [from, to] (the composer's interference rule, schedule/compose.hpp).
Seconds overlapped_s(const RankState& r, Seconds from, Seconds to) {
  Seconds sum = 0;
  for (const auto& [a, b] : r.exchanges) sum += std::max(0.0, std::min(b, to) - std::max(a, from));
  return sum;
}

struct FullState {
  std::vector<RankState> ranks;
  std::vector<Phase> phases;  // rank 0's
  Seconds comm_s = 0;         // rank 0's exchange time
  double speed_flops = 1;     // the pace of the cost model
};

void compute_actor(const StepSchedule& s, FullState& st, int me) {
  RankState& r = st.ranks[me];
  const auto run = [&](Seconds d, const char* name) {
    const Seconds start = sg4::Engine::get_clock();
    if (d > 0) sg4::this_actor::execute(d * st.speed_flops);
    const Seconds end = sg4::Engine::get_clock();
    r.compute += end - start;
    if (me == 0 && name) st.phases.push_back({name, Lane::Compute, start, end});
  };
  run(s.forward_s, "forward");
  const Seconds backward_start = sg4::Engine::get_clock();
  Seconds done = 0;
  for (const Bucket& b : s.buckets) {
    const Seconds target = s.overlap ? std::min(b.ready_s, s.backward_s) : s.backward_s;
    run(target - done, nullptr);
    done = std::max(done, target);
    r.ready_at.push_back(sg4::Engine::get_clock());
    r.ready->release();
  }
  run(s.backward_s - done, nullptr);
  r.interference = s.library.interference * overlapped_s(r, backward_start, sg4::Engine::get_clock());
  run(r.interference, nullptr);
  r.backward_end = sg4::Engine::get_clock();
  if (me == 0) st.phases.push_back({"backward", Lane::Compute, backward_start, r.backward_end});
  r.comm_done->acquire();
  r.update_start = sg4::Engine::get_clock();
  run(s.optimizer_s, "optimizer");
  r.end = sg4::Engine::get_clock();
}

void comm_actor(const StepSchedule& s, const Plans& plans, const Layout& l, FullState& st, int me,
                const std::string& label) {
  const bool rank = me < l.ranks;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    if (rank) {
      st.ranks[me].ready->acquire();
      sg4::this_actor::sleep_until(st.ranks[me].ready_at[i] + s.cycle_s / 2);
    }
    const Seconds start = sg4::Engine::get_clock();
    if (rank) st.ranks[me].exchanges.push_back({start, std::numeric_limits<Seconds>::infinity()});
    const Seconds own = s.library.per_call_s + s.library.staging_s(s.buckets[i].bytes);
    if (own > 0) sg4::this_actor::sleep_for(own);  // call overhead and host copies: this rank only
    for (const Round& r : plans[i])
      for (int k = 0; k < r.repeat; ++k) run_round(r, l, me);
    const Seconds end = sg4::Engine::get_clock();
    if (rank) st.ranks[me].exchanges.back().second = end;
    if (me == 0) {
      st.phases.push_back({label + " bucket " + std::to_string(i), Lane::Comm, start, end});
      st.comm_s += end - start;
    }
  }
  if (rank) st.ranks[me].comm_done->release();
}

}  // namespace

StepTiming run_full(const StepSchedule& s, const World& w, const Plans& plans, const std::string& label) {
  FullState st;
  st.ranks.resize(w.layout.ranks);
  for (int me = 0; me < w.layout.ranks; ++me) st.speed_flops = std::max(st.speed_flops, w.hosts[me]->get_speed());
  for (int me = 0; me < int(w.hosts.size()); ++me) {
    const std::string name = "rank" + std::to_string(me);
    if (me < w.layout.ranks)
      sg4::Actor::create(name + "-compute", w.hosts[me], [&s, &st, me] { compute_actor(s, st, me); });
    sg4::Actor::create(name + "-comm", w.hosts[me],
                       [&s, &plans, &w, &st, me, &label] { comm_actor(s, plans, w.layout, st, me, label); });
  }
  run_engine();
  // Synchronous data parallelism: the step is the slowest rank's.
  StepTiming t;
  t.phases = st.phases;
  std::stable_sort(t.phases.begin(), t.phases.end(),
                   [](const Phase& a, const Phase& b) { return a.start_s < b.start_s; });
  t.comm_s = st.comm_s;
  Seconds core = 0;
  for (const RankState& r : st.ranks) {
    core = std::max(core, r.end);
    t.compute_s = std::max(t.compute_s, r.compute - r.interference);
    t.interference_s = std::max(t.interference_s, r.interference);
    t.exposed_comm_s = std::max(t.exposed_comm_s, r.update_start - r.backward_end);
  }
  t.input_wait_s = std::max(0.0, s.input_s - core);
  t.step_s = core + t.input_wait_s;
  if (t.input_wait_s > 0) t.phases.push_back({"input wait", Lane::Input, core, t.step_s});
  return t;
}

}  // namespace ddlsim
