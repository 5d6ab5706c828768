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

inline ddlsim::Layout layout_of(const ddlsim::CommTopology& t) { return ddlsim::flat_layout(t); }

// Nodes of g GPUs on a switch (each GPU's link `intra`) whose GPUs each send over their own rail
// (`rail`; the inter route has the rail's latency and the GPU link's bandwidth), with or without
// steps in flight: the tests of nvls_tree and collnet.
inline ddlsim::CommTopology nodes_with_rails(int nodes, int g, ddlsim::Route intra, ddlsim::Route rail, bool in_flight) {
  ddlsim::CommTopology t = topology(nodes, g, intra, ddlsim::Route{rail.latency_s, intra.bw_Bps});
  t.rail = rail;
  t.steps_in_flight = in_flight;
  return t;
}

// An algorithm on nodes_with_rails topologies (`make(nodes, in_flight)`), with NCCL's floors as
// software overheads (as use_library_factors sets them) and an exchange factor on the rails (on
// two nodes they exchange): its closed form equals the sum of its plan on 2-6 nodes, from
// latency-bound to bandwidth-bound sizes, with and without steps in flight.
template <class Make>
void expect_closed_form_equals_plan_on_rails(ddlsim::Algorithm a, Make make) {
  using namespace ddlsim;
  for (bool in_flight : {true, false})
    for (int nodes = 2; nodes <= 6; ++nodes)
      for (Bytes n : {896.0, 1835008.0, 73398080.0}) {
        CommTopology t = make(nodes, in_flight);
        t.intra.step_overhead_s = 2.4e-6;
        t.rail.step_overhead_s = 7.6e-6;
        t.rail.exchange_factor = 0.8;
        Layout l = layout_of(t);
        l.step_overhead_s = t.rail.step_overhead_s;
        l.exchange_factor = t.rail.exchange_factor;
        const auto plan = collective_plan(a, l, n);
        ASSERT_FALSE(plan.empty());
        EXPECT_NEAR(plan_time_s(plan, t), collective_time_s(a, t, n), 1e-12)
            << to_string(a) << ", " << nodes << " nodes, " << n << " B, in flight " << in_flight;
      }
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
