// Full fidelity: every message of every rank, ranks free-running. Two actors per rank on its host:
// compute (forward, backward, optimizer as exec) and communication (each bucket's collective once
// the backward pass has filled it). Each rank runs its kind's schedule (mixed clusters; a platform
// file's slower hosts have longer schedules, system.hpp RankKinds), executed so that it takes
// exactly the schedule's durations. The step is the slowest rank's (synchronous data parallelism).
#pragma once
#include <string>

#include "schedule/step_schedule.hpp"
#include "schedule/step_timing.hpp"
#include "simgrid/placement.hpp"
#include "simgrid/rounds.hpp"

namespace ddlsim {
inline namespace simgrid_layer {

struct FullSteps {
  StepTiming cluster;             // one kind: each field the maximum over ranks; else the last rank to end
  std::vector<StepTiming> kinds;  // several kinds: each kind's first rank's timeline
};

FullSteps run_full(const RankSchedules& rs, const World& w, const Plans& plans, const std::string& label);

}  // namespace simgrid_layer
}  // namespace ddlsim
