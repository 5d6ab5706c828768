// Synchronised batch norms (model.sync_bn): each layer's statistics exchanged in both passes, on the
// gradients' stream, the pass waiting for each (schedule/step_schedule.hpp sync_norm_exchanges).
#include <gtest/gtest.h>

#include "backend/analytic.hpp"
#include "core/error.hpp"
#include "predict_util.hpp"
#include "schedule/compose.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {

// forward 10 ms, backward 10 ms; a bucket ready 2 ms into the backward pass; a synchronised layer
// whose statistics are gathered 3 ms into the forward pass and reduced 4 ms into the backward.
StepSchedule schedule() {
  StepSchedule s;
  s.forward_s = 0.010;
  s.backward_s = 0.010;
  Bucket gather{1e3, 0.003, 1, 1, 0, Collective::Allgather, true, true};
  Bucket bucket{1e6, 0.002, 2, 9};
  Bucket reduce{1e3, 0.004, 1, 1, 0, Collective::Allreduce, true, false};
  gather.each_micro_batch = reduce.each_micro_batch = true;  // as sync_norm_exchanges makes them
  s.buckets = {gather, bucket, reduce};
  s.optimizer_s = 0.001;
  s.accumulate_s = 0.0005;
  return s;
}

}  // namespace

TEST(SyncBatchNorm, ThePassWaitsAndTheStreamIsShared) {
  // forward: the gather is ready at 3 ms and takes 0.5 ms: the forward pass ends at 10.5 ms.
  // backward: the bucket is ready at 12.5 ms and runs 5 ms, to 17.5 ms; the reduce is reached at
  // 14.5 ms, waits for the stream until 17.5, takes 1 ms: the pass waits 4 ms and ends at 24.5 ms.
  // optimizer 24.5 -> 25.5 ms; exposed 0.5 + 4 ms; exchanged 6.5 ms.
  const StepTiming t = compose_step(schedule(), true, {0.0005, 0.005, 0.001}, "ring");
  EXPECT_DOUBLE_EQ(t.step_s, 0.0255);
  EXPECT_DOUBLE_EQ(t.exposed_comm_s, 0.0045);
  EXPECT_DOUBLE_EQ(t.comm_s, 0.0065);
  EXPECT_DOUBLE_EQ(t.compute_s, 0.021);
  ASSERT_EQ(t.phases.size(), 6u);
  EXPECT_EQ(t.phases[0].name, "forward");
  EXPECT_DOUBLE_EQ(t.phases[0].end_s, 0.0105);
  EXPECT_EQ(t.phases[2].name, "sync_bn allgather layer 1");
  EXPECT_EQ(t.phases[3].name, "ring bucket 0");
  EXPECT_EQ(t.phases[4].name, "sync_bn allreduce layer 1");
  EXPECT_DOUBLE_EQ(t.phases[4].start_s, 0.0175);
  EXPECT_DOUBLE_EQ(t.phases[1].end_s, 0.0245);
}

TEST(SyncBatchNorm, ALocalStepExchangesTheStatisticsOnly) {
  // gather 3 -> 3.5 ms; the reduce at 14.5 ms runs at once to 15.5 ms: the passes end at 21.5 ms,
  // then the accumulation, 0.5 ms.
  const StepTiming t = compose_step(schedule(), false, {0.0005, 0.005, 0.001}, "ring");
  EXPECT_DOUBLE_EQ(t.step_s, 0.022);
  EXPECT_DOUBLE_EQ(t.exposed_comm_s, 0.0015);
  EXPECT_DOUBLE_EQ(t.comm_s, 0.0015);
}

