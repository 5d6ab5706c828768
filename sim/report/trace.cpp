#include "report/trace.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ddlsim {
inline namespace report_layer {

namespace {
const char* lane_name(Lane l) {
  switch (l) {
    case Lane::Compute: return "compute";
    case Lane::Comm: return "communication";
    case Lane::Input: return "input";
  }
  return "?";
}

void add_step(nlohmann::ordered_json& events, const StepTiming& t, int rank, Seconds offset_s, long long step) {
  for (const Phase& ph : t.phases) {
    nlohmann::ordered_json e;
    e["name"] = ph.name;
    e["cat"] = lane_name(ph.lane);
    e["ph"] = "X";
    e["ts"] = (offset_s + ph.start_s) * 1e6;
    e["dur"] = std::max(0.0, ph.end_s - ph.start_s) * 1e6;
    e["pid"] = rank;
    e["tid"] = int(ph.lane);
    e["args"] = {{"step", step}};
    events.push_back(e);
  }
}

// The local steps past the drawn ones, as one event spanning their time on the compute lane.
void add_elided(nlohmann::ordered_json& events, const StepTiming& local, int rank, Seconds offset_s, long long first,
                long long count) {
  nlohmann::ordered_json e;
  e["name"] = std::to_string(count) + " more local steps (not drawn)";
  e["cat"] = "elided";
  e["ph"] = "X";
  e["ts"] = offset_s * 1e6;
  e["dur"] = std::max(0.0, local.step_s * double(count)) * 1e6;
  e["pid"] = rank;
  e["tid"] = int(Lane::Compute);
  e["args"] = {{"first_step", first}, {"elided_steps", count}};
  events.push_back(e);
}

// A rank of a faster kind (mixed clusters) idles until the slowest rank's period ends.
void add_wait(nlohmann::ordered_json& events, int rank, Seconds from_s, Seconds to_s) {
  if (to_s - from_s <= 1e-12 * std::max(1.0, to_s)) return;
  nlohmann::ordered_json e;
  e["name"] = "wait for slower ranks";
  e["cat"] = "wait";
  e["ph"] = "X";
  e["ts"] = from_s * 1e6;
  e["dur"] = (to_s - from_s) * 1e6;
  e["pid"] = rank;
  e["tid"] = int(Lane::Compute);
  events.push_back(e);
}

nlohmann::ordered_json meta(const char* what, int pid, int tid, const std::string& name) {
  nlohmann::ordered_json e;
  e["name"] = what;
  e["ph"] = "M";
  e["pid"] = pid;
  e["tid"] = tid;
  e["args"] = {{"name", name}};
  return e;
}
}  // namespace

std::string chrome_trace_json(const Prediction& p, int max_ranks, int max_steps) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  const int ranks = std::min(std::max(p.ranks, 1), max_ranks);
  const long long steps = std::max(p.sync_period, 1);
  const long long drawn = std::min<long long>(steps, std::max(max_steps, 1));
  for (int r = 0; r < ranks; ++r) {
    events.push_back(meta("process_name", r, 0, "rank " + std::to_string(r)));
    for (Lane l : {Lane::Compute, Lane::Comm, Lane::Input}) events.push_back(meta("thread_name", r, int(l), lane_name(l)));
    // Mixed clusters: each rank its own kind's steps; the period is the cluster's.
    const bool own = !p.rank_kind.empty();
    const std::size_t kind = own ? std::size_t(p.rank_kind[std::size_t(r)]) : 0;
    const StepTiming& sync = own ? p.steps.kind_sync[kind] : p.steps.sync;
    const StepTiming& local = own ? p.steps.kind_local[kind] : p.steps.local;
    Seconds offset = 0;
    for (long long s = 0; s < drawn; ++s) {
      const StepTiming& t = s == 0 ? sync : local;
      add_step(events, t, r, offset, s);
      offset += t.step_s;
    }
    if (drawn < steps) add_elided(events, local, r, offset, drawn, steps - drawn);
    if (own)
      add_wait(events, r, offset + local.step_s * double(steps - drawn),
               p.steps.sync.step_s + p.steps.local.step_s * double(steps - 1));
  }
  nlohmann::ordered_json doc;
  doc["traceEvents"] = events;
  doc["displayTimeUnit"] = "ms";
  doc["otherData"] = {{"model", p.model}, {"framework", p.framework}, {"algorithm", p.algorithm},
                      {"backend", p.backend}, {"platform", p.platform}, {"ranks", p.ranks},
                      {"sync_period", steps}, {"steps_drawn", drawn}};
  return doc.dump(1) + "\n";
}

}  // namespace report_layer
}  // namespace ddlsim
