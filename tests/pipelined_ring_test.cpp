// NCCL's rings across nodes keep steps in flight (cost/collectives.hpp pipelined_ring_s,
// collective_plan.hpp Layout::steps_in_flight): the closed form against the recurrence it solves,
// the lockstep ring where every hop is alike, hand calculations on 2 DGX A100, and the closed form
// against its plan's rounds and against SimGrid (fast and full).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <vector>

#include "cost/collective_plan.hpp"
#include "cost/collectives.hpp"
#include "cost/decision.hpp"
#include "plan_layout.hpp"
#include "simgrid/simgrid_backend.hpp"
#include "system/platform.hpp"
#include "system/system.hpp"
#include "simgrid_check.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {

// The recurrence itself, step by step (no window argument): rank r starts sending step k at
// f(r,k) = max(a(r,k-1) + overhead_r, f(r,k-1) + serial_r); its message reaches r+1 at
// a(r+1,k) = f(r,k) + latency_r + serial_r; the ring ends when the last step has reached every rank.
// The hop leaving rank r crosses nodes when (r+1) % g == 0. fixed = overhead + latency, split in two
// halves here (the split does not matter to the result, only the sum).
Seconds recurrence_s(int nodes, int g, int steps, RingHop intra, RingHop inter) {
  const int p = nodes * g;
  const auto hop = [&](int r) { return (r + 1) % g == 0 ? inter : intra; };
  std::vector<Seconds> a(p, 0), f(p, 0), next(p, 0);
  for (int k = 0; k < steps; ++k) {
    for (int r = 0; r < p; ++r) {
      const RingHop h = hop(r);
      f[r] = k == 0 ? h.fixed_s / 2 : std::max(a[r] + h.fixed_s / 2, f[r] + h.serial_s);
    }
    for (int r = 0; r < p; ++r) next[(r + 1) % p] = f[r] + hop(r).fixed_s / 2 + hop(r).serial_s;
    a = next;
  }
  return *std::max_element(a.begin(), a.end());
}

}  // namespace

TEST(PipelinedRing, ClosedFormIsTheLongestPathOfTheRecurrence) {
  const struct {
    RingHop intra, inter;
  } cases[] = {
      {{3.4e-6, 0}, {9.6e-6, 0}},              // latency-bound (2 DGX A100 at 8 B)
      {{3.4e-6, 290e-6}, {9.6e-6, 350e-6}},    // bandwidth-bound, the network the bottleneck
      {{2e-6, 1e-6}, {12e-6, 0.5e-6}},         // in between, the node's hops the slower ones
      {{5e-6, 100e-6}, {1e-6, 20e-6}},         // the network faster than the node (PCIe vs IB)
  };
  for (const auto& c : cases)
    for (int g : {1, 2, 3, 4, 8})
      for (int nodes : {2, 3, 5}) {
        const int p = nodes * g;
        for (int steps : {p - 1, 2 * (p - 1)}) {
          const Seconds want = recurrence_s(nodes, g, steps, c.intra, c.inter);
          EXPECT_NEAR(pipelined_ring_s(steps, g, c.intra, c.inter), want, 1e-12 * want)
              << "g=" << g << " nodes=" << nodes << " steps=" << steps;
        }
      }
}

