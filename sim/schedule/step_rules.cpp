#include "schedule/step_rules.hpp"

#include <algorithm>

namespace ddlsim {
inline namespace schedule_layer {

Seconds pass_position(const StepSchedule& s, const Bucket& b, Seconds t) {
  return b.in_forward ? t : s.forward_s + (s.overlap || b.blocking ? t : s.backward_s);
}

Seconds exchange_start_s(const StepSchedule& s, std::size_t i, Seconds ready_at) {
  return ready_at + s.start_delay_s(i);
}

std::string exchange_name(const Bucket& b, int buckets_before, const std::string& label) {
  if (b.parameters)
    return std::string("allgather ") + (b.in_forward ? "forward" : "backward") + " layers " +
           std::to_string(b.first_layer) + "-" + std::to_string(b.last_layer);
  if (b.blocking)
    return std::string("sync_bn ") + (b.collective == Collective::Allgather ? "allgather" : "allreduce") + " layer " +
           std::to_string(b.first_layer);
  return label + " bucket " + std::to_string(buckets_before);
}

Seconds interference_s(const StepSchedule& s, const std::vector<Interval>& exchanges, Seconds from, Seconds to) {
  Seconds overlapped = 0;
  for (const auto& [a, b] : exchanges) overlapped += std::max(0.0, std::min(b, to) - std::max(a, from));
  return s.library.interference * overlapped;
}

void close_step(const StepSchedule& s, Seconds work_end, StepTiming& t) {
  t.input_wait_s = std::max(0.0, s.input_s - work_end);
  t.step_s = work_end + t.input_wait_s;
  if (t.input_wait_s > 0) t.phases.push_back({"input wait", Lane::Input, work_end, t.step_s});
}

}  // namespace schedule_layer
}  // namespace ddlsim
