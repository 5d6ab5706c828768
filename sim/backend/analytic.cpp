#include "backend/analytic.hpp"

#include "cost/collectives.hpp"
#include "schedule/compose.hpp"

namespace ddlsim {

std::vector<Seconds> analytic_exchange_s(const StepSchedule& s, const CommTopology& topo, Algorithm a) {
  std::vector<Seconds> out;
  if (topo.ranks() <= 1) return out;
  for (const Bucket& b : s.buckets) out.push_back(collective_time_s(a, topo, b.bytes));
  return out;
}

StepPair analytic_steps(const StepSchedule& s, const CommTopology& topo, Algorithm a) {
  return compose_steps(s, analytic_exchange_s(s, topo, a), to_string(a));
}

}  // namespace ddlsim
