// Backend choice: the same step schedule evaluated analytically or (later) by SimGrid.
#pragma once
#include <string>

#include "backend/step_timing.hpp"
#include "cost/collectives.hpp"
#include "scenario/scenario.hpp"
#include "schedule/step_schedule.hpp"

namespace ddlsim {

// Runs both kinds of step (sync and local) of `schedule` on `topo` with the scenario's backend.
const char* to_string(BackendKind b);

StepPair run_steps(const Scenario& sc, const StepSchedule& schedule, const CommTopology& topo);

}  // namespace ddlsim
