#include "simgrid/simgrid_backend.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <tuple>

#include "backend/analytic.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "simgrid/collective_plan.hpp"
#include "simgrid/isolate.hpp"
#include "simgrid/sg_world.hpp"
#include "simgrid/step_compose.hpp"

namespace sg4 = simgrid::s4u;

namespace ddlsim {

namespace {

// ---- messages -------------------------------------------------------------------------------

// One mailbox per (receiver, sender) pair: messages of one pair arrive in the order both sides
// run their rounds, so a fast peer's next-round message never matches this round's receive.
sg4::Mailbox* mailbox(int dst, int src) {
  return sg4::Mailbox::by_name(std::to_string(dst) + "<" + std::to_string(src));
}

uint64_t wire_bytes(Bytes b) { return uint64_t(std::max(1.0, b + 0.5)); }

void run_round(const Round& r, const Layout& l, int me) {
  const RoundOps ops = round_ops(r, l, me);
  if (ops.sends.empty() && ops.recvs.empty()) return;
  int token = 0;  // payloads travel by size only
  std::vector<int*> slots(ops.recvs.size(), nullptr);
  std::vector<sg4::CommPtr> comms;
  comms.reserve(ops.sends.size() + ops.recvs.size());
  for (const auto& t : ops.sends) comms.push_back(mailbox(t.peer, me)->put_async(&token, wire_bytes(t.bytes)));
  for (std::size_t i = 0; i < ops.recvs.size(); ++i)
    comms.push_back(mailbox(me, ops.recvs[i])->get_async<int>(&slots[i]));
  sg4::Comm::wait_all(comms);
}

// Runs the simulation; actors still blocked at the end mean the messages did not match.
void run_engine() {
  sg4::Engine* e = sg4::Engine::get_instance();
  e->run();
  if (e->get_actor_count() > 0)
    throw std::runtime_error("SimGrid backend: " + std::to_string(e->get_actor_count()) +
                             " actors blocked at the end of the simulation (unmatched messages)");
}

// ---- the simulated world --------------------------------------------------------------------

struct World {
  std::vector<sg4::Host*> hosts;  // participants: ranks, then spare server hosts
  Layout layout;
  bool symmetric = true;          // every node alike: fast fidelity applies
};

// A platform file is symmetric when the ranks form nodes of g consecutive hosts of one netzone
// each, all hosts have one speed, and every route between neighbours inside a node, and between
// consecutive nodes, looks the same (links, latency, bottleneck). Built-in and generated clusters are symmetric by design.
bool same_route(const RouteInfo& a, const RouteInfo& b) {
  const auto close = [](double x, double y) { return std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y)); };
  return a.links.size() == b.links.size() && close(a.latency_s, b.latency_s) && close(a.bw_Bps, b.bw_Bps);
}

bool is_symmetric(const std::vector<sg4::Host*>& ranks, int g) {
  const int p = int(ranks.size()), nodes = p / g;
  if (p % g != 0) return false;
  std::vector<RouteInfo> intra, inter;
  for (int n = 0; n < nodes; ++n) {
    for (int k = 0; k < g; ++k)
      if (ranks[n * g + k]->get_englobing_zone() != ranks[n * g]->get_englobing_zone() ||
          ranks[n * g + k]->get_speed() != ranks[0]->get_speed())
        return false;
    for (int k = 0; k + 1 < g; ++k) intra.push_back(route_info(ranks[n * g + k], ranks[n * g + k + 1]));
    if (nodes > 1) inter.push_back(route_info(ranks[n * g], ranks[((n + 1) % nodes) * g]));
  }
  for (const auto* set : {&intra, &inter})
    for (const auto& r : *set)
      if (!same_route(r, set->front())) return false;
  return true;
}