TEST(SyncBatchNorm, ResNet50ExchangesEachNormsStatistics) {
  // torchvision's ResNet-50 has 53 batch norms of 26,560 channels in all (stem 64; per stage 3, 4,
  // 6, 3 bottlenecks of (w, w, 4w) for w = 64, 128, 256, 512, and one downsample norm of 4w).
  const Scenario sc = resolve_scenario(
      read_scenario("", {"--training.framework=pytorch_ddp", "--cluster.nodes=2", "--model.sync_bn=true"}).settings, ".");
  const int ranks = 16;
  const std::vector<Bucket> x = sync_norm_exchanges(device_compute_profile(sc), ranks);
  ASSERT_EQ(x.size(), 106u);
  double gathered = 0, reduced = 0;
  for (const Bucket& b : x) {
    EXPECT_TRUE(b.blocking);
    EXPECT_TRUE(b.each_micro_batch);  // every micro-batch's passes normalise with the cluster's statistics
    (b.collective == Collective::Allgather ? gathered : reduced) += b.bytes;
  }
  EXPECT_DOUBLE_EQ(reduced, 8.0 * 26560);                      // 2C FP32 sums
  EXPECT_DOUBLE_EQ(gathered, 4.0 * ranks * (2 * 26560 + 53));  // 2C + 1 FP32 values from every rank
  // The stem's norm (after the input, its padding and conv1) gathers when its forward starts.
  const ComputeProfile prof = device_compute_profile(sc);
  EXPECT_TRUE(x.front().in_forward);
  EXPECT_EQ(sc.model.layers[std::size_t(x.front().first_layer)].name, "conv1_bn");
  Seconds before = 0;
  for (int i = 0; i < x.front().first_layer; ++i) before += prof.layers[std::size_t(i)].fwd_s;
  EXPECT_DOUBLE_EQ(x.front().ready_s, before);
}

TEST(SyncBatchNorm, AddsItsExchangesToTheStepByHand) {
  // Two ranks, one a node, Open MPI's ring, no overlap (the buckets wait for the end of the pass):
  // each exchange of n bytes costs alpha + n / (2 B) (allgather of its output) or 2 alpha + n / B
  // (allreduce), alpha = 2 x 10 us (two network hops), B = 1 GB/s. Over the 53 norms:
  // 53 alpha + 4 (2 x 26560 + 53) x 2 / (2 B) + 106 alpha + 8 x 26560 / B = 159 alpha + 425,172 B / B.
  const std::vector<std::string> base = {
      "--training.framework=pytorch_ddp", "--cluster.nodes=2",         "--cluster.gpus_per_node=1",
      "--comm.library=mpi",               "--comm.algorithm=ring",     "--comm.host_staging=off",
      "--comm.overlap=false",             "--cluster.inter_latency_us=10", "--cluster.intra_latency_us=0",
      "--cluster.inter_bw_GBps=1"};
  std::vector<std::string> synced = base;
  synced.push_back("--model.sync_bn=true");
  const Prediction plain = testutil::predict_default(base), with = testutil::predict_default(synced);
  EXPECT_NEAR(with.step_time_s - plain.step_time_s, 159 * 20e-6 + 425172 / 1e9, 1e-12);
  EXPECT_EQ(with.buckets, plain.buckets);  // the gradients' buckets are unchanged
  EXPECT_GT(with.exposed_comm_s, plain.exposed_comm_s);
}

TEST(SyncBatchNorm, NeverFasterAndNothingOnOneRank) {
  for (const char* nodes : {"1", "2", "4"}) {
    const std::vector<std::string> base = {"--training.framework=pytorch_ddp", std::string("--cluster.nodes=") + nodes,
                                           "--cluster.platform=dgx-a100"};
    std::vector<std::string> synced = base;
    synced.push_back("--model.sync_bn=true");
    EXPECT_GT(testutil::predict_default(synced).step_time_s, testutil::predict_default(base).step_time_s) << nodes;
  }
  const std::vector<std::string> one = {"--cluster.nodes=1", "--cluster.gpus_per_node=1"};
  std::vector<std::string> synced = one;
  synced.push_back("--model.sync_bn=true");
  EXPECT_DOUBLE_EQ(testutil::predict_default(synced).step_time_s, testutil::predict_default(one).step_time_s);
}

TEST(SyncBatchNorm, ParameterServersAreRefused) {
  try {
    testutil::predict_default({"--training.framework=tf_ps", "--cluster.nodes=2", "--model.sync_bn=true"});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("model.sync_bn"), std::string::npos) << e.what();
  }
}
