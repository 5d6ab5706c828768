// SimGrid against a closed form, as the tests of NCCL's pipelined rounds check them.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <string>

#include "cost/collectives.hpp"
#include "simgrid/simgrid_backend.hpp"
#include "system/platform.hpp"
#include "system/system.hpp"

namespace testutil {

// SimGrid fast and full equal the closed form of collective c with algorithm a on topology t of
// system sys at each size (whole bytes per message: SimGrid sends whole bytes) to one part in a
// million, or 10 ns where that is less (SimGrid's event times have a 1 ns precision).
inline void expect_simgrid_equals_closed_form(const ddlsim::System& sys, const ddlsim::CommTopology& t,
                                              ddlsim::Collective c, ddlsim::Algorithm a,
                                              std::initializer_list<ddlsim::Bytes> sizes) {
  using namespace ddlsim;
  for (Bytes n : sizes) {
    const Seconds closed = collective_time_s(c, a, t, n);
    for (Fidelity f : {Fidelity::Fast, Fidelity::Full}) {
      SimGridOptions o;
      o.fidelity = f;
      EXPECT_NEAR(simgrid_collective_s(c, a, t, n, sys, o), closed, std::max(1e-6 * closed, 10e-9))
          << to_string(c) << " " << to_string(a) << " " << n << " B, " << t.nodes << " nodes, in flight "
          << t.steps_in_flight << ", fidelity " << int(f);
    }
  }
}

// The same on `nodes` nodes of 4 PCIe GPUs with 25 GbE (cluster4x25g, NCCL's factors, steps in
// flight), from latency-bound to bandwidth-bound sizes.
inline void expect_simgrid_equals_closed_form(int nodes, ddlsim::Collective c, ddlsim::Algorithm a) {
  using namespace ddlsim;
  System sys;
  sys.cluster = find_cluster("cluster4x25g", "test");
  use_library_factors(sys.cluster, "nccl", true);
  sys.nodes = nodes;
  CommTopology t = comm_topology(sys, nodes, 4, 1);
  t.steps_in_flight = true;
  expect_simgrid_equals_closed_form(sys, t, c, a, {96.0, 3145728.0, 60e6});
}

// An allreduce with algorithm a between the nodes of built-in platform `platform` (NCCL's factors,
// 8 GPUs a node, the cluster as `adjust` leaves it), with and without steps in flight, on 2 and 3
// nodes: SimGrid equals the closed form.
template <class Adjust>
void expect_simgrid_equals_closed_form_across(const std::string& platform, ddlsim::Algorithm a, Adjust adjust) {
  using namespace ddlsim;
  for (int nodes : {2, 3})
    for (bool in_flight : {true, false}) {
      System sys;
      sys.cluster = find_cluster(platform, "test");
      adjust(sys.cluster);
      use_library_factors(sys.cluster, "nccl");
      sys.nodes = nodes;
      CommTopology t = comm_topology(sys, nodes, 8, 1);
      t.steps_in_flight = in_flight;
      expect_simgrid_equals_closed_form(sys, t, Collective::Allreduce, a, {896.0, 73398080.0});
    }
}

}  // namespace testutil
