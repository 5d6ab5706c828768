// SimGrid backend: executes the step schedule as S4U actors on the rank hosts (natural host
// order); compute phases are exec of the cost model's durations, each bucket's collective is
// real point-to-point messages (collective_plan.hpp), payloads by size only.
//   full: per rank a compute actor and a communication actor; every message of every rank;
//         ranks run ahead of each other as the messages allow; the step is the slowest rank's.
//   fast: each distinct round of every bucket's collective is simulated once with all ranks
//         (a barrier before and after), and its duration is multiplied by how often it repeats;
//         the buckets are then placed on the communication stream as the analytic backend does.
//         Needs a symmetric platform: built-in clusters are; a platform file is when its nodes
//         are alike (same routes inside and between nodes), else it runs full.
// The simulation runs in a forked child (SimGrid allows one per process; see isolate.hpp).
#pragma once
#include "schedule/step_schedule.hpp"
#include "schedule/step_timing.hpp"
#include "spec/comm.hpp"
#include "spec/simulation.hpp"
#include "system/system.hpp"

namespace ddlsim {
inline namespace simgrid_layer {

// The sync step from SimGrid; the local step (no exchange) needs no network. Every kind of rank
// runs its own schedule (mixed clusters; a platform file's host speeds are in the schedules).
StepPair simgrid_steps(const RankSchedules& rs, const CommTopology& topo, const CommMethod& m, const System& sys,
                       const SimGridOptions& o);
StepPair simgrid_steps(const StepSchedule& s, const CommTopology& topo, const CommMethod& m, const System& sys,
                       const SimGridOptions& o);

// Whether fast fidelity applies to this platform (else it runs full).
bool simgrid_fast_applies(const CommTopology& topo, const System& sys);

// One collective of `bytes` (nccl-tests' size) alone, no compute, as SimGrid times it: `ddlsim
// collective`, tests and benchmarks. `a` must run `c` (cost/collective_plan.hpp: supports). The
// algorithm's rounds on `topo` as given, like collective_time_s: a library's protocol is the
// caller's (cost/decision.hpp: library_call).
Seconds simgrid_collective_s(Collective c, Algorithm a, const CommTopology& topo, Bytes bytes, const System& sys,
                             const SimGridOptions& o);
// One allreduce.
Seconds simgrid_collective_s(Algorithm a, const CommTopology& topo, Bytes bytes, const System& sys,
                             const SimGridOptions& o);

}  // namespace simgrid_layer
}  // namespace ddlsim