// The closed form tries O(g) windows; every window, tried one by one, gives the same maximum (the
// windows of one residue mod g are linear in their length), on rings of up to 8,190 steps.
TEST(PipelinedRing, TheFewWindowsTriedGiveEveryWindowsMaximum) {
  const auto every_window = [](int steps, int g, RingHop intra, RingHop inter) {
    Seconds t = 0;
    for (int w = 1; w <= steps; ++w)
      for (int e : {w / g, (w + g - 1) / g}) {
        const int i = w - e;
        Seconds slowest = 0, path = 0;
        if (e > 0) slowest = inter.serial_s, path += e * inter.total_s();
        if (i > 0) slowest = std::max(slowest, intra.serial_s), path += i * intra.total_s();
        t = std::max(t, path + (steps - w) * slowest);
      }
    return t;
  };
  const RingHop hops[] = {{3.4e-6, 0}, {9.6e-6, 0}, {3.4e-6, 290e-6}, {9.6e-6, 350e-6}, {2e-6, 1e-6},
                          {12e-6, 0.5e-6}, {5e-6, 100e-6}, {1e-6, 20e-6}, {0, 1e-6}, {1e-6, 1e-6}};
  for (const RingHop& intra : hops)
    for (const RingHop& inter : hops)
      for (int g : {1, 2, 3, 4, 7, 8, 16})
        for (int steps : {1, 2, 3, 5, 8, 15, 16, 17, 63, 2046, 8190}) {
          const Seconds want = every_window(steps, g, intra, inter);
          EXPECT_NEAR(pipelined_ring_s(steps, g, intra, inter), want, 1e-12 * want) << "g=" << g << " steps=" << steps;
        }
}

// Every hop alike: nothing is gained, the lockstep ring 2 (p-1) (alpha + n / (p B)) to the digit;
// on one node a plan is not even marked pipelined.
TEST(PipelinedRing, EveryHopAlikeIsTheLockstepRing) {
  const Route r{4e-6, 10e9};
  CommTopology t = testutil::topology(4, 2, r, r);
  t.steps_in_flight = true;
  EXPECT_NEAR(collective_time_s(Algorithm::Ring, t, 8e6), ring_allreduce_s(8, 8e6, r), 1e-15);
  CommTopology one = testutil::topology(1, 8, r, r);
  Layout l = testutil::layout_of(one);
  l.steps_in_flight = true;
  EXPECT_FALSE(collective_plan(Algorithm::Ring, l, 8e6).front().pipelined);
}

// The closed form counts its plan's rounds: allreduce (2 (p-1) steps), reduce-scatter and allgather
// (p-1 steps), on nodes of 4 GPUs whose network hop is slower.
TEST(PipelinedRing, ClosedFormEqualsItsPlan) {
  Route intra{2e-6, 24e9}, inter{5e-6, 2.9e9};
  intra.step_overhead_s = 1.5e-6;
  inter.step_overhead_s = 4e-6;
  CommTopology t = testutil::topology(3, 4, intra, inter);
  t.steps_in_flight = true;
  const Layout l = testutil::layout_of(t);
  for (Collective c : {Collective::Allreduce, Collective::ReduceScatter, Collective::Allgather})
    for (Bytes n : {8.0, 1e6, 1e9}) {
      const std::vector<Round> plan = collective_plan(c, Algorithm::Ring, l, n);
      ASSERT_TRUE(plan.front().pipelined);
      EXPECT_NEAR(collective_time_s(c, Algorithm::Ring, t, n), plan_time_s(plan, t), 1e-12 * plan_time_s(plan, t))
          << to_string(c) << " " << n;
    }
}

// Only NCCL keeps steps in flight (library_call); MPI's ring stays lockstep.
TEST(PipelinedRing, OnlyNcclsRings) {
  const CommTopology t = testutil::topology(2, 8, Route{2e-6, 230e9}, Route{4e-6, 192e9});
  EXPECT_TRUE(library_call({Library::Nccl, Algorithm::Ring}, Collective::Allreduce, t, 1e6).topo.steps_in_flight);
  EXPECT_FALSE(library_call({Library::Mpi, Algorithm::Ring}, Collective::Allreduce, t, 1e6).topo.steps_in_flight);
}

