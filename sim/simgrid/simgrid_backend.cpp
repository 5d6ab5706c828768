#include "simgrid/simgrid_backend.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/error.hpp"
#include "cost/collectives.hpp"
#include "cost/decision.hpp"
#include "cost/eager_rounds.hpp"
#include "schedule/compose.hpp"
#include "simgrid/fast_fidelity.hpp"
#include "simgrid/full_fidelity.hpp"
#include "engine/isolate.hpp"
#include "simgrid/placement.hpp"
#include "simgrid/slice.hpp"

namespace ddlsim {
inline namespace simgrid_layer {

namespace {

Seconds round_overhead_s(const CommTopology& t, RoundKind k) {
  return node_round(k) ? t.intra.step_overhead_s : t.flat_route().step_overhead_s;
}

// One plan per exchange (its own collective), as the library runs it (decision.hpp: library_call):
// with `auto` the library's algorithm for the exchange's size, with NCCL its protocol's bytes, and
// each round's overhead moved from the layout's (the topology's) to the protocol's.
Plans bucket_plans(const StepSchedule& s, const CommMethod& m, const CommTopology& topo, const Layout& l) {
  Plans plans;
  for (const auto& b : s.buckets) {
    const LibraryCall k = library_call(m, b.collective, topo, b.bytes);
    Layout as_run = l;
    as_run.steps_in_flight = k.topo.steps_in_flight;
    as_run.binary_blocks = k.topo.binary_blocks;
    as_run.eager_limit_bytes = k.topo.eager_limit_bytes;
    plans.push_back(collective_plan(b.collective, k.algorithm, as_run, k.bytes));
    for (Round& r : plans.back()) {
      r.overhead_s += round_overhead_s(k.topo, r.kind) - round_overhead_s(topo, r.kind);
      if (r.pipelined) r.node_overhead_s += k.topo.intra.step_overhead_s - topo.intra.step_overhead_s;
    }
  }
  return plans;
}

struct SyncSteps {
  StepTiming cluster;
  std::vector<StepTiming> kinds;  // mixed clusters: each kind of rank's own
};

nlohmann::json to_json(const StepTiming& t) {
  nlohmann::json phases = nlohmann::json::array();
  for (const auto& p : t.phases) phases.push_back({p.name, int(p.lane), p.start_s, p.end_s});
  return {{"step", t.step_s}, {"compute", t.compute_s}, {"comm", t.comm_s}, {"exposed", t.exposed_comm_s},
          {"input_wait", t.input_wait_s}, {"interference", t.interference_s},
          {"framework", t.framework_s}, {"phases", phases}};
}

StepTiming from_json(const nlohmann::json& j) {
  StepTiming t;
  t.step_s = j["step"].get<double>();
  t.compute_s = j["compute"].get<double>();
  t.comm_s = j["comm"].get<double>();
  t.exposed_comm_s = j["exposed"].get<double>();
  t.input_wait_s = j["input_wait"].get<double>();
  t.interference_s = j["interference"].get<double>();
  t.framework_s = j["framework"].get<double>();
  for (const auto& p : j["phases"])
    t.phases.push_back({p[0].get<std::string>(), Lane(p[1].get<int>()), p[2].get<double>(), p[3].get<double>()});
  return t;
}

nlohmann::json to_json(const SyncSteps& s) {
  nlohmann::json j = to_json(s.cluster);
  if (!s.kinds.empty()) {
    j["kinds"] = nlohmann::json::array();
    for (const StepTiming& t : s.kinds) j["kinds"].push_back(to_json(t));
  }
  return j;
}

SyncSteps sync_from_json(const nlohmann::json& j) {
  SyncSteps s{from_json(j), {}};
  if (j.contains("kinds"))
    for (const auto& k : j["kinds"]) s.kinds.push_back(from_json(k));
  return s;
}

// Fast fidelity on a slice of the cluster (slice.hpp): the whole cluster's plans, their distinct
// rounds measured on two of its nodes: a two-node platform for a built-in cluster; a platform
// file's first two nodes, where its nodes are alike and its links between nodes private.
std::string sliced_fast_step(const RankSchedules& rs, World& w, const Plans& plans, const CommTopology& topo,
                             const CommMethod& m) {
  const Bytes eager = w.layout.eager_limit_bytes;
  w.hosts.resize(std::size_t(kSliceNodes) * topo.gpus_per_node);
  w.layout = flat_layout(slice_of(topo));
  w.layout.eager_limit_bytes = eager;
  pace_pipelined_rings(w, plans);
  const StepPair p = compose_steps(rs, fast_bucket_times(w, slice_plans(plans, topo)), to_string(m.algorithm));
  return to_json(SyncSteps{p.sync, p.kind_sync}).dump();
}

std::string simulate_sync_step(const RankSchedules& rs, const CommTopology& topo, const CommMethod& m,
                               const System& sys, const SimGridOptions& o) {
  Layout whole = flat_layout(topo);
  whole.eager_limit_bytes = eager_limit_bytes(m, topo);
  const Plans whole_plans = bucket_plans(rs.kinds.front(), m, topo, whole);
  // Eager sends that let ranks run ahead of their receivers overlap rounds: only the full run has them.
  const bool eager =
      std::any_of(whole_plans.begin(), whole_plans.end(), [&](const auto& p) { return eager_sends_matter(p, whole); });
  const bool file = !sys.cluster.xml_path.empty();
  const bool slice = o.fidelity == Fidelity::Fast && o.slices && !eager && slice_applies(whole_plans, topo, file);
  if (slice && !file) {
    World w = make_world(slice_of(topo), m.algorithm, sys, o);
    w.layout.eager_limit_bytes = whole.eager_limit_bytes;
    return sliced_fast_step(rs, w, whole_plans, topo, m);
  }
  if (!slice && topo.ranks() > kMaxSimGridRanks)
    throw InputError(fmt::format("{} GPUs with simulation.backend = simgrid: comm.algorithm = {} gives exchanges in "
                                 "which nodes differ (trees, folds of extra ranks, all-to-all, parameter servers), "
                                 "simulated on every node: at most {} GPUs. A two-node slice of a built-in cluster at "
                                 "fast fidelity runs rings, hierarchical exchanges and halving-doubling on a "
                                 "power-of-two count of any size; the analytic backend takes any",
                                 topo.ranks(), to_string(m.algorithm), kMaxSimGridRanks));
  World w = make_world(topo, m.algorithm, sys, o);
  w.layout.eager_limit_bytes = eager_limit_bytes(m, topo);
  if (slice && w.symmetric && w.private_links) return sliced_fast_step(rs, w, whole_plans, topo, m);
  const Plans plans = bucket_plans(rs.kinds.front(), m, topo, w.layout);
  pace_pipelined_rings(w, plans);
  const std::string label = to_string(m.algorithm);
  const bool overlap = std::any_of(plans.begin(), plans.end(), [&](const auto& p) { return eager_sends_matter(p, w.layout); });
  const bool fast = o.fidelity == Fidelity::Fast && w.symmetric && !overlap;
  if (fast) {
    const StepPair p = compose_steps(rs, fast_bucket_times(w, plans), label);
    return to_json(SyncSteps{p.sync, p.kind_sync}).dump();
  }
  const FullSteps f = run_full(rs, w, plans, label);
  return to_json(SyncSteps{f.cluster, f.kinds}).dump();
}

std::string platform_label(const System& sys) {
  return sys.cluster.xml_path.empty() ? sys.cluster.name : sys.cluster.xml_path;
}

// The deadline of one simulation: simulation.timeout_s, else 60 s plus 20 us per message simulated
// (about 6 times what the benchmarks measure: bench/simgrid_bench.cpp, 3.4 us per message at full
// fidelity), so a run that would take far longer than its size warrants is stopped, not awaited.
Seconds deadline_s(const StepSchedule& s, const CommTopology& topo, const CommMethod& m, const SimGridOptions& o) {
  if (o.timeout_s > 0) return o.timeout_s;
  Layout l;
  l.ranks = topo.ranks();
  l.gpus_per_node = topo.gpus_per_node;
  l.ps_servers = topo.ps_servers;
  double messages = 0;
  for (const auto& plan : bucket_plans(s, m, topo, l))
    for (const Round& r : plan) messages += double(o.fidelity == Fidelity::Fast ? 1 : r.repeat) * l.ranks;
  return 60 + 20e-6 * messages;
}

SyncSteps simgrid_sync_step(const RankSchedules& rs, const CommTopology& topo, const CommMethod& m,
                            const System& sys, const SimGridOptions& o) {
  const std::string answer = run_isolated([&] { return simulate_sync_step(rs, topo, m, sys, o); },
                                          platform_label(sys), deadline_s(rs.kinds.front(), topo, m, o));
  return sync_from_json(nlohmann::json::parse(answer));
}

// A local step's exchanges: those of every micro-batch (closed forms: synchronised layers'
// statistics, sharded units' gathers and reduce-scatters), none for the others.
std::vector<Seconds> local_exchange_s(const StepSchedule& s, const CommTopology& topo, const CommMethod& m) {
  std::vector<Seconds> out;
  if (topo.ranks() <= 1) return out;
  for (const Bucket& b : s.buckets) {
    const LibraryCall k = library_call(m, b.collective, topo, b.bytes);
    out.push_back(b.each_micro_batch ? collective_time_s(b.collective, k.algorithm, k.topo, k.bytes) : 0);
  }
  return out;
}

}  // namespace

StepPair simgrid_steps(const RankSchedules& rs, const CommTopology& topo, const CommMethod& m, const System& sys,
                       const SimGridOptions& o) {
  // The local step exchanges only what every micro-batch does (closed forms), and one rank needs no
  // network: no simulation for them.
  StepPair out = compose_steps(rs, local_exchange_s(rs.kinds.front(), topo, m), to_string(m.algorithm));
  if (topo.ranks() <= 1) return out;
  SyncSteps sync = simgrid_sync_step(rs, topo, m, sys, o);
  out.sync = std::move(sync.cluster);
  out.kind_sync = std::move(sync.kinds);
  return out;
}

StepPair simgrid_steps(const StepSchedule& s, const CommTopology& topo, const CommMethod& m, const System& sys,
                       const SimGridOptions& o) {
  return simgrid_steps(RankSchedules{{s}, {}}, topo, m, sys, o);
}

bool simgrid_fast_applies(const CommTopology& topo, const System& sys) {
  return run_isolated([&] { return make_world(topo, Algorithm::Ring, sys, SimGridOptions{}).symmetric ? "1" : "0"; },
                      platform_label(sys)) == "1";
}

Seconds simgrid_collective_s(Collective c, Algorithm a, const CommTopology& topo, Bytes bytes, const System& sys,
                             const SimGridOptions& o) {
  if (topo.ranks() <= 1) return 0;
  StepSchedule s;  // no compute: one exchange alone
  s.buckets = {Bucket{bytes, 0, 0, 0, 0, c}};
  s.overlap = false;
  CommTopology rounds_as_given = topo;  // the algorithm's rounds alone, as collective_time_s: no protocol
  rounds_as_given.nccl_protocols = false;
  // The rounds as given: rings pipelined only where the topology keeps their steps in flight.
  const CommMethod m{Library::Nccl, a, Protocol::Simple, topo.steps_in_flight};
  return simgrid_sync_step(RankSchedules{{s}, {}}, rounds_as_given, m, sys, o).cluster.comm_s;
}

Seconds simgrid_collective_s(Algorithm a, const CommTopology& topo, Bytes bytes, const System& sys,
                             const SimGridOptions& o) {
  return simgrid_collective_s(Collective::Allreduce, a, topo, bytes, sys, o);
}

}  // namespace simgrid_layer
}  // namespace ddlsim
