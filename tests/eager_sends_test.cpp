// MPI's eager sends (comm.eager_limit_kib, cost/eager_rounds.hpp): on a rank count that is not a
// power of two a rank with nothing to do in the fold sends its next message at once, into a
// receiver still busy with the fold. Hand-worked fluid schedules, SimGrid against the rank-by-rank
// evaluation, and where eager sends change nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cost/collectives.hpp"
#include "cost/eager_rounds.hpp"
#include "plan_layout.hpp"
#include "simgrid_check.hpp"
#include "system/platform.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {

// p ranks, one a node, each on its own link of 1 MB/s with no latency: times in units of n / B.
CommTopology flat(int p, Bytes eager_limit) {
  CommTopology t;
  t.nodes = p;
  t.inter = Route{0, 1e6};
  t.intra = t.inter;
  t.eager_limit_bytes = eager_limit;
  return t;
}

double in_transfers(Algorithm a, int p) {
  const Bytes n = 1e6;
  return collective_time_s(a, flat(p, n), n) / (n / 1e6);
}

}  // namespace

// Worked by hand, T = n / B. Recursive doubling on 3 ranks (Open MPI: rank 0 folds into 1, which
// swaps with 2, then returns the result to 0): rank 2 sends to 1 at once, so rank 1's link brings
// in both the fold and rank 2's vector, each at B/2 (2T); then rank 1 sends to 2 (3T) and to 0
// (4T). Rendezvous: 3T. Rabenseifner on 3 (ranks 0 and 1 swap halves, 1 sends its reduced half to
// 0, which goes on with 2): rank 2's half reaches 0 beside 1's, both at B/2 (T); 1's reduced half
// follows (1.5T); 0 sends its half to 2 (2T), they swap the reduced halves (2.5T), and 0 returns n
// to 1 (3.5T).
TEST(EagerSends, FoldsSharedWithEarlyMessagesTakeTheHandWorkedTimes) {
  EXPECT_NEAR(in_transfers(Algorithm::RecursiveDoubling, 3), 4.0, 1e-9);
  EXPECT_NEAR(in_transfers(Algorithm::Rabenseifner, 3), 3.5, 1e-9);
  // 5 ranks: rank 1's link takes the fold, rank 2's vector and (from T) rank 3's, so the first two
  // end at 2.5T, rank 3's at 3T; rank 1 then sends to 2 (3.5T), to 3 (4.5T), the result to 0 (5.5T).
  EXPECT_NEAR(in_transfers(Algorithm::RecursiveDoubling, 5), 5.5, 1e-9);
  // 6 ranks: folds 0->1 and 2->3 (T), 1<->3 (2T) while 4 and 5 (done with each other at T) send to
  // 1 and 3, sharing their links from T to 3T; then 1->4 (4T) and the result (5T).
  EXPECT_NEAR(in_transfers(Algorithm::RecursiveDoubling, 6), 5.0, 1e-9);
  // The same algorithms with every message waiting for its receiver: the lockstep closed forms.
  const Bytes n = 1e6;
  EXPECT_NEAR(collective_time_s(Algorithm::RecursiveDoubling, flat(3, 0), n), 3.0, 1e-9);
  EXPECT_NEAR(collective_time_s(Algorithm::Rabenseifner, flat(3, 0), n), 3.0, 1e-9);
}

TEST(EagerSends, NothingChangesWhereRanksMeetOrMessagesExceedTheLimit) {
  const Bytes n = 8 * kMiB;
  for (Algorithm a : {Algorithm::RecursiveDoubling, Algorithm::Rabenseifner, Algorithm::HalvingDoubling,
                      Algorithm::Tree, Algorithm::Ring}) {
    // Powers of two: every rank reaches every round together.
    for (int p : {2, 4, 8})
      EXPECT_DOUBLE_EQ(collective_time_s(a, flat(p, 64 * kMiB), n), collective_time_s(a, flat(p, 0), n));
    // Messages above the limit wait for their receivers.
    for (int p : {3, 5, 6})
      EXPECT_DOUBLE_EQ(collective_time_s(a, flat(p, 64 * 1024), n), collective_time_s(a, flat(p, 0), n));
  }
  // The ring has no idle rank: nothing changes on any count.
  EXPECT_DOUBLE_EQ(collective_time_s(Algorithm::Ring, flat(5, n), n),
                   collective_time_s(Algorithm::Ring, flat(5, 0), n));
  EXPECT_FALSE(eager_sends_matter(collective_plan(Collective::Allreduce, Algorithm::Ring, flat_layout(flat(5, n)), n),
                                  flat_layout(flat(5, n))));
}