// 2 DGX A100 (16 GPUs, NCCL's Simple floors: 3.4 us a step over NVLink, 14.0 us across the network,
// 8.4 us a call), nccl-tests' allreduce, times in us:
//   8 B: a step crosses the network on at most ceil(30 / 8) = 4 of its 30 hops:
//        8.4 + 4 x 14.0 + 26 x 3.4 = 152.8 (lockstep: 8.4 + 30 x 14.0 = 428.4)
//   1 GiB: 67 108 864 B a step; the network hop (min(NVLink 230, 8 x 24 GB/s uplink) = 192 GB/s)
//        holds each for 349.5253 us and is the bottleneck: one hop's latency, then 30 of them back
//        to back: 8.4 + 14.0 + 30 x 349.5253 = 10 508.16 (lockstep 10 914.16); NCCL's own estimate
//        is more, (8.4 + 28 x 3.4 + 2 x 14) x 1.4 (its plateau) + 1 GiB / (192 GB/s x 16/30)
//        = 10 670.00, and the call lasts that (LibraryCosts::nccl_residual_s)
// Analytic, SimGrid fast and full alike.
TEST(PipelinedRing, TwoDgxA100ByHand) {
  const struct {
    const char* size;
    double us;
  } rows[] = {{"8", 8.4 + 4 * 14.0 + 26 * 3.4}, {"1G", std::max(8.4 + 14.0 + 30 * (1073741824.0 / 16 / 192e9 * 1e6),
                                                             131.6 * 1.4 + 1073741824.0 / (192e9 * 16 / 30) * 1e6)}};
  for (const auto& row : rows)
    for (const char* backend : {"--simulation.backend=analytic", "--simulation.backend=simgrid --simulation.fidelity=fast",
                                "--simulation.backend=simgrid --simulation.fidelity=full"}) {
      const auto r = testutil::run_ddlsim(std::string("collective --comm.nccl_protocol=simple --cluster.platform=dgx-a100 --cluster.nodes=2 "
                                                      "--comm.algorithm=ring --format json --sizes ") +
                                          row.size + " " + backend);
      ASSERT_EQ(r.code, 0) << r.out;
      EXPECT_NEAR(nlohmann::json::parse(r.out)[0]["time_s"].get<double>() * 1e6, row.us, 1e-6 * row.us)
          << row.size << " " << backend;
    }
}

// SimGrid runs the pipelined rounds (full: every step, a sender per rank pacing its link; fast: one
// step's hops timed and composed) and both equal the closed form on nodes of 4 GPUs on PCIe with
// 25 GbE between them, from latency-bound to bandwidth-bound sizes: to one part in a million, or
// 10 ns where that is less (SimGrid rounds event times to its precision/timing, 1 ns by default, and
// the full run's many concurrent events on 3 nodes at 96 B land 3.3 ns early).
TEST(PipelinedRing, SimGridSimulatesTheClosedForm) {
  for (Collective c : {Collective::Allreduce, Collective::Allgather})
    testutil::expect_simgrid_equals_closed_form(3, c, Algorithm::Ring);
}

// comm.ring_steps = lockstep switches the mechanism off: every step lasts its slowest hop (2 DGX
// A100, 8 B: 8.4 + 30 x 14.0 = 428.4 us), in every backend; a wrong value is an input error naming
// the key.
TEST(PipelinedRing, LockstepKeyMakesEveryStepItsSlowestHop) {
  for (const char* backend : {"--simulation.backend=analytic", "--simulation.backend=simgrid --simulation.fidelity=fast",
                              "--simulation.backend=simgrid --simulation.fidelity=full"}) {
    const auto r = testutil::run_ddlsim(std::string("collective --comm.nccl_protocol=simple --cluster.platform=dgx-a100 --cluster.nodes=2 "
                                                    "--comm.algorithm=ring --comm.ring_steps=lockstep --format json "
                                                    "--sizes 8 ") + backend);
    ASSERT_EQ(r.code, 0) << r.out;
    // to one part in a million: each step's half byte (a whole one in SimGrid) adds 30 x 5 ps
    EXPECT_NEAR(nlohmann::json::parse(r.out)[0]["time_s"].get<double>() * 1e6, 8.4 + 30 * 14.0, 1e-6 * 428.4) << backend;
  }
  const auto bad = testutil::run_ddlsim("collective --cluster.platform=dgx-a100 --comm.ring_steps=sometimes --sizes 8");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("comm.ring_steps"), std::string::npos) << bad.out;
}
