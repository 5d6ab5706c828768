// Analytic backend: evaluates the step schedule with the closed-form collective costs.
// Exchanges run one at a time on one communication stream, each starting when its bucket is
// ready (plus half a coordination cycle) and the previous exchange has ended; the optimizer
// waits for the last exchange and the end of the backward pass.
#pragma once
#include "backend/step_timing.hpp"
#include "cost/collectives.hpp"
#include "schedule/step_schedule.hpp"

namespace ddlsim {

StepTiming analytic_step(const StepSchedule& s, const CommTopology& topo, Algorithm a, bool sync);
StepPair analytic_steps(const StepSchedule& s, const CommTopology& topo, Algorithm a);

}  // namespace ddlsim
