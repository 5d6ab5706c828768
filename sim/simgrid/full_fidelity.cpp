#include "simgrid/full_fidelity.hpp"

#include <algorithm>
#include <deque>
#include <limits>

#include "cost/eager_rounds.hpp"
#include "schedule/step_rules.hpp"

namespace sg4 = simgrid::s4u;

namespace ddlsim {
inline namespace simgrid_layer {

namespace {

struct RankState {
  sg4::SemaphorePtr ready = sg4::Semaphore::create(0);      // one release per filled bucket
  sg4::SemaphorePtr comm_done = sg4::Semaphore::create(0);  // released after the last bucket
  sg4::SemaphorePtr blocking_done = sg4::Semaphore::create(0);  // after each blocking exchange
  std::vector<Seconds> ready_at;
  std::vector<Interval> exchanges;  // the buckets' (not the blocking ones'); end infinite while running
  Seconds backward_end = 0, update_start = 0, end = 0, compute = 0, interference = 0;
  Seconds waited = 0;  // the passes held up by blocking exchanges
};

struct FullState {
  std::vector<RankState> ranks;
  std::vector<int> records;                // per rank: the kind whose timeline it records, else -1
  std::vector<std::vector<Phase>> phases;  // per kind: its first rank's
  std::vector<Seconds> comm_s;             // per kind: its first rank's exchange time
  std::vector<bool> eager;                 // per bucket: eager sends matter (cost/eager_rounds.hpp)
};

void compute_actor(const StepSchedule& s, FullState& st, int me) {
  RankState& r = st.ranks[me];
  const int kind = st.records[me];
  const auto run = [&](Seconds d, const char* name) {
    const Seconds start = sg4::Engine::get_clock();
    if (d > 0) sg4::this_actor::execute(d * sg4::this_actor::get_host()->get_speed());
    const Seconds end = sg4::Engine::get_clock();
    r.compute += end - start;
    if (kind >= 0 && name) st.phases[kind].push_back({name, Lane::Compute, start, end});
  };
  // The passes run up to each exchange they reach (in launch order) and release it; a blocking one
  // is awaited where the pass needs it (where it was released, or later for a prefetched gather),
  // before any exchange the pass reaches after that point. `done`: compute done, forward and
  // backward together; positions are in that frame.
  Seconds done = 0, backward_start = -1;
  const auto enter_backward = [&] {
    if (backward_start >= 0) return;
    run(s.forward_s - done, nullptr);
    done = s.forward_s;
    backward_start = sg4::Engine::get_clock();
    if (kind >= 0) st.phases[kind].push_back({"forward", Lane::Compute, 0, backward_start});
  };
  const auto position = [&](const Bucket& b, Seconds at) {
    return b.in_forward ? at : std::min(pass_position(s, b, at), s.forward_s + s.backward_s);
  };
  struct Wait {
    Seconds at;
    bool backward;
  };
  std::deque<Wait> waits;  // blocking exchanges released, in launch order (their positions grow)
  const auto run_to = [&](Seconds at, bool backward) {
    if (backward) enter_backward();
    run(at - done, nullptr);
    done = std::max(done, at);
  };
  const auto wait_through = [&](Seconds at) {
    while (!waits.empty() && waits.front().at <= at) {
      run_to(waits.front().at, waits.front().backward);
      const Seconds from = sg4::Engine::get_clock();
      r.blocking_done->acquire();
      r.waited += sg4::Engine::get_clock() - from;
      waits.pop_front();
    }
  };
  for (const Bucket& b : s.buckets) {
    const Seconds target = position(b, b.ready_s);
    wait_through(target);
    run_to(target, !b.in_forward);
    r.ready_at.push_back(sg4::Engine::get_clock());
    r.ready->release();
    if (b.blocking) waits.push_back({position(b, b.needed_at()), !b.in_forward});
  }
  wait_through(std::numeric_limits<Seconds>::infinity());
  enter_backward();
  run(s.forward_s + s.backward_s - done, nullptr);
  r.interference = interference_s(s, r.exchanges, backward_start, sg4::Engine::get_clock());
  run(r.interference, nullptr);
  r.backward_end = sg4::Engine::get_clock();
  if (kind >= 0) st.phases[kind].push_back({"backward", Lane::Compute, backward_start, r.backward_end});
  r.comm_done->acquire();
  r.update_start = sg4::Engine::get_clock();
  run(s.optimizer_s, "optimizer");
  const Seconds overhead_start = sg4::Engine::get_clock();
  if (s.framework.step_overhead_s > 0) {  // host time, not the device's: a sleep, not compute
    sg4::this_actor::sleep_for(s.framework.step_overhead_s);
    if (kind >= 0) st.phases[kind].push_back({"framework", Lane::Compute, overhead_start, sg4::Engine::get_clock()});
  }
  r.end = sg4::Engine::get_clock();
}

// Rounds that end for every rank with their slowest hop (their closed forms sum the rounds), where
// a rank with nothing to send would otherwise go on: the lockstep double binary tree's, and gloo's
// blocks (a small block's hand-over would otherwise overlap the larger blocks' first steps, which
// the closed form does not count).
bool barrier_round(RoundKind k) {
  return k == RoundKind::NodeChainUp || k == RoundKind::NodeChainDown || k == RoundKind::DbtUp ||
         k == RoundKind::DbtDown || k == RoundKind::BlockXor || k == RoundKind::BlockUp || k == RoundKind::BlockDown;
}

void comm_actor(const StepSchedule& s, const Plans& plans, const Layout& l, FullState& st, int me,
                const std::string& label, const sg4::BarrierPtr& ring_start) {
  const bool rank = me < l.ranks;
  int buckets_before = 0;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    if (rank) {
      st.ranks[me].ready->acquire();
      sg4::this_actor::sleep_until(exchange_start_s(s, i, st.ranks[me].ready_at[i]));
    }
    const bool blocking = s.buckets[i].blocking;
    const int ordinal = blocking ? 0 : buckets_before++;
    const Seconds start = sg4::Engine::get_clock();
    if (rank && !blocking) st.ranks[me].exchanges.push_back({start, std::numeric_limits<Seconds>::infinity()});
    const Seconds own = s.exchange_own_s(i);
    if (own > 0) sg4::this_actor::sleep_for(own);  // call overhead and copies: this rank only
    // Eager sends would let a rank that left the last bucket early start this one's sends before
    // the others have joined: as the closed forms (and the pipelined rings), the bucket starts
    // once every rank has reached it.
    const bool eager = st.eager[i];
    if (rank && eager) ring_start->wait();
    for (const Round& r : plans[i]) {
      if (r.kind == RoundKind::ChainPipeline)
        run_pipelined_chain(r, l, me, ring_start);
      else if (composed_pipeline(r.kind))
        run_composed_pipeline(r, l, me, ring_start);
      else if (r.pipelined)
        run_pipelined_ring(r, l, me, ring_start);
      for (int k = 0; !r.pipelined && k < r.repeat; ++k) {
        run_round(r, l, me, eager);
        if (rank && barrier_round(r.kind)) ring_start->wait();
      }
    }
    const Seconds end = sg4::Engine::get_clock();
    if (rank && !blocking) st.ranks[me].exchanges.back().second = end;
    if (rank && blocking) st.ranks[me].blocking_done->release();
    if (rank && st.records[me] >= 0) {
      st.phases[st.records[me]].push_back({exchange_name(s.buckets[i], ordinal, label), Lane::Comm, start, end});
      st.comm_s[st.records[me]] += end - start;
    }
  }
  if (rank) st.ranks[me].comm_done->release();
}

// One rank's own step: its fields, and the phases its kind's first rank recorded.
StepTiming rank_timing(const StepSchedule& s, const FullState& st, int kind, const RankState& r) {
  StepTiming t;
  t.phases = st.phases[kind];
  std::stable_sort(t.phases.begin(), t.phases.end(),
                   [](const Phase& a, const Phase& b) { return a.start_s < b.start_s; });
  t.comm_s = st.comm_s[kind];
  t.compute_s = r.compute - r.interference;
  t.interference_s = r.interference;
  t.framework_s = s.framework.step_overhead_s;
  t.exposed_comm_s = r.update_start - r.backward_end + r.waited;
  close_step(s, r.end, t);
  return t;
}

// One kind of rank: each field the maximum over ranks, rank 0's phases (as before mixed clusters).
StepTiming homogeneous_step(const StepSchedule& s, const FullState& st) {
  // Synchronous data parallelism: the step is the slowest rank's.
  StepTiming t;
  t.phases = st.phases[0];
  std::stable_sort(t.phases.begin(), t.phases.end(),
                   [](const Phase& a, const Phase& b) { return a.start_s < b.start_s; });
  t.comm_s = st.comm_s[0];
  Seconds core = 0;
  for (const RankState& r : st.ranks) {
    core = std::max(core, r.end);
    t.compute_s = std::max(t.compute_s, r.compute - r.interference);
    t.interference_s = std::max(t.interference_s, r.interference);
    t.framework_s = s.framework.step_overhead_s;
    t.exposed_comm_s = std::max(t.exposed_comm_s, r.update_start - r.backward_end + r.waited);
  }
  close_step(s, core, t);
  return t;
}

}  // namespace

FullSteps run_full(const RankSchedules& rs, const World& w, const Plans& plans, const std::string& label) {
  FullState st;
  const int kinds = int(rs.kinds.size());
  st.ranks.resize(w.layout.ranks);
  st.records.assign(w.hosts.size(), -1);
  st.phases.resize(kinds);
  st.comm_s.assign(kinds, 0);
  std::vector<int> first(kinds, -1);
  for (int me = 0; me < w.layout.ranks; ++me)
    if (first[rs.kind_of(me)] < 0) {
      first[rs.kind_of(me)] = me;
      st.records[me] = rs.kind_of(me);
    }
  for (const auto& plan : plans) st.eager.push_back(eager_sends_matter(plan, w.layout));
  // Each kind's schedule carries its host's speed (system.hpp RankKinds): execute at the host's own pace.
  const sg4::BarrierPtr ring_start = sg4::Barrier::create(unsigned(w.layout.ranks));
  for (int me = 0; me < int(w.hosts.size()); ++me) {
    const std::string name = "rank" + std::to_string(me);
    const StepSchedule& s = rs.kinds[me < w.layout.ranks ? rs.kind_of(me) : 0];
    if (me < w.layout.ranks)
      sg4::Actor::create(name + "-compute", w.hosts[me], [&s, &st, me] { compute_actor(s, st, me); });
    const sg4::ActorPtr comm = sg4::Actor::create(name + "-comm", w.hosts[me],
                                                  [&s, &plans, &w, &st, me, &label, ring_start] {
                                                    comm_actor(s, plans, w.layout, st, me, label, ring_start);
                                                  });
    receive_eagerly(plans, st.eager, w.layout, me, comm);
  }
  run_engine();
  FullSteps out;
  if (kinds == 1) {
    out.cluster = homogeneous_step(rs.kinds[0], st);
    return out;
  }
  for (int k = 0; k < kinds; ++k) out.kinds.push_back(rank_timing(rs.kinds[k], st, k, st.ranks[first[k]]));
  // The cluster's step: the fields of the rank that ends last, its kind's phases.
  int last = 0;
  for (int me = 1; me < w.layout.ranks; ++me)
    if (st.ranks[me].end > st.ranks[last].end) last = me;
  const int k = rs.kind_of(last);
  out.cluster = rank_timing(rs.kinds[k], st, k, st.ranks[last]);
  return out;
}

}  // namespace simgrid_layer
}  // namespace ddlsim
