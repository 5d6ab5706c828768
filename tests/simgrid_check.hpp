// SimGrid against a closed form, as the tests of NCCL's pipelined rounds check them.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>

#include "cost/collectives.hpp"
#include "simgrid/simgrid_backend.hpp"
#include "system/platform.hpp"
#include "system/system.hpp"

namespace testutil {

// Collective c with algorithm a on `nodes` nodes of 4 PCIe GPUs with 25 GbE (cluster4x25g, NCCL's
// factors, steps in flight), from latency-bound to bandwidth-bound sizes (whole bytes per message:
// SimGrid sends whole bytes): SimGrid fast and full equal the closed form to one part in a
// million, or 10 ns where that is less (SimGrid's event times have a 1 ns precision).
inline void expect_simgrid_equals_closed_form(int nodes, ddlsim::Collective c, ddlsim::Algorithm a) {
  using namespace ddlsim;
  System sys;
  sys.cluster = find_cluster("cluster4x25g", "test");
  use_library_factors(sys.cluster, "nccl", true);
  sys.nodes = nodes;
  CommTopology t = comm_topology(sys, nodes, 4, 1);
  t.steps_in_flight = true;
  for (Bytes n : {96.0, 3145728.0, 60e6}) {
    const Seconds closed = collective_time_s(c, a, t, n);
    for (Fidelity f : {Fidelity::Fast, Fidelity::Full}) {
      SimGridOptions o;
      o.fidelity = f;
      EXPECT_NEAR(simgrid_collective_s(c, a, t, n, sys, o), closed, std::max(1e-6 * closed, 10e-9))
          << to_string(c) << " " << to_string(a) << " " << n << " fidelity " << int(f);
    }
  }
}

}  // namespace testutil
