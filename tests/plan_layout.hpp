// The Layout of a collective plan for a topology, as the tests of the closed forms build it.
#pragma once
#include "cost/collective_plan.hpp"

namespace testutil {

inline ddlsim::CommTopology topology(int nodes, int gpus, ddlsim::Route intra, ddlsim::Route inter) {
  ddlsim::CommTopology t;
  t.nodes = nodes;
  t.gpus_per_node = gpus;
  t.intra = intra;
  t.inter = inter;
  // The tests describe a node's link by its figure alone, as a platform file does: NVLink from
  // nccl_tuning::kNvlinkMin_Bps (ClusterDescription::intra_nvlink).
  t.intra_nvlink = intra.bw_Bps >= ddlsim::nccl_tuning::kNvlinkMin_Bps;
  return t;
}

inline ddlsim::Layout layout_of(const ddlsim::CommTopology& t) {
  ddlsim::Layout l;
  l.ranks = t.ranks();
  l.gpus_per_node = t.gpus_per_node;
  l.exchange_factor = t.flat_route().exchange_factor;
  l.duplex_factor = t.flat_route().duplex_factor;
  l.step_overhead_s = t.flat_route().step_overhead_s;
  l.node_step_overhead_s = t.intra.step_overhead_s;
  return l;
}

}  // namespace testutil
