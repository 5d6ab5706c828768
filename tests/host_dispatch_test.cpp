// The host as a bottleneck (cost/host_dispatch.hpp): the recurrence by hand, off when no host time
// is given, never faster than the GPU alone or than the host alone, and what `simulate` makes of it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cost/compute.hpp"
#include "cost/host_dispatch.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {

constexpr double ms = 1e-3;

// One H200 of a DGX H100 node, eager PyTorch, synthetic data: the machine of the H200 runs.
const std::string kOneH200 = " --cluster.platform=dgx-h100 --cluster.nodes=1 --cluster.gpus_per_node=1 "
                             "--compute.device=h200 --training.framework=pytorch_ddp --input.format=synthetic "
                             "--format=json ";

// `ddlsim ARGS` as JSON (a failure, and null, when it does not exit 0).
nlohmann::json ddlsim_json(const std::string& args) {
  const auto r = testutil::run_ddlsim(args);
  EXPECT_EQ(r.code, 0) << args << "\n" << r.out;
  return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

// Two layers: forward 1 ms in 2 kernels and 0.1 ms in 4; backward 0.2 ms in 2 (second layer) and
// 2 ms in 2 (first); the update 0.1 ms in 2; accumulation 0.3 ms over the first layer's 2 tensors.
// 12 kernels.
ComputeProfile two_layers() {
  ComputeProfile p;
  LayerCost a, b;
  a.fwd_s = 1 * ms, a.fwd_kernels = 2, a.bwd_s = 2 * ms, a.bwd_kernels = 2, a.grad_tensors = 2;
  b.fwd_s = 0.1 * ms, b.fwd_kernels = 4, b.bwd_s = 0.2 * ms, b.bwd_kernels = 2;
  p.layers = {a, b};
  p.optimizer_s = 0.1 * ms, p.optimizer_kernels = 2;
  p.accumulate_s = 0.3 * ms;
  return p;
}

}  // namespace

// 12 ms of host time: 1 ms a kernel, the update's 2 ms over its 2. Host clock H, GPU clock E (ms):
//   first forward:   issued 1..2, E = max(max(0, 1) + 1, 2 + 1/2) = 2.5        -> 2.5
//   second forward:  issued 3..6, E = max(max(2.5, 3) + 0.1, 6 + 0.1/4) = 6.025 -> 3.525
//   second backward: issued 7..8, E = max(7 + 0.2, 8 + 0.1) = 8.1             -> 2.075
//   first backward:  issued 9..10, E = max(9 + 2, 10 + 1) = 11                 -> 2.9
//   update:          issued 11..12, E = max(11 + 0.1, 12 + 0.05) = 12.05       -> 1.05
//   accumulation instead (2 tensors, from H = 10, E = 11): max(11.3, 12.15)    -> 1.15
TEST(HostDispatch, RecurrenceByHand) {
  ComputeProfile p = two_layers();
  EXPECT_EQ(step_kernels(p), 12);
  apply_host_floor(p, {1 * ms, 2 * ms});
  EXPECT_NEAR(p.layers[0].fwd_s, 2.5 * ms, 1e-12);
  EXPECT_NEAR(p.layers[1].fwd_s, 3.525 * ms, 1e-12);
  EXPECT_NEAR(p.layers[1].bwd_s, 2.075 * ms, 1e-12);
  EXPECT_NEAR(p.layers[0].bwd_s, 2.9 * ms, 1e-12);
  EXPECT_NEAR(p.optimizer_s, 1.05 * ms, 1e-12);
  EXPECT_NEAR(p.accumulate_s, 1.15 * ms, 1e-12);
  EXPECT_NEAR(p.forward_s() + p.backward_s() + p.optimizer_s, 12.05 * ms, 1e-12);
  // The GPU alone: 1 + 0.1 + 0.2 + 2 + 0.1 = 3.4 ms of the 12.05.
  EXPECT_NEAR(p.host_wait_share, 1 - 3.4 / 12.05, 1e-12);
}

