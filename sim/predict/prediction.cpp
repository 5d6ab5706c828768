#include "predict/prediction.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>

#include "core/error.hpp"
#include "core/text.hpp"

#include "backend/analytic.hpp"
#include "backend/backend.hpp"
#include "cost/compute.hpp"
#include "cost/decision.hpp"
#include "cost/framework_costs.hpp"
#include "cost/input_pipeline.hpp"
#include "cost/library_costs.hpp"
#include "cost/memory.hpp"
#include "cost/stragglers.hpp"
#include "schedule/step_schedule.hpp"

namespace ddlsim {
inline namespace predict_layer {

EpochShape epoch_shape(long long samples, int batch, int ranks, int sync_period, bool drop_last) {
  const long long global = (long long)batch * ranks;
  EpochShape e;
  e.steps = drop_last ? samples / global : (samples + global - 1) / global;
  e.syncs = (e.steps + sync_period - 1) / sync_period;
  return e;
}

namespace {

struct Run {
  StepSchedule schedule;  // the slowest kind of rank's (mixed clusters), else every rank's
  StepPair steps;
  EpochShape shape;
  Seconds wait_s = 0;        // per synchronisation: waiting for the slowest rank
  Seconds local_wait_s = 0;  // per local step that exchanges among the ranks (wait_s then per micro-batch)
  double contention = 1;  // CPU ranks sharing a node's cores (cost/compute.hpp)
  Seconds epoch_s = 0;
};

// A kind of rank's profile and its walk (both shared, or a scaled copy's own).
struct KindProfile {
  const ComputeProfile* profile;
  const ProfileWalk* walk;
  Seconds compute_s() const { return walk->passes.forward_s + walk->passes.backward_s; }
};

// The compute profile of every kind of rank (`of_kind`): its device's, times its host's slowdown;
// a copy in `scaled` (walked again) only where that factor is not 1, else the shared profile itself.
struct KindProfiles {
  std::vector<ComputeProfile> scaled;
  std::vector<ProfileWalk> scaled_walks;
  std::vector<KindProfile> of_kind;
};

KindProfiles kind_profiles(const Scenario& sc, const RankKinds& kinds, const ComputeProfiles& base) {
  if (base.by_kind.size() != kinds.kinds.size() || base.walks.size() != base.by_kind.size())
    throw std::logic_error("predict: compute profiles of another scenario (kinds of rank differ)");
  KindProfiles out;
  out.scaled.reserve(base.by_kind.size());  // of_kind points into both
  out.scaled_walks.reserve(base.by_kind.size());
  for (std::size_t k = 0; k < base.by_kind.size(); ++k) {
    const double f = kinds.kinds[k].slowdown * sc.system.compute.time_factor;
    if (f == 1) {
      out.of_kind.push_back({&base.by_kind[k], &base.walks[k]});
      continue;
    }
    out.scaled.push_back(base.by_kind[k]);
    out.scaled.back().scale_by(f);
    out.scaled_walks.push_back(walk_profile(out.scaled.back(), sc.execution));
    out.of_kind.push_back({&out.scaled.back(), &out.scaled_walks.back()});
  }
  return out;
}

std::size_t extreme_kind(const std::vector<KindProfile>& profs, bool slowest) {
  std::size_t at = 0;
  for (std::size_t k = 1; k < profs.size(); ++k) {
    const Seconds here = profs[k].compute_s(), there = profs[at].compute_s();
    if (slowest ? here > there : here < there) at = k;
  }
  return at;
}

// Every kind's schedule; a kind on another device pays its own host staging (its PCIe generation)
// and buffer copies (its memory rate). Profiles are copied only where contention scales them.
RankSchedules kind_schedules(const Scenario& sc, const RankKinds& kinds, const std::vector<KindProfile>& profs,
                             double contention, Seconds input_s, const CommTopology& topo) {
  const System& sys = sc.system;
  const int nodes = topo.nodes, gpus_per_node = topo.gpus_per_node;
  RankSchedules rs;
  rs.of_rank = kinds.of_rank;
  for (std::size_t k = 0; k < profs.size(); ++k) {
    std::optional<ComputeProfile> contended;
    std::optional<ProfileWalk> contended_walk;
    if (contention != 1) {
      contended.emplace(*profs[k].profile), contended->scale_by(contention);
      contended_walk.emplace(walk_profile(*contended, sc.execution));
    }
    const Device& d = kinds.kinds[k].device;
    std::optional<System> other;  // the system with this kind's device, where it is not the system's
    if (d.name != sys.device.name) other.emplace(sys), other->device = d;
    const System& own = other ? *other : sys;
    rs.kinds.push_back(build_schedule(contended ? *contended : *profs[k].profile,
                                      contended_walk ? *contended_walk : *profs[k].walk, sc.execution, input_s, topo.ranks(),
                                      library_costs(sc.execution, own, &topo),
                                      framework_costs(sc.execution, own, nodes, gpus_per_node), gpus_per_node));
  }
  return rs;
}

Run run(const Scenario& sc, const RankKinds& kinds, const std::vector<KindProfile>& profs, int nodes,
        int gpus_per_node) {
  const Execution& e = sc.execution;
  const System& sys = sc.system;
  Run r;
  r.contention = host_contention(sys.compute, gpus_per_node);
  // Between nodes over TCP, the socket transport's threads take cores from the loaders.
  const int busy_cores = nodes > 1 && sys.cluster.socket_transport
                             ? gpus_per_node * socket_busy_cores(sys.cluster.socket_threads, e.library)
                             : 0;
  const Seconds input_s = input_batch_s(sys.storage, e.format, e.loader_workers, e.batch_per_gpu,
                                        nodes, gpus_per_node, busy_cores);
  const CommTopology topo = comm_topology(sys, nodes, gpus_per_node, e.ps_servers);
  RankSchedules rs = kind_schedules(sc, kinds, profs, r.contention, input_s, topo);
  r.steps = run_steps(sc.backend, rs, topo, e.comm(), sys, sc.simgrid);
  r.schedule = std::move(rs.kinds[extreme_kind(profs, true)]);
  r.shape = epoch_shape(e.samples, e.batch_per_gpu, nodes * gpus_per_node, e.sync_period, e.drop_last);
  // A local step that exchanges among the ranks (sharded units, synchronised batch norms) waits for
  // the slowest rank as an updating one does: each micro-batch is then a synchronisation of its own.
  const auto& buckets = r.schedule.buckets;
  const bool local_waits =
      std::any_of(buckets.begin(), buckets.end(), [](const Bucket& b) { return b.each_micro_batch; });
  r.wait_s = straggler_wait_s(r.schedule.forward_s + r.schedule.backward_s, jitter_cv(sys.compute),
                              device_spread(sys.compute), local_waits ? 1 : e.sync_period, nodes * gpus_per_node);
  r.local_wait_s = local_waits ? r.wait_s : 0;
  r.epoch_s = r.shape.syncs * (r.steps.sync.step_s + r.wait_s) +
              (r.shape.steps - r.shape.syncs) * (r.steps.local.step_s + r.local_wait_s);
  return r;
}

// Mixed clusters: the devices in rank order ("rtx4090+rtx4070"); else the one device (with a
// calibration file, the device it measured).
std::string device_label(const System& sys, const RankKinds& kinds) {
  if (sys.groups.empty() || kinds.kinds.size() == 1)
    return sys.compute.calibration ? sys.compute.calibration->device : sys.device.name;
  std::string out;
  for (const RankKind& k : kinds.kinds) out += (out.empty() ? "" : "+") + k.device.name;
  return out;
}

Bytes smallest_memory(const RankKinds& kinds) {
  Bytes m = kinds.kinds.front().device.memory_bytes;
  for (const RankKind& k : kinds.kinds) m = std::min(m, k.device.memory_bytes);
  return m;
}

// Mean of a per-step figure over the epoch's sync and local steps.
template <class F>
double per_step(const Run& r, F field) {
  const double syncs = double(r.shape.syncs), locals = double(r.shape.steps - r.shape.syncs);
  return (syncs * field(r.steps.sync) + locals * field(r.steps.local)) / double(r.shape.steps);
}

// Every input is bounded, but extreme combinations can still overflow or vanish; say so as an
// input error rather than print inf or NaN.
void check_finite(const Prediction& p) {
  const struct { const char* name; double v; bool positive; } fields[] = {
      {"step time", p.step_time_s, true},       {"epoch time", p.epoch_time_s, true},
      {"total time", p.total_time_s, true},     {"throughput", p.samples_per_s, true},
      {"single-GPU epoch time", p.single_gpu_epoch_s, true}, {"speed-up", p.speedup, true},
      {"communication time", p.comm_time_s, false},          {"input time", p.input_time_s, false},
      {"communication overhead", p.comm_overhead, false}, {"interference", p.interference_s, false}};
  for (const auto& f : fields)
    if (!std::isfinite(f.v) || (f.positive && f.v <= 0))
      throw InputError(std::string("the scenario's values give a ") + (std::isfinite(f.v) ? "zero" : "non-finite") +
                       " " + f.name + " (" + format_number(f.v) +
                       "); check for extreme values (bandwidths, latencies, sample sizes, times)");
}

// The algorithms the step's exchanges really run (auto resolves per bucket size), each once: NCCL's
// call as the schedule made it, else the library's choice.
std::string algorithms_run(const Scenario& sc, const StepSchedule& s) {
  const Execution& e = sc.execution;
  const CommTopology topo = comm_topology(sc.system, sc.system.nodes, sc.system.cluster.gpus_per_node, e.ps_servers);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < s.buckets.size(); ++i) {
    const Bucket& b = s.buckets[i];
    if (b.blocking) continue;  // a synchronised layer's statistics: not the gradients' algorithm
    const CommTopology t = group_topology(topo, b.group);
    if (t.ranks() <= 1) continue;
    const auto* call = s.nccl_call(i);
    const std::string a = to_string(call ? call->algorithm : concrete_algorithm(e.comm(), b.collective, t, b.bytes));
    if (std::find(names.begin(), names.end(), a) == names.end()) names.push_back(a);
  }
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : "+") + n;
  return out.empty() ? "none" : out;
}

}  // namespace

