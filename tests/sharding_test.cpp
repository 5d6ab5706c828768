// Sharded data parallelism (training.sharding): the memory each mode keeps per GPU, the exchanges it
// runs and where its passes wait (schedule/step_schedule.hpp sharded_exchanges, cost/memory.hpp).
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "cost/memory.hpp"
#include "model/builder.hpp"
#include "model/model.hpp"
#include "predict_util.hpp"
#include "schedule/compose.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {

Model zoo_model(const std::string& name) { return build_zoo_model(name, default_model_options(name)); }

Execution mixed_adam(Sharding s, Bytes unit_bytes = 0) {
  Execution e;
  e.precision = Precision::Mixed;
  e.optimizer = Optimizer::Adam;
  e.batch_per_gpu = 1;
  e.bucket_bytes = unit_bytes;
  e.sharding = s;
  return e;
}

// Three dense layers: 1000 -> 1000 -> 1000 -> 10, 1,001,000 + 1,001,000 + 10,010 parameters.
Model mlp() {
  ModelBuilder b("mlp");
  Shape x = b.input(Shape{1, 1, 1000}, "in");
  x = b.dense(x, 1000, true, "d1");
  x = b.dense(x, 1000, true, "d2");
  b.dense(x, 10, true, "d3");
  return b.finish(10);
}

}  // namespace

// Units close, from the last layer, once they hold 4 MiB of FP32 gradients (1,048,576 values):
// d3 + d2 = 1,011,010 < 1,048,576, + d1 = 2,012,010: one unit. At 2 MiB (524,288): d3 + d2 closes
// the first (1,011,010), d1 alone the second (1,001,000). Without a size: the whole model.
TEST(Sharding, UnitsGroupLayersFromTheLast) {
  const Model m = mlp();
  EXPECT_DOUBLE_EQ(largest_unit_params(m, 4 * kMiB, 4), 2'012'010);
  EXPECT_DOUBLE_EQ(largest_unit_params(m, 2 * kMiB, 4), 1'011'010);
  EXPECT_DOUBLE_EQ(largest_unit_params(m, 0, 4), 2'012'010);
}

// GPT-2 (P = 124,439,808 parameters, all trainable), mixed precision, Adam, one unit (the whole
// model), 16 shards. Replicated: FP32 weights 4P + FP16 copy 2P, FP32 gradients 4P, Adam's moments
// 8P. ZeRO (SC 2020, Figure 1) with its K = 12 (master weights and moments) on the shard:
//   zero1  weights 2P + 4P/16, gradients 4P, optimizer 8P/16
//   zero2  + gradients 4P/16, and one unit's full gradients 4P in flight
//   zero3  weights (4P + 2P)/16, and two units' FP16 parameters gathered, 2 x 2P
TEST(Sharding, MemoryTermsByHand) {
  const Model m = zoo_model("gpt2");
  const double P = 124'439'808;
  ASSERT_EQ(double(m.params_total()), P);
  const MemoryEstimate none = memory_per_gpu(m, mixed_adam(Sharding::None), false, 16);
  EXPECT_DOUBLE_EQ(none.weights, 6 * P);
  EXPECT_DOUBLE_EQ(none.gradients, 4 * P);
  EXPECT_DOUBLE_EQ(none.optimizer_state, 8 * P);
  EXPECT_DOUBLE_EQ(none.gathered, 0);

  const MemoryEstimate z1 = memory_per_gpu(m, mixed_adam(Sharding::Zero1), false, 16);
  EXPECT_DOUBLE_EQ(z1.weights, 2 * P + 4 * P / 16);
  EXPECT_DOUBLE_EQ(z1.gradients, 4 * P);
  EXPECT_DOUBLE_EQ(z1.optimizer_state, 8 * P / 16);
  EXPECT_DOUBLE_EQ(z1.gathered, 0);

  const MemoryEstimate z2 = memory_per_gpu(m, mixed_adam(Sharding::Zero2), false, 16);
  EXPECT_DOUBLE_EQ(z2.weights, 2 * P + 4 * P / 16);
  EXPECT_DOUBLE_EQ(z2.gradients, 4 * P / 16);
  EXPECT_DOUBLE_EQ(z2.optimizer_state, 8 * P / 16);
  EXPECT_DOUBLE_EQ(z2.gathered, 4 * P);

  for (Sharding s : {Sharding::Zero3, Sharding::FsdpFull, Sharding::FsdpHybrid}) {
    const MemoryEstimate z3 = memory_per_gpu(m, mixed_adam(s), false, 16);
    EXPECT_DOUBLE_EQ(z3.weights, 6 * P / 16) << to_string(s);
    EXPECT_DOUBLE_EQ(z3.gradients, 4 * P / 16);
    EXPECT_DOUBLE_EQ(z3.optimizer_state, 8 * P / 16);
    EXPECT_DOUBLE_EQ(z3.gathered, 4 * P + 2 * 2 * P);
  }
  // SHARD_GRAD_OP keeps the gathered parameters from the forward pass to the backward: whole weights.
  const MemoryEstimate op = memory_per_gpu(m, mixed_adam(Sharding::FsdpGradOp), false, 16);
  EXPECT_DOUBLE_EQ(op.weights, z2.weights);
  EXPECT_DOUBLE_EQ(op.gathered, z2.gathered);
  // One shard: nothing is spread.
  EXPECT_DOUBLE_EQ(memory_per_gpu(m, mixed_adam(Sharding::Zero3), false, 1).total(), none.total());
}

