// Collectives as rounds of messages (cost/collective_plan.hpp): every algorithm's rounds move the
// data the collective needs, its closed form counts exactly those rounds, SimGrid simulates exactly
// those rounds (to 1e-6 on contention-free platforms), `auto` follows Open MPI 4.1's decision table,
// and bus bandwidths follow nccl-tests' formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "plan_layout.hpp"
#include "cost/collective_plan.hpp"
#include "cost/collectives.hpp"
#include "cost/decision.hpp"
#include "simgrid/simgrid_backend.hpp"
#include "system/platform.hpp"

using namespace ddlsim;

namespace {

const Collective kAll[] = {Collective::Allreduce, Collective::ReduceScatter, Collective::Allgather,
                           Collective::Broadcast, Collective::Reduce,        Collective::Alltoall};

CommTopology flat(int p, Route r) {
  CommTopology t;
  t.nodes = p;
  t.gpus_per_node = 1;
  t.intra = r;
  t.inter = r;
  return t;
}

using testutil::layout_of;

// The layout an algorithm runs on in these tests: p ranks one a node, or (nvls_tree and collnet,
// which need nodes of several GPUs on a switch) p nodes of 4 GPUs.
Layout layout_for(Algorithm a, int p) {
  Layout l = layout_of(flat(p, Route{1e-6, 1e9}));
  if (a == Algorithm::NvlsTree || a == Algorithm::CollnetDirect) l.ranks = 4 * p, l.gpus_per_node = 4;
  return l;
}

// Which ranks' data each rank holds after the plan (information flow: a receive merges the
// sender's set). Order of rounds as written; sends and receives of one round happen together.
// A RailShift stands for the network switch's reduction (collnet): its messages carry the switch's
// traffic, and what comes back down to local rank k is the sum over every node's local rank k.
std::vector<std::set<int>> flow(const std::vector<Round>& plan, const Layout& l) {
  std::vector<std::set<int>> has(l.ranks);
  for (int r = 0; r < l.ranks; ++r) has[r] = {r};
  const int g = l.gpus_per_node;
  for (const Round& round : plan)
    for (int k = 0; k < round.repeat; ++k) {
      auto next = has;
      for (int me = 0; me < l.ranks; ++me) {
        for (int src : round_ops(round, l, me).recvs) next[me].insert(has[src].begin(), has[src].end());
        if (round.kind != RoundKind::RailShift) continue;
        for (int peer = me % g; peer < l.ranks; peer += g) next[me].insert(has[peer].begin(), has[peer].end());
      }
      has = next;
    }
  return has;
}

}  // namespace

TEST(CollectivePlan, EverySendHasItsReceive) {
  for (Collective c : kAll)
    for (Algorithm a : algorithms_for(c))
      for (int p : {2, 3, 5, 6, 8, 12}) {
        if (a == Algorithm::ParameterServer || a == Algorithm::Hierarchical) continue;
        const Layout l = layout_for(a, p);
        for (const Round& r : collective_plan(c, a, l, 1e6)) {
          std::multiset<std::pair<int, int>> sent, received;
          for (int me = 0; me < l.ranks; ++me) {
            const RoundOps ops = round_ops(r, l, me);
            for (const auto& t : ops.sends) sent.insert({me, t.peer});
            for (int src : ops.recvs) received.insert({src, me});
          }
          EXPECT_EQ(sent, received) << to_string(c) << " " << to_string(a) << " p=" << p << " kind " << int(r.kind);
        }
      }
}

TEST(CollectivePlan, RoundsMoveTheDataTheCollectiveNeeds) {
  for (int p : {2, 3, 4, 5, 6, 7, 8, 12, 16}) {
    for (Collective c : kAll)
      for (Algorithm a : algorithms_for(c)) {
        if (a == Algorithm::ParameterServer || a == Algorithm::Hierarchical) continue;
        const Layout l = layout_for(a, p);
        const auto has = flow(collective_plan(c, a, l, 1e6), l);
        const std::string what = std::string(to_string(c)) + " " + to_string(a) + " p=" + std::to_string(p);
        if (c == Collective::Broadcast) {
          for (int r = 0; r < l.ranks; ++r) EXPECT_TRUE(has[r].count(0)) << what << ": rank " << r << " lacks the root's data";
        } else if (c == Collective::Reduce) {
          EXPECT_EQ(int(has[0].size()), l.ranks) << what << ": the root lacks a contribution";
        } else {
          // allreduce, reduce-scatter, allgather, all-to-all: every rank hears from every rank
          for (int r = 0; r < l.ranks; ++r) EXPECT_EQ(int(has[r].size()), l.ranks) << what << ": rank " << r;
        }
      }
  }
}

