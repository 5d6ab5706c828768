#include "simgrid/slice.hpp"

#include <algorithm>

namespace ddlsim {
inline namespace simgrid_layer {

namespace {

// Rounds whose every node sends and receives alike, wherever it sits among the nodes.
bool node_alike(RoundKind k) {
  switch (k) {
    case RoundKind::RingStep:
    case RoundKind::LeaderRingStep:
    case RoundKind::NodeTreeUp:
    case RoundKind::NodeTreeDown:
    case RoundKind::NodeChainUp:
    case RoundKind::NodeChainDown:
    case RoundKind::NodeAllPairs:
    case RoundKind::XorExchange: return true;  // a power-of-two count (else the plan has folds)
    default: return false;
  }
}

}  // namespace

bool slice_applies(const Plans& plans, const CommTopology& topo, bool file) {
  if (topo.nodes <= kSliceNodes) return false;
  return std::all_of(plans.begin(), plans.end(), [&](const std::vector<Round>& plan) {
    return std::all_of(plan.begin(), plan.end(),
                       [&](const Round& r) { return node_alike(r.kind) && !(file && r.kind == RoundKind::XorExchange); });
  });
}

Plans slice_plans(const Plans& plans, const CommTopology& topo) {
  Plans out = plans;
  for (auto& plan : out)
    for (Round& r : plan)
      if (r.kind == RoundKind::XorExchange && r.param >= topo.gpus_per_node) r.param = topo.gpus_per_node;
  return out;
}

CommTopology slice_of(const CommTopology& topo) {
  CommTopology s = topo;
  s.nodes = kSliceNodes;
  return s;
}

}  // namespace simgrid_layer
}  // namespace ddlsim