// A gather issued ahead of where its pass needs it: forward 10 ms, backward 20 ms; the gather is
// issued at 0 and needed 4 ms into the forward pass and takes 6 ms: the pass waits 2 ms (forward
// ends at 12 ms). Needed where it is issued (no prefetch), it waits all 6 ms.
TEST(Sharding, APrefetchedGatherHoldsThePassOnlyPastWhereItIsNeeded) {
  StepSchedule s;
  s.forward_s = 0.010;
  s.backward_s = 0.020;
  Bucket g{1e6, 0, 0, 0, 0, Collective::Allgather, true, true};
  g.needed_s = 0.004;
  g.parameters = true;
  s.buckets = {g};
  const StepTiming t = compose_step(s, true, {0.006}, "ring");
  EXPECT_DOUBLE_EQ(t.step_s, 0.032);
  EXPECT_DOUBLE_EQ(t.exposed_comm_s, 0.002);
  EXPECT_EQ(t.phases[2].name, "allgather forward layers 0-0");
  s.buckets[0].needed_s = -1;
  EXPECT_DOUBLE_EQ(compose_step(s, true, {0.006}, "ring").step_s, 0.036);
}

namespace {

// Four layers of 1 ms forward and 2 ms backward, 100 parameters each: with 400-byte units (100 FP32
// gradients) one unit a layer.
ComputeProfile four_layers() {
  ComputeProfile p;
  for (int i = 0; i < 4; ++i) p.layers.push_back({0.001, 0.002, 100, 1});
  p.optimizer_s = 0.008;
  return p;
}

Execution sharded(Sharding s) {
  Execution e;
  e.bucket_bytes = 400;
  e.sharding = s;
  return e;
}

}  // namespace