ComputeProfile device_compute_profile(const Scenario& sc) {
  const Execution& e = sc.execution;
  return compute_profile(sc.model, sc.system.device, e.precision, e.batch_per_gpu, sc.system.compute, e.optimizer, e.fw);
}

ComputeProfiles compute_profiles(const Scenario& sc) {
  const Execution& e = sc.execution;
  const RankKinds kinds = rank_kinds(sc.system);
  std::map<std::string, std::size_t> by_device;  // kinds on one device share its profile
  ComputeProfiles out;
  out.model_memory = model_memory(sc.model, !sc.system.compute.fused_attention, e.fw.recompute);
  for (const RankKind& k : kinds.kinds) {
    const auto [it, fresh] = by_device.emplace(k.device.name, out.by_kind.size());
    out.by_kind.push_back(fresh ? compute_profile(sc.model, k.device, e.precision, e.batch_per_gpu, sc.system.compute,
                                                  e.optimizer, e.fw)
                                : out.by_kind[it->second]);
    out.walks.push_back(fresh ? walk_profile(out.by_kind.back(), e) : out.walks[it->second]);
  }
  return out;
}

Prediction predict(const Scenario& sc) { return predict(sc, compute_profiles(sc)); }

// cluster.nodes counts as neutral only between two counts (ProfileMemo checks).
bool profile_neutral_key(const std::string& key) {
  const auto starts = [&](const char* prefix) { return key.rfind(prefix, 0) == 0; };
  static const char* const neutral[] = {
      "cluster.nodes",          "cluster.inter",          "cluster.inter_bw_GBps",   "cluster.inter_latency_us",
      "cluster.intra_bw_GBps",  "cluster.intra_latency_us", "cluster.nics",            "cluster.network_reduction",
      "cluster.nccl_net_latency_us", "cluster.nccl_net_protocols", "cluster.socket_nic", "cluster.tcp_flow_GBps",
      "cluster.net_eager_kib",  "cluster.net_rendezvous_us",
      "cluster.tcp_thread_GBps", "training.sync_period", "training.samples", "training.epochs", "training.drop_last"};
  for (const char* k : neutral)
    if (key == k) return true;
  return starts("comm.") || starts("network.") || starts("simulation.") ||
         (starts("input.") && key != "input.dataset");
}

