// Per-library step costs (cost/library_costs.hpp) in the step composer and in the predictions:
// each checked against a hand calculation; switched off, the composer gives the old step.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "predict_util.hpp"
#include "backend/analytic.hpp"
#include "core/error.hpp"
#include "cost/decision.hpp"
#include "cost/library_costs.hpp"
#include "predict/prediction.hpp"
#include "scenario/resolve.hpp"
#include "schedule/compose.hpp"
#include "schedule/step_schedule.hpp"
#include "system/system.hpp"

using namespace ddlsim;
using testutil::predict_default;

namespace {

// forward 10 ms, backward 20 ms; bucket 0 (1 MB) ready 5 ms into the backward pass, bucket 1
// (2 MB) at its end; no coordination cycle, no input.
StepSchedule schedule(LibraryCosts lib) {
  StepSchedule s;
  s.forward_s = 0.010;
  s.backward_s = 0.020;
  s.buckets = {Bucket{1e6, 0.005, 5, 9}, Bucket{2e6, 0.020, 0, 4}};
  s.optimizer_s = 0.003;
  s.library = lib;
  return s;
}

}  // namespace

TEST(LibraryCosts, InterferenceSlowsTheOverlappedPartOfTheBackwardPass) {
  // Bucket 0: 15 -> 23 ms, all of it inside the backward pass [10, 30] ms: 8 ms overlapped; at
  // 25 % interference the backward pass ends 2 ms later, at 32 ms. Bucket 1: ready at 30 ms,
  // runs 4 ms -> 34 ms (first order: the undisturbed ready time). Exposed: 34 - 32 = 2 ms.
  // Optimizer 34 -> 37 ms. Parts: compute 33 + interference 2 + exposed 2 = 37 ms.
  const StepTiming t = compose_step(schedule({0.25, 0, 0}), true, {0.008, 0.004}, "ring");
  EXPECT_DOUBLE_EQ(t.interference_s, 0.002);
  EXPECT_DOUBLE_EQ(t.exposed_comm_s, 0.002);
  EXPECT_DOUBLE_EQ(t.step_s, 0.037);
  EXPECT_DOUBLE_EQ(t.compute_s + t.interference_s + t.exposed_comm_s + t.input_wait_s, t.step_s);
  EXPECT_DOUBLE_EQ(t.phases[1].end_s, 0.032);  // the backward phase shows the slow-down
}

TEST(LibraryCosts, CommunicationBoundStepAbsorbsTheInterference) {
  // Bucket 0: 15 -> 45 ms (30 ms), 15 ms of it overlapped -> 3.75 ms slower backward (33.75 ms);
  // bucket 1: 45 -> 49 ms. The step is set by the stream: 49 + 3 = 52 ms, as without interference.
  const StepTiming with = compose_step(schedule({0.25, 0, 0}), true, {0.030, 0.004}, "ring");
  const StepTiming without = compose_step(schedule({}), true, {0.030, 0.004}, "ring");
  EXPECT_DOUBLE_EQ(with.interference_s, 0.00375);
  EXPECT_DOUBLE_EQ(with.step_s, 0.052);
  EXPECT_DOUBLE_EQ(without.step_s, 0.052);
}

TEST(LibraryCosts, PerCallCostAndHostStagingLengthenEachExchange) {
  // 10 GB/s staging: bucket 0 copies 2 x 1 MB = 0.2 ms, bucket 1 2 x 2 MB = 0.4 ms; 0.1 ms a call.
  // Bucket 0: 15 -> 15 + 0.1 + 0.2 + 8 = 23.3 ms; bucket 1: 30 -> 30 + 0.1 + 0.4 + 4 = 34.5 ms.
  const StepTiming t = compose_step(schedule({0, 1e-4, 10e9}), true, {0.008, 0.004}, "ring");
  EXPECT_NEAR(t.comm_s, 0.0128, 1e-15);
  EXPECT_NEAR(t.exposed_comm_s, 0.0045, 1e-15);
  EXPECT_NEAR(t.step_s, 0.0375, 1e-15);
  EXPECT_EQ(t.interference_s, 0.0);
}

TEST(LibraryCosts, SwitchedOffTheComposerGivesTheStepWithoutThem) {
  // Bucket 0: 15 -> 23 ms; bucket 1: 30 -> 34 ms; 4 ms exposed; optimizer to 37 ms.
  const StepTiming t = compose_step(schedule({}), true, {0.008, 0.004}, "ring");
  EXPECT_DOUBLE_EQ(t.exposed_comm_s, 0.004);
  EXPECT_DOUBLE_EQ(t.step_s, 0.037);
  EXPECT_EQ(t.interference_s, 0.0);
}

TEST(LibraryCosts, LocalStepsPayNothing) {
  const StepTiming t = compose_step(schedule({0.25, 1e-4, 10e9}), false, {}, "ring");
  EXPECT_EQ(t.interference_s, 0.0);
  EXPECT_EQ(t.comm_s, 0.0);
}