// FULL_SHARD's exchanges in launch order: forward gathers of units 0..3, each issued when the unit
// before starts (0, 0, 1, 2 ms) and needed where its unit starts (0, 1, 2, 3 ms); backward (units
// from the last layer, whose backward starts at 0, 2, 4, 6 ms) the last unit's gather at once, the
// next one's issued when a unit's backward starts and needed where the next starts, and each unit's
// reduce-scatter when its backward ends (2, 4, 6, 8 ms).
TEST(Sharding, FullShardExchangesInLaunchOrder) {
  const std::vector<Bucket> x = sharded_exchanges(four_layers(), sharded(Sharding::FsdpFull), 8, 8);
  ASSERT_EQ(x.size(), 12u);
  const double fwd_ready[] = {0, 0, 0.001, 0.002}, fwd_needed[] = {0, 0.001, 0.002, 0.003};
  for (int f = 0; f < 4; ++f) {
    EXPECT_TRUE(x[f].parameters && x[f].blocking && x[f].in_forward);
    EXPECT_EQ(x[f].first_layer, f);
    EXPECT_EQ(x[f].collective, Collective::Allgather);
    EXPECT_DOUBLE_EQ(x[f].bytes, 400);
    EXPECT_DOUBLE_EQ(x[f].ready_s, fwd_ready[f]);
    EXPECT_DOUBLE_EQ(x[f].needed_at(), fwd_needed[f]);
  }
  // gather 3, gather 2, reduce 3, gather 1, reduce 2, gather 0, reduce 1, reduce 0
  const int layer[] = {3, 2, 3, 1, 2, 0, 1, 0};
  const bool gather[] = {true, true, false, true, false, true, false, false};
  const double ready[] = {0, 0, 0.002, 0.002, 0.004, 0.004, 0.006, 0.008};
  const double needed[] = {0, 0.002, 0.002, 0.004, 0.004, 0.006, 0.006, 0.008};
  for (int i = 0; i < 8; ++i) {
    const Bucket& b = x[std::size_t(4 + i)];
    EXPECT_EQ(b.first_layer, layer[i]) << i;
    EXPECT_EQ(b.parameters, gather[i]) << i;
    EXPECT_EQ(b.collective, gather[i] ? Collective::Allgather : Collective::ReduceScatter) << i;
    EXPECT_DOUBLE_EQ(b.ready_s, ready[i]) << i;
    EXPECT_DOUBLE_EQ(b.needed_at(), needed[i]) << i;
    EXPECT_EQ(b.group, RankGroup::All);
  }
}

// ZeRO-2: the updated parameters gathered before the forward pass (needed at its start), gradients
// reduce-scattered; no backward gathers. SHARD_GRAD_OP gathers in forward only. HYBRID_SHARD on two
// nodes of 4: gathers and reduce-scatters inside the node, each unit's shard (a quarter) all-reduced
// across the nodes after its reduce-scatter; on one node, FULL_SHARD's exchanges.
TEST(Sharding, EachModesExchanges) {
  const auto count = [](const std::vector<Bucket>& x, Collective c, bool forward) {
    return std::count_if(x.begin(), x.end(), [&](const Bucket& b) { return b.collective == c && b.in_forward == forward; });
  };
  const std::vector<Bucket> z2 = sharded_exchanges(four_layers(), sharded(Sharding::Zero2), 8, 8);
  EXPECT_EQ(count(z2, Collective::Allgather, true), 4);
  EXPECT_EQ(count(z2, Collective::Allgather, false), 0);
  EXPECT_EQ(count(z2, Collective::ReduceScatter, false), 4);
  for (int f = 0; f < 4; ++f) EXPECT_DOUBLE_EQ(z2[std::size_t(f)].needed_at(), 0);
  const std::vector<Bucket> op = sharded_exchanges(four_layers(), sharded(Sharding::FsdpGradOp), 8, 8);
  EXPECT_EQ(count(op, Collective::Allgather, true), 4);
  EXPECT_EQ(count(op, Collective::Allgather, false), 0);
  EXPECT_DOUBLE_EQ(op[3].needed_at(), 0.003);
  const std::vector<Bucket> hy = sharded_exchanges(four_layers(), sharded(Sharding::FsdpHybrid), 8, 4);
  EXPECT_EQ(hy.size(), 16u);
  EXPECT_EQ(count(hy, Collective::Allreduce, false), 4);
  for (const Bucket& b : hy) {
    EXPECT_EQ(b.group, b.collective == Collective::Allreduce ? RankGroup::AcrossNodes : RankGroup::Node);
    if (b.collective == Collective::Allreduce) EXPECT_DOUBLE_EQ(b.bytes, 100);
  }
  EXPECT_EQ(sharded_exchanges(four_layers(), sharded(Sharding::FsdpHybrid), 4, 4).size(), 12u);
}

