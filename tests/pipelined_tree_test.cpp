// NCCL's double binary tree keeps steps in flight (cost/collectives.hpp pipelined_tree_s,
// collective_plan.hpp RoundKind::DbtPipeline): hand calculations on 16 DGX A100, the closed form
// against its plan and against SimGrid (fast and full), never slower than the lockstep phases, and
// comm.ring_steps = lockstep giving the earlier rule back.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cost/collective_plan.hpp"
#include "cost/collectives.hpp"
#include "collective_cli.hpp"
#include "plan_layout.hpp"
#include "simgrid_check.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {
const char* const kBackends[] = {"--simulation.backend=analytic",
                                 "--simulation.backend=simgrid --simulation.fidelity=fast",
                                 "--simulation.backend=simgrid --simulation.fidelity=full"};

// NCCL's Simple protocol, whose floors the closed forms below are written with (the default, auto,
// runs LL and LL128 at small and mid sizes).
double collective_us(const std::string& args) {
  const auto row = testutil::collective_row("--comm.nccl_protocol=simple " + args);
  return row.contains("time_s") ? row["time_s"].get<double>() * 1e6 : -1;
}
}  // namespace

// 16 DGX A100 (128 GPUs), NCCL's dbtree with its Simple floors (tuning.cc's tree hwLat: 4.0 us a
// hop over NVLink, 14 us across the network; 8.4 us a call); both trees of 16 nodes are 4 edges deep (ncclGetBtree), so
// a chunk crosses 2 x 7 NVLink hops and 2 x 4 network hops. Times in us:
//   8 B: one chunk of 4 B, 8.4 + 14 x 4.0 + 8 x 14 = 176.4, plus its bytes' 14 x 4 / 230e9 +
//        8 x 4 / 192e9 s = 0.4 ns (lockstep phases: 296.4)
//   16 MiB: each tree's 8 MiB in 64 chunks of 128 KiB (NCCL's chunk halved while fewer than 8 x 12
//        chunks, down to 128 KiB); a chunk holds an NVLink hop 131072 / 230e9 s = 0.56989 us and a
//        network hop 131072 / 192e9 s = 0.68267 us (the node's 8 x 24 GB/s uplink); the period is
//        the network's 4 chunks a node sends per chunk of each tree: 2.73067 us;
//        8.4 + 14 x (4.0 + 0.56989) + 8 x (14 + 0.68267) + 63 x 2.73067 = 361.87; NCCL's own
//        estimate is more, 176.4 + 16 MiB / (min(0.9 x 192, 80) / 2 GB/s x 0.7, its tree correction
//        at 2^18 x 64 B) = 775.59, and the call lasts that (LibraryCosts::nccl_residual_s)
// Analytic, SimGrid fast and full alike.
TEST(PipelinedTree, SixteenDgxA100ByHand) {
  const double nv = 131072 / 230e9 * 1e6, net = 131072 / 192e9 * 1e6;
  const struct {
    const char* size;
    double us;
  } rows[] = {{"8", 8.4 + 14 * (4.0 + 4 / 230e3) + 8 * (14 + 4 / 192e3)}, {"16M", std::max(8.4 + 14 * (4.0 + nv) + 8 * (14 + net) + 63 * 4 * net, 176.4 + 16777216 / (40e9 * 0.7) * 1e6)}};
  for (const auto& row : rows)
    for (const char* backend : kBackends)
      EXPECT_NEAR(collective_us(std::string("--cluster.platform=dgx-a100 --cluster.nodes=16 --comm.algorithm=dbtree "
                                            "--sizes ") + row.size + " " + backend),
                  row.us, 1e-6 * row.us)
          << row.size << " " << backend;
}

// The closed form is its plan's one DbtPipeline round, on every shape of tree (odd node counts
// shift the second tree, even ones mirror it), with overheads on both routes.
TEST(PipelinedTree, ClosedFormEqualsItsPlan) {
  Route intra{2e-6, 24e9}, inter{5e-6, 2.9e9};
  intra.step_overhead_s = 1.5e-6;
  inter.step_overhead_s = 4e-6;
  for (int nodes : {1, 2, 3, 5, 8})
    for (int g : {1, 2, 4})
      for (Bytes n : {8.0, 1e6, 1e9}) {
        if (nodes * g == 1) continue;
        CommTopology t = testutil::topology(nodes, g, intra, inter);
        t.steps_in_flight = true;
        const Layout l = testutil::layout_of(t);
        const std::vector<Round> plan = collective_plan(Algorithm::DoubleBinaryTree, l, n);
        ASSERT_EQ(plan.size(), 1u);
        ASSERT_EQ(plan.front().kind, RoundKind::DbtPipeline);
        EXPECT_NEAR(collective_time_s(Algorithm::DoubleBinaryTree, t, n), plan_time_s(plan, t),
                    1e-12 * plan_time_s(plan, t))
            << nodes << " x " << g << " " << n;
      }
}

// Overlapping the phases never makes the tree slower than running them one after the other: the
// lockstep plan pays every hop's latency on every chunk and the phases' periods one after the other.
TEST(PipelinedTree, NeverSlowerThanTheLockstepPhases) {
  for (int nodes : {1, 2, 3, 4, 7, 16, 33})
    for (int g : {1, 2, 4, 8})
      for (Bytes n = 8; n <= 4e9; n *= 7) {
        const Route intra{0.5e-6, 230e9}, inter{3e-6, 12e9};
        const Seconds pipelined = double_binary_tree_allreduce_s(nodes, g, n, intra, inter, true);
        const Seconds lockstep = double_binary_tree_allreduce_s(nodes, g, n, intra, inter, false);
        EXPECT_LE(pipelined, lockstep * (1 + 1e-12)) << nodes << " x " << g << " " << n;
      }
}

// SimGrid times one chunk over each kind of hop on the platform (lockstep, with and without its
// payload) and composes the pipeline from them, in both fidelities: equal to the closed form on 5
// nodes of 4 PCIe GPUs with 25 GbE (an odd count: the second tree is the first shifted by one).
TEST(PipelinedTree, SimGridComposesTheSameHops) {
  testutil::expect_simgrid_equals_closed_form(5, Collective::Allreduce, Algorithm::DoubleBinaryTree);
}

// comm.ring_steps = lockstep also runs the tree's phases one after the other, chunk round by chunk
// round: 16 DGX A100, 8 B: 8.4 + 2 x 8 x 4.0 (chain, two chunks through 7 hops) + 2 x 2 x 4 x 14
// (tree, two edge colours, 4 levels) = 296.4 us, plus the 4-byte chunks' 0.6 ns, on all three
// backends (SimGrid full ends each lockstep round for every rank with its slowest hop, a rank with
// nothing to send included).
TEST(PipelinedTree, LockstepKeyRunsThePhasesOneAfterTheOther) {
  const double us = 8.4 + 2 * 8 * (4.0 + 4 / 230e3) + 2 * 2 * 4 * (14 + 4 / 192e3);
  for (const char* backend : kBackends)
    EXPECT_NEAR(collective_us(std::string("--cluster.platform=dgx-a100 --cluster.nodes=16 --comm.algorithm=dbtree "
                                          "--comm.ring_steps=lockstep --sizes 8 ") + backend),
                us, 1e-6 * us)
        << backend;
}