TEST(CollectivePlan, ClosedFormsCountExactlyThePlansRounds) {
  Route r{7e-6, 3e9};
  r.exchange_factor = 0.55;
  r.duplex_factor = 0.85;
  r.step_overhead_s = 3e-6;  // every round pays it, in the plans and in the closed forms
  for (int p : {2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 31, 64}) {
    const CommTopology t = flat(p, r);
    const Layout l = layout_of(t);
    for (Collective c : kAll)
      for (Algorithm a : algorithms_for(c)) {
        if (a == Algorithm::ParameterServer || a == Algorithm::Hierarchical) continue;
        const double closed = collective_time_s(c, a, t, 12.5e6);
        const double rounds = plan_time_s(collective_plan(c, a, l, 12.5e6), t);
        EXPECT_NEAR(closed, rounds, 1e-12 * rounds) << to_string(c) << " " << to_string(a) << " p=" << p;
      }
  }
}

// Hand calculations: p = 6 (q = 4, r = 2), n = 8 MB, alpha = 10 us, B = 1 GB/s, factors 1.
TEST(CollectivePlan, OpenMpiRoundsByHand) {
  const CommTopology t = flat(6, Route{10e-6, 1e9});
  // Rabenseifner: swap 4 MB, return 4 MB, halving 4 + 2 MB, doubling 2 + 4 MB, send back 8 MB:
  //   7 alpha + 28 MB / (1 GB/s) = 70 us + 28 ms
  EXPECT_NEAR(collective_time_s(Algorithm::Rabenseifner, t, 8e6), 70e-6 + 28e-3, 1e-12);
  // Recursive doubling: fold in 8 MB, 2 exchanges of 8 MB, fold out 8 MB: 4 alpha + 32 ms
  EXPECT_NEAR(collective_time_s(Algorithm::RecursiveDoubling, t, 8e6), 40e-6 + 32e-3, 1e-12);
  // Textbook halving-doubling on the same ranks: fold in/out whole (16 MB) + 2 x 6 MB
  EXPECT_NEAR(collective_time_s(Algorithm::HalvingDoubling, t, 8e6), 6 * 10e-6 + 28e-3, 1e-12);
  // Ring reduce-scatter / allgather: 5 steps of 8/6 MB
  EXPECT_NEAR(collective_time_s(Collective::Allgather, Algorithm::Ring, t, 8e6), 5 * (10e-6 + 8e6 / 6 / 1e9), 1e-12);
  // Binomial broadcast over 6 ranks: 3 rounds of 8 MB
  EXPECT_NEAR(collective_time_s(Collective::Broadcast, Algorithm::Tree, t, 8e6), 3 * (10e-6 + 8e-3), 1e-12);
}