// Mixed precision moves FP16 parameters and FP32 gradients; the optimizer updates one shard.
TEST(Sharding, WorkingPrecisionAndTheShardsUpdate) {
  Execution e = sharded(Sharding::FsdpFull);
  e.precision = Precision::Mixed;
  const std::vector<Bucket> x = sharded_exchanges(four_layers(), e, 8, 8);
  EXPECT_DOUBLE_EQ(x[0].bytes, 200);
  EXPECT_DOUBLE_EQ(x[6].bytes, 400);  // reduce 3
  const StepSchedule s = build_schedule(four_layers(), e, 0, 8, LibraryCosts{}, FrameworkCosts{}, 8);
  EXPECT_DOUBLE_EQ(s.optimizer_s, 0.001);
  EXPECT_DOUBLE_EQ(build_schedule(four_layers(), sharded(Sharding::FsdpHybrid), 0, 8, LibraryCosts{}, FrameworkCosts{}, 4)
                       .optimizer_s,
                   0.002);
}

// Scenario level: on one node HYBRID_SHARD is FULL_SHARD; more sharding never needs more memory;
// each mode's prediction is finite and names its mode.
TEST(Sharding, ScenarioProperties) {
  const std::vector<std::string> base = {"--model.name=gpt2", "--model.precision=mixed", "--training.optimizer=adam",
                                         "--cluster.platform=dgx-a100", "--cluster.nodes=1",
                                         "--training.batch_per_gpu=4"};
  const auto with = [&](const std::string& mode) {
    std::vector<std::string> o = base;
    o.push_back("--training.sharding=" + mode);
    return testutil::predict_default(o);
  };
  const Prediction full = with("fsdp_full"), hybrid = with("fsdp_hybrid");
  EXPECT_DOUBLE_EQ(full.step_time_s, hybrid.step_time_s);
  EXPECT_DOUBLE_EQ(full.memory_per_gpu_bytes, hybrid.memory_per_gpu_bytes);
  EXPECT_EQ(full.sharding, "fsdp_full");
  const double none = with("none").memory_per_gpu_bytes, z1 = with("zero1").memory_per_gpu_bytes,
               z2 = with("zero2").memory_per_gpu_bytes, z3 = with("zero3").memory_per_gpu_bytes;
  EXPECT_GT(none, z1);
  EXPECT_GT(z1, z2);
  EXPECT_GT(z2, z3);
}

TEST(Sharding, RefusedWhereNotModelled) {
  EXPECT_THROW(testutil::scenario_default({"--training.sharding=zero3", "--comm.algorithm=ps"}), InputError);
  EXPECT_THROW(testutil::scenario_default({"--training.sharding=zero3", "--model.sync_bn=true"}), InputError);
  EXPECT_THROW(testutil::scenario_default({"--training.sharding=zero4"}), InputError);
}

// A wait counts only for what the pass reaches after it: forward 10 ms, backward 20 ms, a 2 ms
// start delay for buckets (half a 4 ms cycle). A gather issued at the backward's start (10 ms),
// needed 5 ms into it, takes 8 ms (to 18 ms): the pass waits 18 - 15 = 3 ms. A reduce-scatter
// reached 4 ms into the backward pass (before that wait) is ready at 14 + 2 = 16 ms and starts when
// the stream is free, at 18 ms (not 3 ms later), to 19 ms; the backward pass ends at 33 ms.
TEST(Sharding, AWaitDelaysOnlyWhatThePassReachesAfterIt) {
  StepSchedule s;
  s.forward_s = 0.010;
  s.backward_s = 0.020;
  s.cycle_s = 0.004;
  s.optimizer_s = 0.001;
  Bucket g{1e6, 0, 1, 1, 0, Collective::Allgather, true, false};
  g.needed_s = 0.005;
  g.parameters = true;
  Bucket rs{1e6, 0.004, 0, 0, 1, Collective::ReduceScatter};
  s.buckets = {g, rs};
  const StepTiming t = compose_step(s, true, {0.008, 0.001}, "ring");
  ASSERT_EQ(t.phases.size(), 5u);
  EXPECT_EQ(t.phases[3].name, "ring bucket 0");
  EXPECT_DOUBLE_EQ(t.phases[3].start_s, 0.018);
  EXPECT_DOUBLE_EQ(t.phases[1].end_s, 0.033);
  EXPECT_DOUBLE_EQ(t.step_s, 0.034);
  EXPECT_NEAR(t.exposed_comm_s, 0.003, 1e-15);
}

