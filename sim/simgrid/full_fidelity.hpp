// Full fidelity: every message of every rank, ranks free-running. Two actors per rank on its host:
// compute (forward, backward, optimizer as exec) and communication (each bucket's collective once
// the backward pass has filled it). Compute is exec of duration x the fastest rank host's speed,
// so a slower host in a platform file is a straggler; on a homogeneous platform it takes exactly
// the cost model's durations. The step is the slowest rank's (synchronous data parallelism).
#pragma once
#include <string>

#include "schedule/step_schedule.hpp"
#include "schedule/step_timing.hpp"
#include "simgrid/placement.hpp"
#include "simgrid/rounds.hpp"

namespace ddlsim {

StepTiming run_full(const StepSchedule& s, const World& w, const Plans& plans, const std::string& label);

}  // namespace ddlsim
