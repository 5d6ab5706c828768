#include "backend/analytic.hpp"

#include "cost/collectives.hpp"
#include "cost/decision.hpp"
#include "schedule/compose.hpp"

namespace ddlsim {
inline namespace backend_layer {

// The ranks an exchange runs among, as a topology: a node's GPUs alone (every node's group at once,
// on its own links), or one GPU a node (every local rank's group at once: each GPU's share of the
// node's NICs, the rail route).
CommTopology group_topology(const CommTopology& topo, RankGroup g) {
  CommTopology t = topo;
  if (g == RankGroup::Node) t.nodes = 1;
  if (g == RankGroup::AcrossNodes) {
    t.gpus_per_node = 1;
    t.inter = topo.rail;
    t.switch_reduction = false;
  }
  return t;
}

std::vector<Seconds> analytic_exchange_s(const StepSchedule& s, const CommTopology& topo, const CommMethod& m) {
  std::vector<Seconds> out;
  if (topo.ranks() <= 1) return out;
  for (std::size_t i = 0; i < s.buckets.size(); ++i) {
    const Bucket& b = s.buckets[i];
    if (const auto* call = s.nccl_call(i)) {  // NCCL's call, made with its residual
      out.push_back(call->rounds_s);
      continue;
    }
    const CommTopology t = group_topology(topo, b.group);
    if (t.ranks() <= 1) {
      out.push_back(0);
      continue;
    }
    const LibraryCall k = library_call(m, b.collective, t, b.bytes);
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