TEST(LibraryCosts, DefaultsPerLibraryAndDevice) {
  const auto pred = [](std::vector<std::string> extra) {
    extra.insert(extra.begin(), {"--cluster.nodes=2", "--input.format=synthetic"});
    return predict_default(extra);
  };
  const auto nccl = pred({"--comm.library=nccl"});
  EXPECT_DOUBLE_EQ(nccl.interference, 0.189);
  EXPECT_DOUBLE_EQ(nccl.per_call_s, 8.4e-6);
  EXPECT_EQ(nccl.staging_GBps, 0.0);
  // MPI on the default platform's RTX 4090 (PCIe 4.0 x16): staged at pcie4's 24 GB/s, no interference.
  const auto mpi = pred({"--comm.library=mpi"});
  EXPECT_EQ(mpi.interference, 0.0);
  EXPECT_DOUBLE_EQ(mpi.staging_GBps, 24.0);
  // A V100 has PCIe 3.0: 12 GB/s.
  EXPECT_DOUBLE_EQ(pred({"--comm.library=gloo", "--compute.device=v100"}).staging_GBps, 12.0);
  EXPECT_EQ(pred({"--comm.library=mpi", "--comm.host_staging=off"}).staging_GBps, 0.0);
  EXPECT_DOUBLE_EQ(pred({"--comm.library=nccl", "--comm.host_staging=on"}).staging_GBps, 24.0);
  EXPECT_DOUBLE_EQ(pred({"--comm.interference=0.05"}).interference, 0.05);
  // Staging costs an MPI step exactly its copies when nothing overlaps: 2 x gradient / 24 GB/s.
  const auto mirrored = [&](const char* staging) {
    return pred({"--comm.library=mpi", "--training.framework=tf_mirrored", staging});
  };
  const auto on = mirrored("--comm.host_staging=on"), off = mirrored("--comm.host_staging=off");
  EXPECT_NEAR(on.exposed_comm_s - off.exposed_comm_s, 2 * on.gradient_bytes / 24e9, 1e-12);
}

TEST(LibraryCosts, DdpFirstBucketHoldsTheLastLayersAlone) {
  // ResNet-50's last layer (fc, 2048 x 1000 + 1000 parameters, 8.2 MB) fills DDP's 1 MiB first
  // bucket on its own; the rest fills 25 MiB buckets: 1 + ceil-ish(94 MiB / 25 MiB) = 5 buckets.
  const auto ddp = predict_default({"--cluster.nodes=2", "--training.framework=pytorch_ddp"});
  const auto flat = predict_default({"--cluster.nodes=2", "--training.framework=pytorch_ddp",
                                               "--comm.first_bucket_mb=0"});
  EXPECT_EQ(ddp.buckets, 5);
  EXPECT_EQ(flat.buckets, 4);
}

TEST(LibraryCosts, BadKeysAreInputErrors) {
  EXPECT_THROW(predict_default({"--comm.interference=-1"}), InputError);
  EXPECT_THROW(predict_default({"--comm.host_staging=maybe"}), InputError);
  EXPECT_THROW(predict_default({"--comm.per_call_us=abc"}), InputError);
}

TEST(LibraryCosts, CalibrationsMeasuredInterferenceBeatsTheDefaultAndTheKeyBeatsBoth) {
  System sys;
  Execution e;
  e.library = Library::Gloo;
  auto cal = std::make_shared<Calibration>();
  cal->device_kind = "cpu";
  sys.compute.calibration = cal;
  EXPECT_EQ(library_costs(e, sys).interference, 0.0);    // CPU ranks, not measured: none
  EXPECT_EQ(library_costs(e, sys).staging_Bps, 0.0);     // CPU tensors are already in host memory
  cal->interference = 0.3;
  EXPECT_DOUBLE_EQ(library_costs(e, sys).interference, 0.3);
  e.step_costs.interference = 0.1;
  EXPECT_DOUBLE_EQ(library_costs(e, sys).interference, 0.1);
}

namespace {

// small_cnn at 32x32, 10 classes, calibrated on a CPU (the fuzz corpus's calibration file), four
// ranks on one node.
Prediction cpu_ranks(std::vector<std::string> extra) {
  extra.insert(extra.begin(), {"--model.name=small_cnn", "--model.input_size=32", "--model.classes=10",
                               "--compute.calibration=" + std::string(DDLSIM_SOURCE_DIR) +
                                   "/tests/fuzz/corpus/calibration/small_cnn.cal",
                               "--training.batch_per_gpu=4", "--cluster.platform=workstation-4x3090",
                               "--cluster.nodes=1", "--cluster.gpus_per_node=4", "--comm.library=gloo"});
  return predict_default(extra);
}

}  // namespace

