#include "backend/backend.hpp"

#include "backend/analytic.hpp"
#include "cost/collectives.hpp"
#include "simgrid/simgrid_backend.hpp"

namespace ddlsim {
inline namespace backend_layer {

const char* to_string(BackendKind b) {
  switch (b) {
    case BackendKind::Analytic: return "analytic";
    case BackendKind::SimGrid: return "simgrid";
  }
  return "?";
}

Seconds collective_s(BackendKind kind, Collective c, const LibraryCall& k, const System& sys,
                     const SimGridOptions& simgrid) {
  if (kind == BackendKind::SimGrid) return simgrid_collective_s(c, k.algorithm, k.topo, k.bytes, sys, simgrid);
  return collective_time_s(c, k.algorithm, k.topo, k.bytes);
}

StepPair run_steps(BackendKind kind, const RankSchedules& schedules, const CommTopology& topo, const CommMethod& method,
                   const System& sys, const SimGridOptions& simgrid) {
  if (kind == BackendKind::SimGrid) return simgrid_steps(schedules, topo, method, sys, simgrid);
  return analytic_steps(schedules, topo, method);
}

}  // namespace backend_layer
}  // namespace ddlsim