// AMP's GradScaler synchronises before the update: the host, at 10 ms when the backward pass is
// issued, waits for the GPU (11 ms), then issues the update's 2 kernels at 12 and 13:
// E = max(max(11, 12) + 0.1, 13 + 0.1/2) = 13.05 -> 2.05 ms (1.05 without the wait). Accumulating
// steps call no scaler.step: 1.15 as before.
TEST(HostDispatch, GradScalerWaitsForTheGpuBeforeTheUpdate) {
  ComputeProfile p = two_layers();
  apply_host_floor(p, {1 * ms, 2 * ms, true});
  EXPECT_NEAR(p.layers[0].bwd_s, 2.9 * ms, 1e-12);
  EXPECT_NEAR(p.optimizer_s, 2.05 * ms, 1e-12);
  EXPECT_NEAR(p.accumulate_s, 1.15 * ms, 1e-12);
}

// Work without kernels (a calibrated layer the roofline counts none for) still occupies the GPU.
// Layers of 0.1, 2 and 0.1 ms with 1, 0 and 1 kernels, a 2 ms host (1 ms a kernel): the first,
// issued at 1, ends at 1.1; the second runs 1.1 -> 3.1; the third, issued at 2, waits for the GPU
// and ends at 3.2: 1.1, 2 and 0.1 ms (a GPU clock left at 1.1 would have charged the third 1 ms).
TEST(HostDispatch, WorkWithoutKernelsKeepsTheGpuBusy) {
  ComputeProfile p;
  LayerCost a, b, c;
  a.fwd_s = 0.1 * ms, a.fwd_kernels = 1;
  b.fwd_s = 2 * ms;
  c.fwd_s = 0.1 * ms, c.fwd_kernels = 1;
  p.layers = {a, b, c};
  apply_host_floor(p, {1 * ms, 0});
  EXPECT_NEAR(p.layers[0].fwd_s, 1.1 * ms, 1e-12);
  EXPECT_NEAR(p.layers[1].fwd_s, 2 * ms, 1e-12);
  EXPECT_NEAR(p.layers[2].fwd_s, 0.1 * ms, 1e-12);
}

TEST(HostDispatch, NoHostTimeChangesNothing) {
  ComputeProfile p = two_layers();
  apply_host_floor(p, {});
  const ComputeProfile q = two_layers();
  for (std::size_t i = 0; i < p.layers.size(); ++i) {
    EXPECT_EQ(p.layers[i].fwd_s, q.layers[i].fwd_s);
    EXPECT_EQ(p.layers[i].bwd_s, q.layers[i].bwd_s);
  }
  EXPECT_EQ(p.optimizer_s, q.optimizer_s);
  EXPECT_EQ(p.accumulate_s, q.accumulate_s);
}

// Every layer takes at least its GPU time; the step at least the host's time; a host far faster
// than the GPU (1 us for the 12 kernels) costs at most one kernel's host time a layer.
TEST(HostDispatch, NeverFasterThanEitherAlone) {
  const ComputeProfile gpu = two_layers();
  const Seconds gpu_step = gpu.forward_s() + gpu.backward_s() + gpu.optimizer_s;
  for (const Seconds host : {1e-6, 1 * ms, 3.3 * ms, 12 * ms, 50 * ms}) {
    ComputeProfile p = two_layers();
    apply_host_floor(p, {host / 12, 2 * host / 12});
    for (std::size_t i = 0; i < p.layers.size(); ++i) {
      EXPECT_GE(p.layers[i].fwd_s, gpu.layers[i].fwd_s) << host;
      EXPECT_GE(p.layers[i].bwd_s, gpu.layers[i].bwd_s) << host;
    }
    const Seconds step = p.forward_s() + p.backward_s() + p.optimizer_s;
    EXPECT_GE(step, gpu_step) << host;
    EXPECT_GE(step, host) << host;
    if (host == 1e-6) EXPECT_LE(step, gpu_step + 1e-6) << "a fast host hides behind the GPU";
  }
}

