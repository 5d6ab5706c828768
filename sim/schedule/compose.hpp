// The step composer, the one evaluator of a step's timeline that both backends use: a backend
// supplies each bucket's exchange duration (closed forms, or SimGrid's simulated times) and the
// composer places them on the schedule:
//   forward | backward | exchanges on one communication stream | optimizer (sync) or accumulate
// Each exchange also costs the library's per-call overhead and its host staging copies, and the
// backward pass runs slower by the library's interference while exchanges overlap it.
// Bucket i starts when it is ready (its last layer's backward kernels have run, or the whole
// backward pass without overlap, plus half a coordination cycle) and the previous exchange has
// ended; the update waits for the end of the backward pass and the last exchange; the input
// pipeline runs ahead and only adds what it needs beyond the rest of the step. A synchronised
// layer's exchange (model.sync_bn) takes its place on the same stream as its pass reaches it, and
// the pass waits for its end (exposed communication).
#pragma once
#include <string>
#include <vector>

#include "schedule/step_schedule.hpp"
#include "schedule/step_timing.hpp"

namespace ddlsim {
inline namespace schedule_layer {

// When exchange i may start, from the start of the step, had no pass waited for an exchange.
Seconds bucket_ready_s(const StepSchedule& s, std::size_t i);

// A sync step (exchanges, then the optimizer) or a local one (accumulation; only the synchronised
// layers' exchanges). `exchange_s` holds one duration per exchange (step_rules.hpp exchange_name
// labels them); none for one rank.
StepTiming compose_step(const StepSchedule& s, bool sync, const std::vector<Seconds>& exchange_s,
                        const std::string& label);

// Both kinds of step: the sync one with `exchange_s`, the local one with its blocking ones only.
StepPair compose_steps(const StepSchedule& s, const std::vector<Seconds>& exchange_s, const std::string& label);

// Mixed clusters: ranks of several kinds, each with its own schedule, start a step together. A
// bucket's exchange starts once every kind has it ready (and the stream is free); each kind's update
// waits for its own backward pass and the last exchange; the sync step ends with the slowest rank.
// A local step exchanges no gradients (its synchronised layers' statistics still join the kinds):
// each kind runs its own, and the cluster's is the slowest kind's
// (the next synchronisation waits for it), so a slower device costs its extra time on every
// micro-batch. One kind: exactly compose_steps(kinds[0], ...).
StepPair compose_steps(const RankSchedules& rs, const std::vector<Seconds>& exchange_s, const std::string& label);

}  // namespace schedule_layer
}  // namespace ddlsim
