// Analytic backend: each bucket's exchange costs the closed form of cost/collectives.hpp; the
// step composer (schedule/compose.hpp) places the exchanges on the step.
#pragma once
#include <vector>

#include "schedule/step_schedule.hpp"
#include "schedule/step_timing.hpp"
#include "spec/comm.hpp"

namespace ddlsim {
inline namespace backend_layer {

// The ranks a bucket's exchange runs among (Bucket::group) as a topology: a node's GPUs alone, or
// one GPU a node on its share of the node's NICs (the rail route), every group at once.
CommTopology group_topology(const CommTopology& topo, RankGroup g);

// One closed-form duration per bucket (the library's choice of algorithm for its size with `auto`);
// none for a single rank.
std::vector<Seconds> analytic_exchange_s(const StepSchedule& s, const CommTopology& topo, const CommMethod& m);

StepPair analytic_steps(const StepSchedule& s, const CommTopology& topo, const CommMethod& m);
// Every kind of rank its own schedule (mixed clusters; the exchanges depend on the sizes only).
StepPair analytic_steps(const RankSchedules& rs, const CommTopology& topo, const CommMethod& m);

}  // namespace backend_layer
}  // namespace ddlsim
