// The Layout of a collective plan for a topology, as the tests of the closed forms build it.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "cost/collective_plan.hpp"
#include "cost/collectives.hpp"

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

// An algorithm that sends over the GPUs' links and their rails: more bandwidth on either is never
// slower, and more latency on the rails never faster, for topology `base` and n bytes.
inline void expect_monotone_in_links(ddlsim::Algorithm a, const ddlsim::CommTopology& base, ddlsim::Bytes n) {
  using namespace ddlsim;
  const Seconds t = collective_time_s(a, base, n);
  const std::string what = std::string(to_string(a)) + ", " + std::to_string(base.nodes) + " nodes, " + std::to_string(n) + " B";
  CommTopology faster = base;
  faster.rail.bw_Bps *= 1.5;
  EXPECT_LE(collective_time_s(a, faster, n), t) << what;
  faster = base;
  faster.intra.bw_Bps *= 1.5;
  EXPECT_LE(collective_time_s(a, faster, n), t) << what;
  CommTopology slower = base;
  slower.rail.latency_s *= 2;
  EXPECT_GE(collective_time_s(a, slower, n), t) << what;
}

}  // namespace testutil