TEST(CollectivePlan, OpenMpiDecisionTable) {
  // coll_tuned_decision_fixed.c (v4.1), commutative allreduce
  EXPECT_EQ(open_mpi_allreduce(2, 4), Algorithm::Ring);
  EXPECT_EQ(open_mpi_allreduce(2, 1000), Algorithm::RecursiveDoubling);
  EXPECT_EQ(open_mpi_allreduce(3, 100000), Algorithm::Ring);  // segmented ring, segment size 0: the ring
  EXPECT_EQ(open_mpi_allreduce(3, 1 << 20), Algorithm::Rabenseifner);
  EXPECT_EQ(open_mpi_allreduce(6, 4096), Algorithm::RecursiveDoubling);
  EXPECT_EQ(open_mpi_allreduce(6, 10e6), Algorithm::Rabenseifner);
  EXPECT_EQ(open_mpi_allreduce(100, 100000), Algorithm::RecursiveDoubling);
  EXPECT_EQ(open_mpi_allreduce(200, 1000), Algorithm::Tree);  // nonoverlapping
  EXPECT_EQ(open_mpi_allreduce(5000, 20000), Algorithm::RecursiveDoubling);
  EXPECT_EQ(concrete_algorithm({Library::Mpi, Algorithm::Auto}, Collective::Allreduce, flat(4, Route{10e-6, 1e9}), 50e6), Algorithm::Rabenseifner);
  EXPECT_EQ(concrete_algorithm({Library::Nccl, Algorithm::Auto}, Collective::Allreduce, flat(4, Route{10e-6, 1e9}), 50e6), Algorithm::Ring);
  EXPECT_EQ(concrete_algorithm({Library::Mpi, Algorithm::Ring}, Collective::Allreduce, flat(4, Route{10e-6, 1e9}), 50e6), Algorithm::Ring);
  EXPECT_EQ(concrete_algorithm({Library::Mpi, Algorithm::Auto}, Collective::Alltoall, flat(4, Route{10e-6, 1e9}), 50e6), Algorithm::Pairwise);
}

TEST(CollectivePlan, NcclTestsBusBandwidthFormulas) {
  // doc/PERFORMANCE.md of nccl-tests: 1 GB in 10 ms on 8 ranks: algbw 100 GB/s
  EXPECT_DOUBLE_EQ(algbw_Bps(1e9, 0.01), 100e9);
  EXPECT_DOUBLE_EQ(busbw_Bps(Collective::Allreduce, 1e9, 0.01, 8), 175e9);      // x 2 (n-1)/n
  EXPECT_DOUBLE_EQ(busbw_Bps(Collective::ReduceScatter, 1e9, 0.01, 8), 87.5e9); // x (n-1)/n
  EXPECT_DOUBLE_EQ(busbw_Bps(Collective::Allgather, 1e9, 0.01, 8), 87.5e9);
  EXPECT_DOUBLE_EQ(busbw_Bps(Collective::Alltoall, 1e9, 0.01, 8), 87.5e9);
  EXPECT_DOUBLE_EQ(busbw_Bps(Collective::Broadcast, 1e9, 0.01, 8), 100e9);      // x 1
  EXPECT_DOUBLE_EQ(busbw_Bps(Collective::Reduce, 1e9, 0.01, 8), 100e9);
}

// SimGrid simulates the very rounds: on a contention-free platform (one GPU per node, every node
// on its own link to one switch) it gives the closed form, for every collective and algorithm.
// n = 4,032,000 bytes is a multiple of 1,680, so that every plan's messages are whole bytes (SimGrid
// sends whole bytes; nvls on 8 ranks sends 9 n / 112).
TEST(CollectivePlan, SimGridSimulatesTheClosedFormToOnePartInAMillion) {
  for (int p : {2, 3, 5, 8}) {
    System sys;
    sys.cluster = find_cluster("tupi", "test");
    sys.nodes = p;
    const CommTopology t = [&] {
      CommTopology x = flat(p, sys.cluster.inter_route());
      x.intra = sys.cluster.intra_route();
      return x;
    }();
    for (Collective c : kAll)
      for (Algorithm a : algorithms_for(c)) {
        // dbtree: tests/nccl_tree_test.cpp (full fidelity runs its pipeline ahead of the closed form)
        if (a == Algorithm::ParameterServer || a == Algorithm::Hierarchical || a == Algorithm::DoubleBinaryTree) continue;
        const double closed = collective_time_s(c, a, t, 4032000);
        for (Fidelity f : {Fidelity::Fast, Fidelity::Full}) {
          SimGridOptions o;
          o.fidelity = f;
          const double sg = simgrid_collective_s(c, a, t, 4032000, sys, o);
          EXPECT_NEAR(sg, closed, 1e-6 * closed)
              << to_string(c) << " " << to_string(a) << " p=" << p << " fidelity " << int(f);
        }
      }
  }
}