// SimGrid plays the same exchanges and waits: on Poti (one 1 GbE link a node, no contention between
// the rounds), fast fidelity equals the analytic backend (its rounds the closed forms to 1e-6) and
// full fidelity, which waits rank by rank, equals fast; fsdp_hybrid is refused there.
TEST(Sharding, SimGridEqualsTheAnalyticBackend) {
  for (const char* mode : {"zero2", "fsdp_full", "fsdp_grad_op"})
    for (const char* k : {"1", "2"}) {  // with accumulation, the local steps' exchanges too
      const std::vector<std::string> base = {"--model.name=small_cnn", "--cluster.platform=poti", "--cluster.nodes=3",
                                             "--training.optimizer=adam", "--comm.bucket_mb=0.05",
                                             std::string("--training.sharding=") + mode,
                                             std::string("--training.sync_period=") + k};
      std::vector<std::string> fast = base, full = base;
      fast.push_back("--simulation.backend=simgrid");
      full.push_back("--simulation.backend=simgrid");
      full.push_back("--simulation.fidelity=full");
      const Prediction a = testutil::predict_default(base);
      ASSERT_GT(a.exposed_comm_s, 0) << mode;
      const double f = testutil::predict_default(fast).step_time_s;
      EXPECT_NEAR(f / a.step_time_s, 1, 1e-6) << mode;  // SimGrid's rounds: the closed forms to 1e-6
      EXPECT_NEAR(testutil::predict_default(full).step_time_s / f, 1, 1e-9) << mode;
    }
  EXPECT_THROW(testutil::scenario_default({"--training.sharding=fsdp_hybrid", "--simulation.backend=simgrid"}),
               InputError);
}

// comm.prefetch: without forward prefetch a forward gather is issued where its unit starts; without
// any, a backward gather is issued where its unit's backward starts, after the reduce-scatter of the
// unit before it (four layers, one unit each: backward starts 0, 2, 4, 6 ms).
TEST(Sharding, PrefetchOffIssuesEachGatherWhereItsUnitStarts) {
  Execution e = sharded(Sharding::FsdpFull);
  e.prefetch_forward = false;
  const std::vector<Bucket> fwd_off = sharded_exchanges(four_layers(), e, 8, 8);
  for (int f = 0; f < 4; ++f) EXPECT_DOUBLE_EQ(fwd_off[std::size_t(f)].ready_s, fwd_off[std::size_t(f)].needed_at());
  EXPECT_DOUBLE_EQ(fwd_off[5].ready_s, 0);  // backward prefetch kept
  e.prefetch_backward = false;
  const std::vector<Bucket> x = sharded_exchanges(four_layers(), e, 8, 8);
  ASSERT_EQ(x.size(), 12u);
  // gather 3, reduce 3, gather 2, reduce 2, gather 1, reduce 1, gather 0, reduce 0
  const double ready[] = {0, 0.002, 0.002, 0.004, 0.004, 0.006, 0.006, 0.008};
  for (int i = 0; i < 8; ++i) {
    const Bucket& b = x[std::size_t(4 + i)];
    EXPECT_EQ(b.parameters, i % 2 == 0) << i;
    EXPECT_EQ(b.first_layer, 3 - i / 2) << i;
    EXPECT_DOUBLE_EQ(b.ready_s, ready[i]) << i;
    if (b.parameters) EXPECT_DOUBLE_EQ(b.needed_at(), b.ready_s) << i;
  }
  // Less prefetch is never faster.
  const std::vector<std::string> base = {"--model.name=small_cnn", "--cluster.platform=poti", "--cluster.nodes=3",
                                         "--comm.bucket_mb=0.05", "--training.sharding=fsdp_full"};
  double last = 0;
  for (const char* p : {"forward+backward", "backward", "none"}) {
    std::vector<std::string> o = base;
    o.push_back(std::string("--comm.prefetch=") + p);
    const double step = testutil::predict_default(o).step_time_s;
    EXPECT_GE(step, last) << p;
    last = step;
  }
}

