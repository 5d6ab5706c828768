// Analytic backend: each bucket's exchange costs the closed form of cost/collectives.hpp; the
// step composer (schedule/compose.hpp) places the exchanges on the step.
#pragma once
#include <vector>

#include "schedule/step_schedule.hpp"
#include "schedule/step_timing.hpp"
#include "spec/comm.hpp"

namespace ddlsim {

// One closed-form duration per bucket; none for a single rank.
std::vector<Seconds> analytic_exchange_s(const StepSchedule& s, const CommTopology& topo, Algorithm a);

StepPair analytic_steps(const StepSchedule& s, const CommTopology& topo, Algorithm a);

}  // namespace ddlsim