// Through `simulate`: BERT-base at 32 x 128 tokens on one H200 (mixed, math attention) is GPU-bound
// by the roofline (about 32 ms); a host that needs 60 ms a step makes the step just over 60 ms (the
// last kernel's share after it was issued), and more host time is never faster.
TEST(HostDispatch, SimulateWaitsForTheHost) {
  const std::string base = "simulate" + kOneH200 + "--model.name=bert_base --model.input_size=128 "
                           "--model.precision=mixed --training.batch_per_gpu=32 --compute.attention=math";
  const std::string no_host = " --compute.host_kernel_us=0";  // the GPU alone (no eager default)
  const auto step = [&](const std::string& extra) { return ddlsim_json(base + extra)["step_time_s"].get<double>(); };
  const double alone = step(no_host);
  // The report names the wait: the compute beyond the GPU's own.
  const auto gpu = ddlsim_json(base + no_host), waiting = ddlsim_json(base + " --compute.host_step_ms=60");
  EXPECT_EQ(gpu["host_wait_s"].get<double>(), 0);
  EXPECT_NEAR(waiting["compute_time_s"].get<double>() - waiting["host_wait_s"].get<double>(),
              gpu["compute_time_s"].get<double>(), 1e-9);
  EXPECT_EQ(step(" --compute.host_step_ms=0"), alone);
  EXPECT_LT(alone, 0.040);
  double before = alone;
  for (const double host_ms : {10.0, 40.0, 60.0, 90.0}) {
    const double s = step(" --compute.host_step_ms=" + std::to_string(host_ms));
    EXPECT_GE(s, before) << host_ms;
    EXPECT_GE(s, host_ms * 1e-3) << host_ms;
    before = s;
  }
  EXPECT_NEAR(step(" --compute.host_step_ms=60"), 0.060, 0.0005);
  const auto bad = testutil::run_ddlsim(base + " --compute.host_step_ms=-3");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("compute.host_step_ms"), std::string::npos) << bad.out;
}

// compute.host_kernel_us is the host's time per layer kernel; the update is issued at the
// optimizer's own host time (PyTorch 1.x's per-tensor loop: 20.9 / 3 us an operation a tensor,
// cost/framework_costs.hpp). EfficientNet-B0 at batch 1 with 500 us a kernel is host-bound: the
// step ends one update kernel's GPU share after the host has issued its last kernel, at
// layer kernels x 500 us + update operations x 20.9 / 3 us (`ddlsim profile` counts both).
TEST(HostDispatch, PerKernelForTheLayersAndTheOptimizersOwnForTheUpdate) {
  const std::string keys =
      kOneH200 + "--model.name=efficientnet_b0 --model.precision=mixed --training.batch_per_gpu=1";
  const auto prof = ddlsim_json("profile" + keys + " --compute.host_kernel_us=500");
  const int kernels = prof["kernels"].get<int>(), update = prof["update_kernels"].get<int>();
  const double update_host = prof["update_host_s"].get<double>();
  EXPECT_NEAR(update_host, update * 20.9e-6 / 3, 1e-12);  // momentum: 3 operations a tensor
  const auto sim = ddlsim_json("simulate" + keys + " --compute.host_kernel_us=500");
  const double host_s = (kernels - update) * 500e-6 + update_host;
  const double framework_s = sim["framework_s"].get<double>();
  EXPECT_GE(sim["step_time_s"].get<double>() - framework_s, host_s);
  // Beyond it: the GPU's share of the last backward kernel, which AMP's GradScaler waits for, and
  // of the update's last.
  EXPECT_LE(sim["step_time_s"].get<double>() - framework_s, host_s + 1e-4);
  const auto both = testutil::run_ddlsim("simulate" + keys + " --compute.host_kernel_us=50 --compute.host_step_ms=9");
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.out.find("not both"), std::string::npos) << both.out;
}

