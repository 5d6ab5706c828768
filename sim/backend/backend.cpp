#include "backend/backend.hpp"

#include "backend/analytic.hpp"
#include "simgrid/simgrid_backend.hpp"

namespace ddlsim {

const char* to_string(BackendKind b) {
  switch (b) {
    case BackendKind::Analytic: return "analytic";
    case BackendKind::SimGrid: return "simgrid";
  }
  return "?";
}

StepPair run_steps(const Scenario& sc, const StepSchedule& schedule, const CommTopology& topo) {
  switch (sc.backend) {
    case BackendKind::Analytic: return analytic_steps(schedule, topo, sc.execution.algorithm);
    case BackendKind::SimGrid:  // one rank needs no network: the one-GPU reference stays analytic
      return simgrid_steps(schedule, topo, sc.execution.algorithm, sc.system, sc.simgrid);
  }
  return analytic_steps(schedule, topo, sc.execution.algorithm);
}

}  // namespace ddlsim