const ComputeProfiles& ProfileMemo::profiles(const Scenario& sc, const Settings& settings) {
  const auto same_where_it_matters = [&](const Settings& kept) {
    if (kept.size() != settings.size()) return false;
    for (auto a = kept.begin(), b = settings.begin(); a != kept.end(); ++a, ++b) {
      if (a->first != b->first) return false;
      if (a->second.value == b->second.value && a->second.origin == b->second.origin) continue;
      // cluster.nodes may name a mixed cluster (NAME:COUNT, ...), whose devices are the profiles'.
      const auto count = [](const std::string& v) {
        return !v.empty() && std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); });
      };
      if (!profile_neutral_key(a->first) ||
          (a->first == "cluster.nodes" && !(count(a->second.value) && count(b->second.value))))
        return false;
    }
    return true;
  };
  if (!settings_ || !same_where_it_matters(*settings_)) {
    profiles_ = compute_profiles(sc);
    settings_ = settings;
  }
  return profiles_;
}

Prediction predict(const Scenario& sc, const ComputeProfiles& profiles) {
  const Execution& e = sc.execution;
  const System& sys = sc.system;
  const RankKinds kinds = rank_kinds(sys);
  const KindProfiles kp = kind_profiles(sc, kinds, profiles);
  const std::vector<KindProfile>& profs = kp.of_kind;
  Run r = run(sc, kinds, profs, sys.nodes, sys.cluster.gpus_per_node);
  // The speed-up reference: one GPU of the fastest kind (the scenario's own run where that is it).
  const std::size_t fastest = extreme_kind(profs, false);
  const bool one_gpu = sys.ranks() == 1 && kinds.kinds.size() == 1;
  std::optional<Run> reference;
  if (!one_gpu) reference = run(sc, RankKinds{{kinds.kinds[fastest]}, {}}, {profs[fastest]}, 1, 1);
  const Run& single = reference ? *reference : r;
  const ComputeProfile& prof = *profs.front().profile;
  const ProfileWalk& walk = *profs.front().walk;

  Prediction p;
  p.model = sc.model.name;
  p.framework = e.framework;
  p.algorithm = to_string(e.algorithm);
  p.algorithm_run = sys.ranks() > 1 ? algorithms_run(sc, r.schedule) : "none";
  p.library = to_string(e.library);
  p.device = device_label(sys, kinds);
  p.platform = sys.cluster.name;
  p.precision = to_string(e.precision);
  p.backend = to_string(sc.backend);
  const Model::ParamCounts& params = profiles.model_memory.params;
  p.params_total = params.total;
  p.params_trainable = params.trainable;
  p.gradient_bytes = double(params.trainable) * e.gradient_elem_bytes();  // every layer's grad_elems, summed
  p.nodes = sys.nodes;
  p.gpus_per_node = sys.cluster.gpus_per_node;
  p.ranks = sys.ranks();
  p.batch_per_gpu = e.batch_per_gpu;
  p.global_batch = (long long)e.batch_per_gpu * p.ranks;
  p.sync_period = e.sync_period;
  // One rank exchanges nothing; its buckets are those its gradients would fill.
  p.buckets = sys.ranks() > 1   ? r.schedule.gradient_buckets()
              : walk.fuses_as(e) ? int(walk.buckets.size())
                                 : int(make_buckets(prof, e.bucket_bytes, e.first_bucket_bytes, e.gradient_elem_bytes()).size());
  p.steps_per_epoch = r.shape.steps;
  p.syncs_per_epoch = r.shape.syncs;
  p.epoch_time_s = r.epoch_s;
  p.total_time_s = r.epoch_s * e.epochs;
  p.step_time_s = r.epoch_s / double(r.shape.steps);
  p.compute_time_s = per_step(r, [](const StepTiming& t) { return t.compute_s; });
  p.comm_time_s = per_step(r, [](const StepTiming& t) { return t.comm_s; });
  p.exposed_comm_s = per_step(r, [](const StepTiming& t) { return t.exposed_comm_s; });
  p.input_wait_s = per_step(r, [](const StepTiming& t) { return t.input_wait_s; });
  const double syncs = double(r.shape.syncs), locals = double(r.shape.steps - r.shape.syncs);
  p.straggler_wait_s = (syncs * r.wait_s + locals * r.local_wait_s) / double(r.shape.steps);
  p.input_time_s = r.schedule.input_s;
  p.samples_per_s = double(e.samples) / r.epoch_s;
  p.single_gpu_epoch_s = single.epoch_s;
  p.speedup = single.epoch_s / r.epoch_s;
  p.efficiency = p.speedup / p.ranks;
  p.comm_overhead = p.exposed_comm_s / p.step_time_s;
  if (!r.steps.kind_sync.empty()) p.rank_kind = kinds.of_rank;
  p.interference_s = per_step(r, [](const StepTiming& t) { return t.interference_s; });
  p.interference = r.schedule.library.interference;
  p.per_call_s = r.schedule.library.per_call_s;
  p.staging_GBps = r.schedule.library.staging_Bps / kGB;
  p.host_contention = r.contention;
  p.contention_s = p.compute_time_s * (1 - 1 / r.contention);
  p.host_wait_s = (p.compute_time_s - p.contention_s) * prof.host_wait_share;
  p.framework_s = per_step(r, [](const StepTiming& t) { return t.framework_s; });
  p.framework_mode = e.fw.mode == FrameworkMode::Eager ? "eager" : "graph";
  p.negotiation_s = r.schedule.framework.negotiation_s;
  const int shards = e.sharding == Sharding::FsdpHybrid ? sys.cluster.gpus_per_node : sys.ranks();
  const MemoryEstimate mem = memory_per_gpu(sc.model, profiles.model_memory, e, shards);
  p.optimizer = to_string(e.optimizer);
  p.sharding = to_string(e.sharding);
  p.activation_memory_bytes = mem.activations;
  p.memory_per_gpu_bytes = mem.total();
  p.device_memory_bytes = sys.groups.empty() ? sys.device.memory_bytes : smallest_memory(kinds);
  p.fits_in_memory = p.memory_per_gpu_bytes <= p.device_memory_bytes;
  p.steps = std::move(r.steps);  // last: nothing reads the run after this
  check_finite(p);
  return p;
}

}  // namespace predict_layer
}  // namespace ddlsim
