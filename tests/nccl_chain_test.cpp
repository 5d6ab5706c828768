// NCCL's broadcast and reduce run along its ring, pipelined in chunks of 512 KiB (collective_plan.cpp
// chain_plan, cost/collectives.hpp pipelined_chain_s): hand calculations on DGX A100 nodes, the
// closed form against its plan and SimGrid, the lockstep rule, and the other libraries' binomial tree.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cost/collective_plan.hpp"
#include "cost/collectives.hpp"
#include "cost/decision.hpp"
#include "plan_layout.hpp"
#include "collective_cli.hpp"
#include "simgrid_check.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {
const char* const kBackends[] = {"--simulation.backend=analytic",
                                 "--simulation.backend=simgrid --simulation.fidelity=fast",
                                 "--simulation.backend=simgrid --simulation.fidelity=full"};

using testutil::collective_row;
}  // namespace

// nccl-tests' broadcast of 1 GiB, times in us (Simple's floors: 3.4 us a hop over NVLink, 14.0 us
// across the network, 8.4 us a call). 2048 chunks of 524 288 B; a chunk holds an NVLink hop
// 524288 / 230e9 s = 2.27951 us, the network hop (the node's 8 x 24 GB/s) 2.73067 us.
//   1 DGX A100: 8.4 + 7 x (3.4 + 2.27951) + 2047 x 2.27951 = 4714.32 (busbw = algbw 227.8 GB/s;
//               a binomial tree: 3 rounds of the whole vector, 76.6 GB/s)
//   2 DGX A100: 8.4 + 14 x (3.4 + 2.27951) + (14.0 + 2.73067) + 2047 x 2.73067 = 5694.32
// Reduce runs the same chain towards rank 0. Analytic, SimGrid fast and full alike.
TEST(NcclChain, BroadcastAndReduceOnDgxA100ByHand) {
  const double nv = 524288 / 230e9 * 1e6, net = 524288 / 192e9 * 1e6;
  const struct {
    int nodes;
    double us;
  } rows[] = {{1, 8.4 + 7 * (3.4 + nv) + 2047 * nv}, {2, 8.4 + 14 * (3.4 + nv) + (14.0 + net) + 2047 * net}};
  for (const auto& row : rows)
    for (const char* op : {"broadcast", "reduce"})
      for (const char* backend : kBackends) {
        const auto j = collective_row("--cluster.platform=dgx-a100 --cluster.nodes=" + std::to_string(row.nodes) +
                                      " --op " + op + " --sizes 1G " + backend);
        EXPECT_EQ(j.value("algorithm", ""), "ring") << op;
        EXPECT_NEAR(j.value("time_s", 0.0) * 1e6, row.us, 1e-6 * row.us) << row.nodes << " " << op << " " << backend;
      }
}

// The closed form is its plan's rounds, pipelined (one ChainPipeline round) and lockstep (K + p - 2
// chunk rounds), on one node and across nodes, with overheads on both routes.
TEST(NcclChain, ClosedFormEqualsItsPlan) {
  Route intra{2e-6, 24e9}, inter{5e-6, 2.9e9};
  intra.step_overhead_s = 1.5e-6;
  inter.step_overhead_s = 4e-6;
  for (bool in_flight : {true, false})
    for (int nodes : {1, 2, 3, 5})
      for (int g : {1, 2, 4})
        for (Collective c : {Collective::Broadcast, Collective::Reduce})
          for (Bytes n : {8.0, 1e6, 1e9}) {
            if (nodes * g == 1) continue;
            CommTopology t = testutil::topology(nodes, g, intra, inter);
            t.steps_in_flight = in_flight;
            const Layout l = testutil::layout_of(t);
            const std::vector<Round> plan = collective_plan(c, Algorithm::Ring, l, n);
            ASSERT_EQ(plan.size(), 1u);
            EXPECT_NEAR(collective_time_s(c, Algorithm::Ring, t, n), plan_time_s(plan, t), 1e-12 * plan_time_s(plan, t))
                << in_flight << " " << nodes << " x " << g << " " << to_string(c) << " " << n;
          }
}

// SimGrid full runs the chain chunk by chunk (run_pipelined_chain), fast times one chunk over a hop
// inside a node and one between nodes and composes the chain from them: both equal the closed form
// on 3 nodes of 4 PCIe GPUs with 25 GbE.
TEST(NcclChain, SimGridRunsTheClosedForm) {
  for (Collective c : {Collective::Broadcast, Collective::Reduce})
    testutil::expect_simgrid_equals_closed_form(3, c, Algorithm::Ring);
}

// Only NCCL broadcasts along its ring by default; Open MPI and gloo keep the binomial tree (as
// before), and `--algorithm tree` still runs the tree with NCCL. comm.ring_steps = lockstep runs
// the chain in chunk rounds: 1 DGX A100, 8 B, one chunk through 7 hops: 8.4 + 7 x 3.4 = 32.2 us
// either way, and 1 GiB (2048 + 6) x (3.4 + 2.27951) = 11665.9 us plus the call's 8.4.
TEST(NcclChain, OnlyNcclAndTheLockstepRule) {
  const CommTopology t = testutil::topology(2, 8, Route{2e-6, 230e9}, Route{4e-6, 192e9});
  EXPECT_EQ(library_call({Library::Nccl, Algorithm::Auto}, Collective::Broadcast, t, 1e6).algorithm, Algorithm::Ring);
  EXPECT_EQ(library_call({Library::Mpi, Algorithm::Auto}, Collective::Broadcast, t, 1e6).algorithm, Algorithm::Tree);
  EXPECT_EQ(library_call({Library::Gloo, Algorithm::Auto}, Collective::Reduce, t, 1e6).algorithm, Algorithm::Tree);
  EXPECT_EQ(collective_row("--cluster.platform=dgx-a100 --op broadcast --algorithm tree --sizes 1M").value("algorithm", ""),
            "tree");
  const double lockstep_us = 8.4 + 2054 * (3.4 + 524288 / 230e9 * 1e6);
  for (const char* backend : {kBackends[0], kBackends[1]})
    EXPECT_NEAR(collective_row(std::string("--cluster.platform=dgx-a100 --op broadcast --comm.ring_steps=lockstep "
                                           "--sizes 1G ") + backend).value("time_s", 0.0) * 1e6,
                lockstep_us, 1e-6 * lockstep_us)
        << backend;
}