TEST(HostContention, CpuRanksShareTheNodesCores) {
  const Prediction free = cpu_ranks({});
  // 4 ranks x 1 thread on 2 cores: each thread gets half a core, compute takes 2x.
  const Prediction two = cpu_ranks({"--compute.node_cores=2"});
  EXPECT_DOUBLE_EQ(two.host_contention, 2.0);
  EXPECT_NEAR(two.compute_time_s, 2 * free.compute_time_s, 1e-15);
  EXPECT_NEAR(two.contention_s, free.compute_time_s, 1e-15);
  // 4 ranks x 2 threads on 2 cores, relative to the lone 2-thread rank that fit: 8 / 2 = 4x.
  EXPECT_DOUBLE_EQ(cpu_ranks({"--compute.node_cores=2", "--compute.threads_per_rank=2"}).host_contention, 4.0);
  // 4 ranks x 3 threads on 2 cores, the lone rank already had 3 threads on 2 cores: 6 / 1.5 = 4x.
  EXPECT_DOUBLE_EQ(cpu_ranks({"--compute.node_cores=2", "--compute.threads_per_rank=3"}).host_contention, 4.0);
  // Enough cores: nothing.
  EXPECT_DOUBLE_EQ(cpu_ranks({"--compute.node_cores=8"}).host_contention, 1.0);
  // The one-rank reference for the speed-up is not contended.
  EXPECT_DOUBLE_EQ(two.single_gpu_epoch_s, free.single_gpu_epoch_s);
  // Parts still add up to the step.
  EXPECT_NEAR(two.compute_time_s + two.framework_s + two.interference_s + two.exposed_comm_s + two.input_wait_s +
                  two.straggler_wait_s,
              two.step_time_s, 1e-12);
}

TEST(HostContention, GpuComputeIsNotSlowedByTheHostsCores) {
  const Prediction gpu = predict_default({"--cluster.nodes=1", "--compute.node_cores=1"});
  EXPECT_DOUBLE_EQ(gpu.host_contention, 1.0);
  EXPECT_EQ(gpu.contention_s, 0.0);
}

TEST(LibraryCosts, BothBackendsAndFidelitiesAgreeOnTheInterference) {
  // One DGX-1 V100 node (NVLink, NCCL): exchanges overlap the backward pass, nothing is shared.
  const std::vector<std::string> base = {"--cluster.platform=dgx1", "--cluster.nodes=1"};
  const auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), base.begin(), base.end());
    return predict_default(extra);
  };
  const Prediction analytic = with({});
  ASSERT_GT(analytic.interference_s, 0.0);
  for (const char* fidelity : {"fast", "full"}) {
    const Prediction sg = with({"--simulation.backend=simgrid", std::string("--simulation.fidelity=") + fidelity});
    EXPECT_NEAR(sg.interference_s, analytic.interference_s, 1e-9 * analytic.step_time_s) << fidelity;
    EXPECT_NEAR(sg.step_time_s, analytic.step_time_s, 1e-9 * analytic.step_time_s) << fidelity;
  }
}

// NCCL's call made once a bucket in the schedule (StepSchedule::nccl_calls) is the call the
// analytic backend would make itself on predict's topology: the same rounds for every bucket,
// the residual nccl_residual_s gives, and the algorithm the library chooses.
TEST(LibraryCosts, ScheduledNcclCallsAreTheBackendsOwn) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--cluster.platform=dgx-h100", "--cluster.nodes=4", "--comm.algorithm=auto",
                                 "--comm.nccl_protocol=auto"},
        std::vector<std::string>{"--cluster.platform=dgx1", "--cluster.nodes=16", "--comm.algorithm=ring"},
        std::vector<std::string>{"--cluster.platform=dgx1", "--cluster.nodes=3", "--comm.bucket_mb=1",
                                 "--comm.algorithm=auto"}}) {
    const Scenario sc = resolve_scenario(read_scenario("", args).settings, ".");
    const Execution& e = sc.execution;
    const System& sys = sc.system;
    const CommTopology topo = comm_topology(sys, sys.nodes, sys.cluster.gpus_per_node, e.ps_servers);
    const LibraryCosts lib = library_costs(e, sys, &topo);
    ASSERT_TRUE(lib.nccl) << args.front();
    const StepSchedule s = build_schedule(device_compute_profile(sc), e, 0, topo.ranks(), lib,
                                          FrameworkCosts{}, topo.gpus_per_node);
    ASSERT_EQ(s.nccl_calls.size(), s.buckets.size());
    ASSERT_GT(s.buckets.size(), 1u) << args.front();
    StepSchedule unmade = s;
    unmade.nccl_calls.clear();
    EXPECT_EQ(analytic_exchange_s(s, topo, e.comm()), analytic_exchange_s(unmade, topo, e.comm())) << args.front();
    for (std::size_t i = 0; i < s.buckets.size(); ++i) {
      const Bucket& b = s.buckets[i];
      ASSERT_NE(s.nccl_call(i), nullptr);
      EXPECT_EQ(s.nccl_calls[i].residual_s, lib.nccl_residual_s(b.bytes, b.collective));
      EXPECT_EQ(s.nccl_calls[i].algorithm, library_call(e.comm(), b.collective, topo, b.bytes).algorithm);
    }
  }
}