// Gradient accumulation (training.sync_period = k): which exchanges every micro-batch runs. ZeRO-1
// keeps whole gradients and gathers the updated parameters once an update: its local steps exchange
// nothing. ZeRO-2 reduce-scatters every micro-batch (DeepSpeed: stage >= 2 communicates between
// accumulation boundaries too), its gathers once an update. ZeRO-3 and FSDP (outside no_sync) gather
// for every pass and reduce-scatter every micro-batch, HYBRID_SHARD's replicas all-reducing each
// time. The accumulation adds into a gradient shard, 1/8 of the gradients here.
TEST(Sharding, WhatEveryMicroBatchExchanges) {
  const auto every = [](Sharding s, int gpus_per_node) {
    std::vector<bool> out;
    for (const Bucket& b : sharded_exchanges(four_layers(), sharded(s), 8, gpus_per_node))
      out.push_back(b.each_micro_batch);
    return out;
  };
  for (bool b : every(Sharding::Zero1, 8)) EXPECT_FALSE(b);
  const std::vector<Bucket> z2 = sharded_exchanges(four_layers(), sharded(Sharding::Zero2), 8, 8);
  for (const Bucket& b : z2) EXPECT_EQ(b.each_micro_batch, b.collective == Collective::ReduceScatter);
  for (Sharding s : {Sharding::Zero3, Sharding::FsdpFull, Sharding::FsdpGradOp})
    for (bool b : every(s, 8)) EXPECT_TRUE(b) << to_string(s);
  const std::vector<bool> hybrid = every(Sharding::FsdpHybrid, 4);
  EXPECT_EQ(hybrid.size(), 16u);
  for (bool b : hybrid) EXPECT_TRUE(b);
  // FSDP's no_sync(): gathers every micro-batch, reduce-scatters (and HYBRID_SHARD's all-reduces)
  // once an update, the whole gradients accumulated.
  for (Sharding s : {Sharding::FsdpFull, Sharding::FsdpGradOp, Sharding::FsdpHybrid}) {
    Execution e = sharded(s);
    e.no_sync = true;
    for (const Bucket& b : sharded_exchanges(four_layers(), e, 8, 4)) EXPECT_EQ(b.each_micro_batch, b.parameters);
  }
  ComputeProfile p = four_layers();
  p.accumulate_s = 0.0016;
  Execution no_sync = sharded(Sharding::FsdpFull);
  no_sync.no_sync = true;
  EXPECT_DOUBLE_EQ(build_schedule(p, no_sync, 0, 8, LibraryCosts{}, FrameworkCosts{}, 8).accumulate_s, 0.0016);
  EXPECT_DOUBLE_EQ(build_schedule(p, sharded(Sharding::Zero1), 0, 8, LibraryCosts{}, FrameworkCosts{}, 8).accumulate_s,
                   0.0016);
  EXPECT_DOUBLE_EQ(build_schedule(p, sharded(Sharding::Zero2), 0, 8, LibraryCosts{}, FrameworkCosts{}, 8).accumulate_s,
                   0.0002);
}

// A local step composed by hand: forward 4 ms, backward 8 ms (four_layers), every exchange 0.5 ms.
// FULL_SHARD's local step runs the sync step's exchanges and waits, then accumulates (0.2 ms)
// where the sync step updates (1 ms): the same step, 0.8 ms shorter. ZeRO-1's local step is the
// passes and the accumulation alone; ZeRO-2's runs the four reduce-scatters (2 ms) but no gathers.
TEST(Sharding, ALocalStepRunsWhatEveryMicroBatchExchanges) {
  ComputeProfile p = four_layers();
  p.optimizer_s = 0.008;     // 1 ms on each of 8 shards
  p.accumulate_s = 0.0016;   // 0.2 ms on a shard
  const auto steps = [&](Sharding s) {
    const StepSchedule sc = build_schedule(p, sharded(s), 0, 8, LibraryCosts{}, FrameworkCosts{}, 8);
    const std::vector<Seconds> x(sc.buckets.size(), 0.0005);
    return std::make_pair(compose_step(sc, true, x, "ring"), compose_step(sc, false, x, "ring"));
  };
  const auto full = steps(Sharding::FsdpFull);
  EXPECT_DOUBLE_EQ(full.second.comm_s, full.first.comm_s);
  EXPECT_DOUBLE_EQ(full.second.exposed_comm_s, full.first.exposed_comm_s);
  EXPECT_NEAR(full.first.step_s - full.second.step_s, 0.001 - 0.0002, 1e-15);
  const auto z1 = steps(Sharding::Zero1);
  EXPECT_DOUBLE_EQ(z1.second.comm_s, 0);
  EXPECT_NEAR(z1.second.step_s, 0.004 + 0.008 + 0.0016 / 1, 1e-15);  // ZeRO-1 accumulates whole gradients
  const auto z2 = steps(Sharding::Zero2);
  EXPECT_NEAR(z2.second.comm_s, 4 * 0.0005, 1e-15);
  EXPECT_GT(z2.first.comm_s, z2.second.comm_s);  // plus the gathers after the update
}

