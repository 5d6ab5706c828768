// Backend choice: the same step schedule evaluated with closed forms (analytic) or simulated
// (SimGrid); both hand their exchange times to the one step composer. This layer only dispatches.
#pragma once
#include "cost/decision.hpp"
#include "schedule/step_schedule.hpp"
#include "schedule/step_timing.hpp"
#include "spec/comm.hpp"
#include "spec/simulation.hpp"
#include "system/system.hpp"

namespace ddlsim {
inline namespace backend_layer {

const char* to_string(BackendKind b);

// One collective `c` alone (no compute), as the library runs the call (its algorithm, NCCL's
// protocol's routes and bytes: cost/decision.hpp library_call).
Seconds collective_s(BackendKind kind, Collective c, const LibraryCall& call, const System& sys,
                     const SimGridOptions& simgrid);

// Runs both kinds of step (sync and local) of `schedules` on `topo`, exchanging with `method`,
// on the chosen backend (`sys` and `simgrid` describe what SimGrid simulates). `schedules`: every
// kind of rank's own (mixed clusters, hosts of different speeds).
StepPair run_steps(BackendKind kind, const RankSchedules& schedules, const CommTopology& topo, const CommMethod& method,
                   const System& sys, const SimGridOptions& simgrid);

}  // namespace backend_layer
}  // namespace ddlsim
