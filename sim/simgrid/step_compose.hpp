// The step timeline from per-bucket exchange durations, with the analytic backend's rules: one
// communication stream, a bucket starts when ready (plus half a coordination cycle) and when the
// previous exchange has ended; the optimizer waits for both the backward pass and the last exchange.
#pragma once
#include <string>
#include <vector>

#include "backend/step_timing.hpp"
#include "schedule/step_schedule.hpp"

namespace ddlsim {

// When bucket i becomes ready to exchange, from the start of the step.
Seconds bucket_ready_s(const StepSchedule& s, std::size_t i);

// A sync step with exchange durations `comm_s` (one per bucket), labelled "<label> bucket i".
StepTiming compose_sync_step(const StepSchedule& s, const std::vector<Seconds>& comm_s, const std::string& label);

// Closes a step: optimizer after `update_start`, input wait, totals.
void finish_step(StepTiming& t, const StepSchedule& s, Seconds update_start);

}  // namespace ddlsim
