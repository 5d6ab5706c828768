// The step composer both backends share (schedule/compose.hpp), checked on a hand-made schedule.
#include <gtest/gtest.h>

#include "backend/analytic.hpp"
#include "cost/collectives.hpp"
#include "schedule/compose.hpp"

using namespace ddlsim;

namespace {

// forward 10 ms, backward 20 ms; bucket 0 ready 8 ms into the backward pass, bucket 1 at its end.
StepSchedule schedule() {
  StepSchedule s;
  s.forward_s = 0.010;
  s.backward_s = 0.020;
  s.buckets = {Bucket{1e6, 0.008, 5, 9}, Bucket{2e6, 0.020, 0, 4}};
  s.overlap = true;
  s.cycle_s = 0.002;  // each exchange waits half a cycle: 1 ms
  s.optimizer_s = 0.003;
  s.accumulate_s = 0.001;
  s.input_s = 0.005;
  return s;
}

}  // namespace

TEST(Compose, SyncStepPlacesExchangesOnOneStream) {
  // bucket 0: ready 10 + 8 + 1 = 19 ms, runs 15 ms -> 34 ms; bucket 1: ready 10 + 20 + 1 = 31 ms,
  // but the stream is busy until 34 ms, runs 4 ms -> 38 ms. Backward ends at 30 ms: 8 ms exposed.
  // Optimizer 38 -> 41 ms; the input (5 ms) is prefetched and adds nothing.
  const StepTiming t = compose_step(schedule(), true, {0.015, 0.004}, "ring");
  EXPECT_DOUBLE_EQ(t.comm_s, 0.019);
  EXPECT_DOUBLE_EQ(t.exposed_comm_s, 0.008);
  EXPECT_DOUBLE_EQ(t.compute_s, 0.033);
  EXPECT_DOUBLE_EQ(t.step_s, 0.041);
  EXPECT_EQ(t.input_wait_s, 0.0);
  ASSERT_EQ(t.phases.size(), 5u);
  EXPECT_EQ(t.phases[2].name, "ring bucket 0");
  EXPECT_DOUBLE_EQ(t.phases[2].start_s, 0.019);
  EXPECT_DOUBLE_EQ(t.phases[3].start_s, 0.034);
  EXPECT_EQ(t.phases[4].name, "optimizer");
}

TEST(Compose, LocalStepAccumulatesAndWaitsForInput) {
  StepSchedule s = schedule();
  s.input_s = 0.050;  // slower than the 31 ms of compute: 19 ms of input wait
  const StepTiming t = compose_step(s, false, {0.015, 0.004}, "ring");  // a local step exchanges nothing
  EXPECT_EQ(t.comm_s, 0.0);
  EXPECT_EQ(t.exposed_comm_s, 0.0);
  EXPECT_DOUBLE_EQ(t.compute_s, 0.031);
  EXPECT_DOUBLE_EQ(t.input_wait_s, 0.019);
  EXPECT_DOUBLE_EQ(t.step_s, 0.050);
  EXPECT_EQ(t.phases.back().name, "input wait");
}

TEST(Compose, WithoutOverlapExchangesStartAfterTheBackwardPass) {
  StepSchedule s = schedule();
  s.overlap = false;
  // both ready at 31 ms: 31 -> 46 -> 50 ms, optimizer to 53 ms.
  const StepTiming t = compose_step(s, true, {0.015, 0.004}, "ring");
  EXPECT_DOUBLE_EQ(t.exposed_comm_s, 0.020);
  EXPECT_DOUBLE_EQ(t.step_s, 0.053);
}

TEST(Compose, AnalyticBackendFeedsTheClosedForms) {
  CommTopology topo;
  topo.nodes = 4;
  topo.inter = Route{10e-6, 1e9};
  const StepSchedule s = schedule();
  const auto d = analytic_exchange_s(s, topo, {Library::Nccl, Algorithm::Ring});
  ASSERT_EQ(d.size(), 2u);
  // ring over 4 ranks of 1 MB: 2 x 3 x (10 us + 250 kB / 1 GB/s) = 1.56 ms
  EXPECT_DOUBLE_EQ(d[0], 2 * 3 * (10e-6 + 1e6 / 4 / 1e9));
  EXPECT_DOUBLE_EQ(d[1], ring_allreduce_s(4, 2e6, topo.inter));
  const StepPair both = analytic_steps(s, topo, {Library::Nccl, Algorithm::Ring});
  EXPECT_DOUBLE_EQ(both.sync.step_s, compose_step(s, true, d, "ring").step_s);
  EXPECT_DOUBLE_EQ(both.local.step_s, compose_step(s, false, {}, "ring").step_s);
  CommTopology one;  // a single rank exchanges nothing
  EXPECT_TRUE(analytic_exchange_s(s, one, {Library::Nccl, Algorithm::Ring}).empty());
}
