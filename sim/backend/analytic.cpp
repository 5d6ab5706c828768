#include "backend/analytic.hpp"

#include "cost/collectives.hpp"
#include "cost/decision.hpp"
#include "schedule/compose.hpp"

namespace ddlsim {
inline namespace backend_layer {

std::vector<Seconds> analytic_exchange_s(const StepSchedule& s, const CommTopology& topo, const CommMethod& m) {
  std::vector<Seconds> out;
  if (topo.ranks() <= 1) return out;
  for (const Bucket& b : s.buckets) {
    const LibraryCall k = library_call(m, b.collective, topo, b.bytes);
    out.push_back(collective_time_s(b.collective, k.algorithm, k.topo, k.bytes));
  }
  return out;
}

StepPair analytic_steps(const StepSchedule& s, const CommTopology& topo, const CommMethod& m) {
  return compose_steps(s, analytic_exchange_s(s, topo, m), to_string(m.algorithm));
}

StepPair analytic_steps(const RankSchedules& rs, const CommTopology& topo, const CommMethod& m) {
  return compose_steps(rs, analytic_exchange_s(rs.kinds.front(), topo, m), to_string(m.algorithm));
}

}  // namespace backend_layer
}  // namespace ddlsim