// The rank-by-rank evaluation with every message waiting for its receiver (a limit below every
// message) is the closed forms' lockstep sum, latency and per-round overhead included.
TEST(EagerSends, RendezvousAloneGivesTheClosedForms) {
  const Bytes n = 3e6;
  for (int p : {3, 5, 6, 7, 12}) {
    CommTopology t = flat(p, 0);
    t.inter.latency_s = t.intra.latency_s = 20e-6;
    t.inter.step_overhead_s = t.intra.step_overhead_s = 50e-6;
    t.inter.exchange_factor = t.intra.exchange_factor = 0.8;
    Layout l = flat_layout(t);
    l.eager_limit_bytes = 1;
    for (Algorithm a :
         {Algorithm::RecursiveDoubling, Algorithm::Rabenseifner, Algorithm::HalvingDoubling, Algorithm::Tree})
      EXPECT_NEAR(eager_plan_time_s(collective_plan(Collective::Allreduce, a, l, n), l, t.inter),
                  collective_time_s(a, t, n), 1e-9 * collective_time_s(a, t, n))
          << to_string(a) << " p=" << p;
    for (Collective c : {Collective::Broadcast, Collective::Reduce})
      EXPECT_NEAR(eager_plan_time_s(collective_plan(c, Algorithm::Tree, l, n), l, t.inter),
                  collective_time_s(c, Algorithm::Tree, t, n), 1e-9 * collective_time_s(c, Algorithm::Tree, t, n))
          << to_string(c) << " p=" << p;
  }
}

TEST(EagerSends, MoreBandwidthIsNeverSlower) {
  for (Algorithm a : {Algorithm::RecursiveDoubling, Algorithm::Rabenseifner, Algorithm::Tree})
    for (int p : {3, 5, 6, 7, 12}) {
      CommTopology slow = flat(p, 64 * kMiB);
      CommTopology fast = slow;
      slow.inter.latency_s = fast.inter.latency_s = 20e-6;
      slow.inter.step_overhead_s = fast.inter.step_overhead_s = 50e-6;
      fast.inter.bw_Bps *= 2;
      for (Bytes n : {1e3, 1e6, 1e7})
        EXPECT_LE(collective_time_s(a, fast, n), collective_time_s(a, slow, n)) << to_string(a) << " p=" << p;
    }
}

// SimGrid with a permanent receiver on each eager mailbox (simgrid/rounds.cpp) plays the same
// rounds on a star of split-duplex links: the rank-by-rank evaluation to one part in a million.
TEST(EagerSends, SimGridPlaysTheSameRounds) {
  for (int p : {3, 5, 6, 7}) {
    System sys;
    sys.cluster = find_cluster("tupi", "test");
    sys.nodes = p;
    CommTopology t;
    t.nodes = p;
    t.inter = sys.cluster.inter_route();
    t.intra = sys.cluster.intra_route();
    t.eager_limit_bytes = 64 * kMiB;
    for (Algorithm a :
         {Algorithm::RecursiveDoubling, Algorithm::Rabenseifner, Algorithm::HalvingDoubling, Algorithm::Tree})
      testutil::expect_simgrid_equals_closed_form(sys, t, Collective::Allreduce, a, {4032000.0});
    testutil::expect_simgrid_equals_closed_form(sys, t, Collective::Broadcast, Algorithm::Tree, {4032000.0});
    testutil::expect_simgrid_equals_closed_form(sys, t, Collective::Reduce, Algorithm::Tree, {4032000.0});
  }
}

TEST(EagerSends, TheKeyIsMpisAndAKibCount) {
  const auto ok = testutil::run_ddlsim(
      "collective --cluster.nodes=3 --comm.library=mpi --algorithm rd --comm.eager_limit_kib=65536 --sizes 1M");
  ASSERT_EQ(ok.code, 0) << ok.out;
  const auto nccl = testutil::run_ddlsim("collective --cluster.nodes=3 --comm.library=nccl --comm.eager_limit_kib=64");
  EXPECT_EQ(nccl.code, 2) << nccl.out;
  EXPECT_NE(nccl.out.find("comm.eager_limit_kib"), std::string::npos) << nccl.out;
  EXPECT_NE(nccl.out.find("comm.library = mpi"), std::string::npos) << nccl.out;
  const auto negative =
      testutil::run_ddlsim("collective --cluster.nodes=3 --comm.library=mpi --comm.eager_limit_kib=-1");
  EXPECT_EQ(negative.code, 2) << negative.out;
  EXPECT_NE(negative.out.find("comm.eager_limit_kib"), std::string::npos) << negative.out;
}

// A training step with two fusion buckets (Horovod over MPI, recursive doubling on 3 ranks, the
// second bucket within the limit): SimGrid starts each bucket once every rank has reached it, as
// the analytic step does, so a rank that left the first bucket early does not send the second's
// messages ahead; both backends give the same step.
TEST(EagerSends, BothBackendsGiveTheSameTrainingStep) {
  const std::string scenario =
      "simulate --cluster.platform=tupi --cluster.nodes=3 --training.framework=horovod --comm.library=mpi "
      "--comm.algorithm=rd --format json";
  const auto step_s = [&](const std::string& more) {
    const auto r = testutil::run_ddlsim(scenario + more);
    EXPECT_EQ(r.code, 0) << r.out;
    return r.code == 0 ? nlohmann::json::parse(r.out)["step_time_s"].get<double>() : 0.0;
  };
  const double analytic = step_s(" --comm.eager_limit_kib=65536");
  EXPECT_NEAR(step_s(" --comm.eager_limit_kib=65536 --simulation.backend=simgrid"), analytic, 1e-6 * analytic);
  // The eager second bucket is slower than it would be waiting for its receivers (3 ranks' fold).
  EXPECT_GT(analytic, step_s(""));
}
