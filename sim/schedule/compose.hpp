// The step composer, the one evaluator of a step's timeline that both backends use: a backend
// supplies each bucket's exchange duration (closed forms, or SimGrid's simulated times) and the
// composer places them on the schedule:
//   forward | backward | exchanges on one communication stream | optimizer (sync) or accumulate
// Each exchange also costs the library's per-call overhead and its host staging copies, and the
// backward pass runs slower by the library's interference while exchanges overlap it.
// Bucket i starts when it is ready (its last layer's backward kernels have run, or the whole
// backward pass without overlap, plus half a coordination cycle) and the previous exchange has
// ended; the update waits for the end of the backward pass and the last exchange; the input
// pipeline runs ahead and only adds what it needs beyond the rest of the step.
#pragma once
#include <string>
#include <vector>

#include "schedule/step_schedule.hpp"
#include "schedule/step_timing.hpp"

namespace ddlsim {

// When bucket i becomes ready to exchange, from the start of the step.
Seconds bucket_ready_s(const StepSchedule& s, std::size_t i);

// A sync step (exchanges, then the optimizer) or a local one (accumulation, no exchange).
// `exchange_s` holds one duration per bucket, labelled "<label> bucket i"; none for one rank.
StepTiming compose_step(const StepSchedule& s, bool sync, const std::vector<Seconds>& exchange_s,
                        const std::string& label);

// Both kinds of step: the sync one with `exchange_s`, the local one without exchange.
StepPair compose_steps(const StepSchedule& s, const std::vector<Seconds>& exchange_s, const std::string& label);

}  // namespace ddlsim