// Ranks on a platform file: the first g hosts (natural order) of each of the first `nodes`
// netzones, zones ordered by their first host; the other hosts, in natural order, after them.
std::vector<sg4::Host*> place_ranks(const std::vector<sg4::Host*>& hosts, int nodes, int g, const std::string& file) {
  std::vector<std::vector<sg4::Host*>> zones;
  std::map<const sg4::NetZone*, std::size_t> index;
  for (auto* h : hosts) {
    const auto [it, fresh] = index.emplace(h->get_englobing_zone(), zones.size());
    if (fresh) zones.emplace_back();
    zones[it->second].push_back(h);
  }
  std::vector<sg4::Host*> ranks, rest;
  for (std::size_t z = 0; z < zones.size(); ++z) {
    const std::size_t take = int(z) < nodes ? std::min<std::size_t>(g, zones[z].size()) : 0;
    if (int(z) < nodes && int(take) < g)
      throw InputError(file + ": node " + std::to_string(z) + " (the netzone of " + zones[z][0]->get_name() + ") has " +
                       std::to_string(zones[z].size()) + " hosts, the scenario needs " + std::to_string(g) +
                       " GPUs per node");
    ranks.insert(ranks.end(), zones[z].begin(), zones[z].begin() + take);
    rest.insert(rest.end(), zones[z].begin() + take, zones[z].end());
  }
  if (int(zones.size()) < nodes)
    throw InputError(file + ": the platform has " + std::to_string(zones.size()) + " nodes (netzones with hosts), " +
                     "the scenario needs " + std::to_string(nodes));
  std::stable_sort(rest.begin(), rest.end(),
                   [](const sg4::Host* x, const sg4::Host* y) { return natural_less(x->get_name(), y->get_name()); });
  ranks.insert(ranks.end(), rest.begin(), rest.end());
  return ranks;
}

World make_world(const CommTopology& topo, Algorithm a, const System& sys, const SimGridOptions& o) {
  sg4::Engine& e = start_engine(o);
  std::vector<sg4::Host*> hosts = build_platform(e, sys.cluster, topo.nodes);
  World w;
  w.layout = {topo.ranks(), topo.gpus_per_node, topo.ps_servers, false, topo.flat_route().exchange_factor,
              topo.flat_route().duplex_factor};
  const std::string& file = sys.cluster.xml_path;
  if (!file.empty()) hosts = place_ranks(hosts, topo.nodes, topo.gpus_per_node, file);
  if (int(hosts.size()) < w.layout.ranks)
    throw InputError((file.empty() ? sys.cluster.name : file) + ": the platform has " +
                     std::to_string(hosts.size()) + " hosts, the scenario needs " +
                     std::to_string(w.layout.ranks) + " ranks (nodes x GPUs per node)");
  w.layout.spare_server_hosts = a == Algorithm::ParameterServer && !file.empty() &&
                                int(hosts.size()) >= w.layout.ranks + topo.ps_servers;
  hosts.resize(w.layout.participants());
  w.hosts = std::move(hosts);
  if (!file.empty())
    w.symmetric = !w.layout.spare_server_hosts &&
                  is_symmetric({w.hosts.begin(), w.hosts.begin() + w.layout.ranks}, w.layout.gpus_per_node);
  return w;
}

using Plans = std::vector<std::vector<Round>>;  // one per bucket

Plans bucket_plans(const StepSchedule& s, Algorithm a, const Layout& l) {
  Plans plans;
  for (const auto& b : s.buckets) plans.push_back(collective_plan(a, l, b.bytes));
  return plans;
}

// ---- full fidelity: every message, ranks free-running -------------------------------------
// Two actors per rank on its host: compute (forward, backward, optimizer as exec) and
// communication (each bucket's collective once the backward pass has filled it). Compute is
// exec of duration x the fastest rank host's speed, so a slower host in a platform file is a
// straggler; on a homogeneous platform it takes exactly the cost model's durations.

struct RankState {
  sg4::SemaphorePtr ready = sg4::Semaphore::create(0);      // one release per filled bucket
  sg4::SemaphorePtr comm_done = sg4::Semaphore::create(0);  // released after the last bucket
  std::vector<Seconds> ready_at;
  Seconds backward_end = 0, update_start = 0, end = 0, compute = 0;
};

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
    for (const Round& r : plans[i])
      for (int k = 0; k < r.repeat; ++k) run_round(r, l, me);
    const Seconds end = sg4::Engine::get_clock();
    if (me == 0) {
      st.phases.push_back({label + " bucket " + std::to_string(i), Lane::Comm, start, end});
      st.comm_s += end - start;
    }
  }
  if (rank) st.ranks[me].comm_done->release();
}

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
    t.compute_s = std::max(t.compute_s, r.compute);
    t.exposed_comm_s = std::max(t.exposed_comm_s, r.update_start - r.backward_end);
  }
  t.input_wait_s = std::max(0.0, s.input_s - core);
  t.step_s = core + t.input_wait_s;
  if (t.input_wait_s > 0) t.phases.push_back({"input wait", Lane::Input, core, t.step_s});
  return t;
}

// ---- fast fidelity: each distinct round once, with every rank, then scaled -------------------