// The default: eager frameworks wait for a host of 39.3 us a layer kernel (cost/host_dispatch.hpp),
// graphs and compute.host_step_ms = 0 for none. EfficientNet-B0 at batch 1 on one H200 is
// host-bound under the default.
TEST(HostDispatch, EagerFrameworksHaveADefaultHost) {
  const std::string keys =
      kOneH200 + "--model.name=efficientnet_b0 --model.precision=mixed --training.batch_per_gpu=1";
  const auto step = [&](const std::string& extra) {
    return ddlsim_json("simulate" + keys + extra)["step_time_s"].get<double>();
  };
  const double eager = step(""), off = step(" --compute.host_kernel_us=0");
  EXPECT_EQ(eager, step(" --compute.host_kernel_us=39.3"));
  // Host-bound: at least the host's layer kernels and its update (`ddlsim profile` counts them).
  const auto prof = ddlsim_json("profile" + keys);
  const int layer_kernels = prof["kernels"].get<int>() - prof["update_kernels"].get<int>();
  EXPECT_GT(eager, layer_kernels * 39.3e-6 + prof["update_host_s"].get<double>());
  EXPECT_GT(eager, 1.3 * off);
  EXPECT_EQ(step(" --compute.host_step_ms=0"), off);
  EXPECT_EQ(step(" --framework.mode=graph"), step(" --framework.mode=graph --compute.host_kernel_us=0"));
  const auto bad = testutil::run_ddlsim("simulate" + keys + " --compute.host_kernel_us=-1");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("compute.host_kernel_us"), std::string::npos) << bad.out;
}

// A calibrated profile takes the roofline's kernel counts: the H200 file's ResNet-50 (27.5 ms of
// kernels, the harness's step: gradients not zeroed) under a 60 ms host ends just after the host's last kernel where nothing synchronises (a
// graph), later under AMP's GradScaler (the host waits for the GPU before the update); without a
// host (compute.host_kernel_us = 0) it is the calibrated step (tests/calibration_file_test.cpp);
// with the eager default (39.3 us a layer kernel) the GPU waits for its host some of the step.
TEST(HostDispatch, CalibratedProfileWaitsToo) {
  const std::string base = "simulate" + kOneH200 + "--model.name=resnet50 --model.precision=mixed "
                           "--training.batch_per_gpu=128 --framework.zero_grad=none --compute.calibration=" +
                           testutil::source_dir() + "/calibration/measured/h200-resnet50-224-mixed.cal";
  const auto a = ddlsim_json(base + " --compute.host_kernel_us=0");
  const auto w = ddlsim_json(base + " --compute.host_step_ms=60");
  EXPECT_NEAR(a["compute_time_s"].get<double>(), 0.027510, 1.5e-6);
  EXPECT_EQ(a["host_wait_s"].get<double>(), 0);
  const auto d = ddlsim_json(base);
  EXPECT_GT(d["host_wait_s"].get<double>(), 0);
  EXPECT_NEAR(d["compute_time_s"].get<double>() - d["host_wait_s"].get<double>(), 0.027510, 1.5e-6);
  EXPECT_GT(w["step_time_s"].get<double>(), 0.0605);
  EXPECT_LT(w["step_time_s"].get<double>(), 0.060 + 0.027510);
  EXPECT_NEAR(w["compute_time_s"].get<double>() - w["host_wait_s"].get<double>(), 0.027510, 1.5e-6);
  const auto g = ddlsim_json(base + " --compute.host_step_ms=60 --framework.mode=graph");
  EXPECT_NEAR(g["step_time_s"].get<double>(), 0.060, 0.0005);
}

// framework.cuda_graphs: no host time a kernel (the eager default goes), and the device's
// per-kernel costs as measured inside CUDA graphs on an H100, unless the keys are given: the same
// profile as those keys set by hand, and faster than eager at a small batch.
TEST(HostDispatch, CudaGraphsTakeTheGraphMeasuredKernelCosts) {
  const std::string base = "profile" + kOneH200 + "--model.name=resnet50 --model.precision=mixed --training.batch_per_gpu=8";
  const auto graphs = ddlsim_json(base + " --framework.cuda_graphs=true");
  const auto by_hand = ddlsim_json(base + " --compute.host_kernel_us=0 --compute.kernel_overhead_us=1.53 "
                                          "--compute.half_efficiency_us=0.53");
  EXPECT_EQ(graphs["step_s"].get<double>(), by_hand["step_s"].get<double>());
  EXPECT_EQ(graphs["host_wait_share"].get<double>(), 0);
  EXPECT_LT(graphs["step_s"].get<double>(), ddlsim_json(base)["step_s"].get<double>());
  // A key given by hand wins over the graph's default.
  const auto given = ddlsim_json(base + " --framework.cuda_graphs=true --compute.kernel_overhead_us=5");
  EXPECT_GT(given["step_s"].get<double>(), graphs["step_s"].get<double>());
}
