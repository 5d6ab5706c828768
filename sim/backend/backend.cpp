#include "backend/backend.hpp"

#include "backend/analytic.hpp"

namespace ddlsim {

const char* to_string(BackendKind b) {
  switch (b) {
    case BackendKind::Analytic: return "analytic";
  }
  return "?";
}

StepPair run_steps(const Scenario& sc, const StepSchedule& schedule, const CommTopology& topo) {
  switch (sc.backend) {
    case BackendKind::Analytic: return analytic_steps(schedule, topo, sc.execution.algorithm);
  }
  return analytic_steps(schedule, topo, sc.execution.algorithm);
}

}  // namespace ddlsim