using RoundKey = std::tuple<int, int, double>;
RoundKey key_of(const Round& r) { return {int(r.kind), r.param, r.bytes}; }

std::vector<Seconds> fast_round_times(const World& w, const std::vector<Round>& rounds) {
  std::vector<Seconds> took(rounds.size(), 0);
  auto barrier = sg4::Barrier::create(unsigned(w.hosts.size()));
  for (int me = 0; me < int(w.hosts.size()); ++me)
    sg4::Actor::create("rank" + std::to_string(me), w.hosts[me], [&rounds, &w, me, barrier, &took] {
      for (std::size_t i = 0; i < rounds.size(); ++i) {
        barrier->wait();
        const Seconds start = sg4::Engine::get_clock();
        run_round(rounds[i], w.layout, me);
        barrier->wait();
        if (me == 0) took[i] = sg4::Engine::get_clock() - start;
      }
    });
  run_engine();
  return took;
}

std::vector<Seconds> fast_bucket_times(const World& w, const Plans& plans) {
  std::map<RoundKey, std::size_t> index;
  std::vector<Round> distinct;
  for (const auto& plan : plans)
    for (const Round& r : plan)
      if (index.emplace(key_of(r), distinct.size()).second) distinct.push_back(r);
  const std::vector<Seconds> took = fast_round_times(w, distinct);
  std::vector<Seconds> out;
  for (const auto& plan : plans) {
    Seconds t = 0;
    for (const Round& r : plan) t += r.repeat * took[index.at(key_of(r))];
    out.push_back(t);
  }
  return out;
}

// ---- in the child ---------------------------------------------------------------------------

nlohmann::json to_json(const StepTiming& t) {
  nlohmann::json phases = nlohmann::json::array();
  for (const auto& p : t.phases) phases.push_back({p.name, int(p.lane), p.start_s, p.end_s});
  return {{"step", t.step_s}, {"compute", t.compute_s}, {"comm", t.comm_s}, {"exposed", t.exposed_comm_s},
          {"input_wait", t.input_wait_s}, {"phases", phases}};
}

StepTiming from_json(const nlohmann::json& j) {
  StepTiming t;
  t.step_s = j["step"].get<double>();
  t.compute_s = j["compute"].get<double>();
  t.comm_s = j["comm"].get<double>();
  t.exposed_comm_s = j["exposed"].get<double>();
  t.input_wait_s = j["input_wait"].get<double>();
  for (const auto& p : j["phases"])
    t.phases.push_back({p[0].get<std::string>(), Lane(p[1].get<int>()), p[2].get<double>(), p[3].get<double>()});
  return t;
}

std::string simulate_sync_step(const StepSchedule& s, const CommTopology& topo, Algorithm a, const System& sys,
                               const SimGridOptions& o) {
  const World w = make_world(topo, a, sys, o);
  const Plans plans = bucket_plans(s, a, w.layout);
  const std::string label = to_string(a);
  const bool fast = o.fidelity == Fidelity::Fast && w.symmetric;
  const StepTiming t =
      fast ? compose_sync_step(s, fast_bucket_times(w, plans), label) : run_full(s, w, plans, label);
  return to_json(t).dump();
}

std::string platform_label(const System& sys) {
  return sys.cluster.xml_path.empty() ? sys.cluster.name : sys.cluster.xml_path;
}

}  // namespace

StepPair simgrid_steps(const StepSchedule& s, const CommTopology& topo, Algorithm a, const System& sys,
                       const SimGridOptions& o) {
  StepPair out;
  out.local = analytic_step(s, topo, a, false);
  if (topo.ranks() <= 1) {
    out.sync = analytic_step(s, topo, a, true);
    return out;
  }
  const std::string answer =
      run_isolated([&] { return simulate_sync_step(s, topo, a, sys, o); }, platform_label(sys));
  out.sync = from_json(nlohmann::json::parse(answer));
  return out;
}

bool simgrid_fast_applies(const CommTopology& topo, const System& sys) {
  return run_isolated([&] { return make_world(topo, Algorithm::Ring, sys, SimGridOptions{}).symmetric ? "1" : "0"; },
                      platform_label(sys)) == "1";
}

Seconds simgrid_collective_s(Algorithm a, const CommTopology& topo, Bytes bytes, const System& sys,
                             const SimGridOptions& o) {
  StepSchedule s;
  s.buckets = {Bucket{bytes, 0, 0, 0}};
  s.overlap = false;
  return simgrid_steps(s, topo, a, sys, o).sync.comm_s;
}

}  // namespace ddlsim
