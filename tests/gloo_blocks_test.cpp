// gloo's halving-doubling on a rank count that is not a power of two (gloo/allreduce_halving_doubling.h:
// binary blocks, collective_plan.cpp binary_blocks_plan): the blocks, the closed form by hand and
// against its plan, the rounds moving every rank's data to every rank, SimGrid equal to it, and
// `comm.library = gloo` running it where GPI-2 folds the extra ranks instead.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <set>

#include "cost/collective_plan.hpp"
#include "cost/collectives.hpp"
#include "plan_layout.hpp"
#include "simgrid/simgrid_backend.hpp"
#include "system/platform.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {
CommTopology flat(int p, Route r) {
  CommTopology t = testutil::topology(p, 1, r, r);
  t.binary_blocks = true;
  return t;
}

using testutil::layout_of;
}  // namespace

TEST(GlooBlocks, BlocksFollowTheBinaryDigitsLargestFirst) {
  const auto b7 = binary_blocks(7);  // ranks 0-3, 4-5, 6
  ASSERT_EQ(b7.size(), 3u);
  EXPECT_EQ(b7[0].size, 1);
  EXPECT_EQ(b7[0].offset, 6);
  EXPECT_EQ(b7[1].size, 2);
  EXPECT_EQ(b7[1].offset, 4);
  EXPECT_EQ(b7[2].size, 4);
  EXPECT_EQ(b7[2].offset, 0);
  EXPECT_EQ(binary_blocks(8).size(), 1u);
  EXPECT_EQ(binary_blocks(12)[0].offset, 8);  // 8 + 4
}

// alpha = 10 us, B = 1 GB/s, exchanges at half the rate (B_e = 0.5 GB/s), n = 1 GB:
// p = 6 (blocks 4, 2): 2 x 2 steps: 4 alpha + 2 n (1/2 + 1/4) / B_e = 3.00004 s, and the block of 2
// hands its halves to the block of 4 and gets them back: 2 (alpha + n / (2 B)) = 1.00002 s:
// 4.00006 s (the textbook fold: 2 (alpha + n/B) more than the power of two, 5.00006 s).
// p = 7 (4, 2, 1): 3.00004 + 2 (alpha + n / B) [block of 1] + 2 (alpha + n / (2 B)) [block of 2] =
// 6.00008 s.
TEST(GlooBlocks, ClosedFormByHand) {
  Route r{10e-6, 1e9};
  r.exchange_factor = 0.5;
  EXPECT_NEAR(collective_time_s(Algorithm::HalvingDoubling, flat(6, r), 1e9), 4.00006, 1e-9);
  EXPECT_NEAR(collective_time_s(Algorithm::HalvingDoubling, flat(7, r), 1e9), 6.00008, 1e-9);
  CommTopology folded = flat(6, r);
  folded.binary_blocks = false;
  EXPECT_NEAR(collective_time_s(Algorithm::HalvingDoubling, folded, 1e9), 5.00006, 1e-9);
  // A power of two is one block: the textbook rounds.
  EXPECT_NEAR(collective_time_s(Algorithm::HalvingDoubling, flat(8, r), 1e9),
              halving_doubling_allreduce_s(8, 1e9, r), 1e-12);
}

TEST(GlooBlocks, PlanMovesEveryRanksDataAndItsClosedFormCountsIt) {
  Route r{7e-6, 3e9};
  r.exchange_factor = 0.55;
  r.step_overhead_s = 3e-6;
  for (int p = 2; p <= 40; ++p) {
    const CommTopology t = flat(p, r);
    const Layout l = layout_of(t);
    const auto plan = collective_plan(Algorithm::HalvingDoubling, l, 1e6);
    EXPECT_NEAR(plan_time_s(plan, t), collective_time_s(Algorithm::HalvingDoubling, t, 1e6), 1e-12) << p;
    std::vector<std::set<int>> has(p);
    for (int k = 0; k < p; ++k) has[k] = {k};
    for (const Round& round : plan) {
      std::multiset<std::pair<int, int>> sent, received;
      auto next = has;
      for (int me = 0; me < p; ++me) {
        const RoundOps ops = round_ops(round, l, me);
        for (const auto& s : ops.sends) sent.insert({me, s.peer});
        for (int src : ops.recvs) {
          received.insert({src, me});
          next[me].insert(has[src].begin(), has[src].end());
        }
      }
      EXPECT_EQ(sent, received) << p << " kind " << int(round.kind);
      has = next;
    }
    for (int k = 0; k < p; ++k) EXPECT_EQ(int(has[k].size()), p) << "p = " << p << ": rank " << k;
  }
}

TEST(GlooBlocks, SimGridSimulatesTheClosedForm) {
  for (int p : {3, 5, 6, 7}) {
    System sys;
    sys.cluster = find_cluster("tupi", "test");
    sys.nodes = p;
    CommTopology t = flat(p, sys.cluster.inter_route());
    t.intra = sys.cluster.intra_route();
    const Bytes n = 4032000;
    const double closed = collective_time_s(Algorithm::HalvingDoubling, t, n);
    for (Fidelity f : {Fidelity::Fast, Fidelity::Full}) {
      SimGridOptions o;
      o.fidelity = f;
      EXPECT_NEAR(simgrid_collective_s(Algorithm::HalvingDoubling, t, n, sys, o), closed, 1e-6 * closed)
          << p << " fidelity " << int(f);
    }
  }
}

// On 6 Tupi nodes (1 GbE), 10 MiB: gloo's blocks send 2.5 n / B where GPI-2's fold sends 3.5 n / B.
TEST(GlooBlocks, GlooRunsItsBlocks) {
  const auto time_s = [](const char* lib) {
    const auto r = testutil::run_ddlsim(std::string("collective --cluster.platform=tupi --cluster.nodes=6 --algorithm rhd "
                                                    "--sizes 10M --format json --comm.per_call_us=0 --comm.library=") + lib);
    EXPECT_EQ(r.code, 0) << r.out;
    return r.code == 0 ? nlohmann::json::parse(r.out)[0]["time_s"].get<double>() : 0.0;
  };
  EXPECT_NEAR(time_s("gloo") / time_s("gpi2"), 2.5 / 3.5, 0.01);
}