// Accumulation at scenario level: each micro-batch of ZeRO-3 exchanges as an updating step does (the
// mean exchange per step unchanged), ZeRO-1 one micro-batch in four, and the steps are shorter than
// updating every micro-batch; every micro-batch of ZeRO-3 waits for the slowest rank. FSDP under
// no_sync() reduce-scatters once an update and keeps the whole gradients. Accumulating
// takes a gradient accumulator of the rank's gradients (cost/memory.hpp), a shard's where they are
// sharded.
TEST(Sharding, AccumulationScenario) {
  const auto with = [](const std::string& mode, int k) {
    return testutil::predict_default({"--model.name=gpt2", "--model.precision=mixed", "--training.optimizer=adam",
                                      "--cluster.platform=dgx-a100", "--cluster.nodes=2", "--training.sharding=" + mode,
                                      "--training.sync_period=" + std::to_string(k)});
  };
  const Prediction z3 = with("zero3", 1), z3k = with("zero3", 4);
  EXPECT_NEAR(z3k.comm_time_s / z3.comm_time_s, 1, 1e-12);
  EXPECT_LT(z3k.step_time_s, z3.step_time_s);
  EXPECT_NEAR(z3k.straggler_wait_s / z3.straggler_wait_s, 1, 1e-12);  // one micro-batch's wait, every step
  const Prediction z1 = with("zero1", 1), z1k = with("zero1", 4);
  EXPECT_NEAR(z1k.comm_time_s, z1.comm_time_s * double(z1k.syncs_per_epoch) / double(z1k.steps_per_epoch), 1e-12);
  // The accumulator is the rank's gradient shard: 1/16 of the gradients on 16 ranks.
  EXPECT_NEAR(z3k.memory_per_gpu_bytes - z3.memory_per_gpu_bytes, z3.gradient_bytes / 16, 1);
  EXPECT_NEAR(z1k.memory_per_gpu_bytes - z1.memory_per_gpu_bytes, z1.gradient_bytes, 1);  // ZeRO-1: whole
  // FSDP under no_sync(): the whole gradients accumulate; one exchange of reduce-scatters an update.
  const Prediction f = with("fsdp_full", 1), fk = with("fsdp_full", 4);
  const Prediction fn = testutil::predict_default({"--model.name=gpt2", "--model.precision=mixed",
                                                   "--training.optimizer=adam", "--cluster.platform=dgx-a100",
                                                   "--cluster.nodes=2", "--training.sharding=fsdp_full",
                                                   "--training.sync_period=4", "--training.no_sync=true"});
  EXPECT_NEAR(fn.memory_per_gpu_bytes - f.memory_per_gpu_bytes, f.gradient_bytes, 1);
  EXPECT_LT(fn.comm_time_s, fk.comm_time_s);
  EXPECT_LT(fn.step_time_s, fk.step_time_s);
  EXPECT_THROW(testutil::scenario_default({"--training.sharding=zero3", "--training.sync_period=2",
                                           "--training.no_sync=true"}),
               InputError);
  EXPECT_THROW(testutil::scenario_default({"--training.no_sync=true"}), InputError);
}
