// The rules of a step that both of its evaluators apply: the composer (compose.cpp) on a timeline it
// computes, and SimGrid's full-fidelity run (simgrid/full_fidelity.cpp) on simulated clocks. Each
// rule is written once, here; a new mechanism of the step goes here too.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "schedule/step_schedule.hpp"
#include "schedule/step_timing.hpp"

namespace ddlsim {
inline namespace schedule_layer {

using Interval = std::pair<Seconds, Seconds>;  // [start, end]; end may be infinite while it runs

// Where in the passes (forward then backward, undisturbed) bucket `b`'s time `t` (its ready_s or
// needed_at()) falls: a forward one's own, a backward one after the forward pass, a bucket without
// overlap at the backward pass's end.
Seconds pass_position(const StepSchedule& s, const Bucket& b, Seconds t);

// When exchange i, ready at `ready_at`, may start: a bucket after half a coordination cycle and the
// framework's negotiation, a synchronised layer's at once (StepSchedule::start_delay_s).
Seconds exchange_start_s(const StepSchedule& s, std::size_t i, Seconds ready_at);

// What the timeline calls exchange `b`: "<label> bucket N" for the N-th gradient bucket (`buckets_before`:
// the gradient buckets ahead of it in launch order), a synchronised layer's "sync_bn allgather|allreduce layer L",
// or a sharded unit's parameters, "allgather forward|backward layers F-L".
std::string exchange_name(const Bucket& b, int buckets_before, const std::string& label);

// First order: the backward pass [from, to] runs longer by the library's interference times the
// time exchanges overlap it; the exchanges keep the start times of the undisturbed pass.
Seconds interference_s(const StepSchedule& s, const std::vector<Interval>& exchanges, Seconds from, Seconds to);

// The end of a step whose work (update and the framework's host time included) ends at `work_end`:
// the input pipeline runs ahead and adds only what it needs beyond it. Sets input_wait_s and
// step_s and adds the "input wait" phase.
void close_step(const StepSchedule& s, Seconds work_end, StepTiming& t);

}  // namespace schedule_layer
}  // namespace ddlsim
