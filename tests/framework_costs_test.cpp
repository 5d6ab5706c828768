// The framework's own costs (cost/framework_costs.hpp): buffer copies, negotiation, the optimizer's
// kernels per tensor and the host time per step, each against a hand calculation; switched off,
// the composer gives the step without them; both backends and fidelities agree.
#include <gtest/gtest.h>

#include <cmath>

#include "predict_util.hpp"
#include "test_util.hpp"
#include "core/error.hpp"
#include "cost/compute.hpp"
#include "cost/framework_costs.hpp"
#include "model/model.hpp"
#include "predict/prediction.hpp"
#include "scenario/resolve.hpp"
#include "schedule/compose.hpp"
#include "system/device.hpp"

using namespace ddlsim;
using testutil::predict_default;

namespace {

// forward 10 ms, backward 20 ms; bucket 0 (1 MB, 10 tensors) ready 5 ms into the backward pass,
// bucket 1 (2 MB, 200 tensors) at its end; optimizer 3 ms; no cycle, no input.
StepSchedule schedule(FrameworkCosts fw) {
  StepSchedule s;
  s.forward_s = 0.010;
  s.backward_s = 0.020;
  s.buckets = {Bucket{1e6, 0.005, 5, 9, 10}, Bucket{2e6, 0.020, 0, 4, 200}};
  s.optimizer_s = 0.003;
  s.framework = fw;
  return s;
}

int tensors_of(const Model& m) {
  int n = 0;
  for (const Layer& l : m.layers) n += l.trainable_tensors();
  return n;
}

}  // namespace

TEST(FrameworkCosts, CopiesMoveFourBytesPerByteAndLaunchPerTensorOrPerBatch) {
  FrameworkCosts c;
  c.copy_Bps = 1e9;
  c.per_launch_s = 5e-6;
  c.copies = BufferCopies::PerTensor;
  // 4 x 1 MB at 1 GB/s = 4 ms, plus 2 x 10 launches of 5 us = 0.1 ms.
  EXPECT_DOUBLE_EQ(c.copies_s(1e6, 10), 0.0041);
  c.copies = BufferCopies::Batched;
  // 161 tensors: 2 batched kernels (160 + 1) each way: 4 ms + 4 x 5 us.
  EXPECT_DOUBLE_EQ(c.copies_s(1e6, 161), 0.00402);
  EXPECT_DOUBLE_EQ(c.copies_s(1e6, 160), 0.00401);
  c.copies = BufferCopies::None;
  EXPECT_EQ(c.copies_s(1e6, 161), 0.0);
}

TEST(FrameworkCosts, ComposerPlacesCopiesNegotiationAndHostTime) {
  // Copies at 1 GB/s, 10 us a launch, per tensor: bucket 0 4 ms + 0.2 ms, bucket 1 8 ms + 4 ms.
  // Negotiation 1 ms before each exchange. Bucket 0: ready 15 ms, starts 16, runs 4.2 + 8 ms ->
  // 28.2 ms. Bucket 1: ready 30, starts 31, runs 12 + 4 -> 47 ms. Exposed 47 - 30 = 17 ms;
  // optimizer 47 -> 50 ms; host time 0.5 ms -> 50.5 ms.
  FrameworkCosts fw;
  fw.copies = BufferCopies::PerTensor;
  fw.copy_Bps = 1e9;
  fw.per_launch_s = 10e-6;
  fw.negotiation_s = 0.001;
  fw.step_overhead_s = 0.0005;
  const StepTiming t = compose_step(schedule(fw), true, {0.008, 0.004}, "ring");
  EXPECT_NEAR(t.phases[2].start_s, 0.016, 1e-15);
  EXPECT_NEAR(t.phases[2].end_s, 0.0282, 1e-15);
  EXPECT_NEAR(t.phases[3].end_s, 0.047, 1e-15);
  EXPECT_NEAR(t.exposed_comm_s, 0.017, 1e-15);
  EXPECT_DOUBLE_EQ(t.framework_s, 0.0005);
  EXPECT_NEAR(t.step_s, 0.0505, 1e-15);
  EXPECT_NEAR(t.compute_s + t.framework_s + t.interference_s + t.exposed_comm_s + t.input_wait_s, t.step_s, 1e-15);
  // A local step pays the host time only: 10 + 20 + 0.5 ms.
  EXPECT_NEAR(compose_step(schedule(fw), false, {}, "ring").step_s, 0.0305, 1e-15);
}

TEST(FrameworkCosts, SwitchedOffTheComposerGivesTheStepWithoutThem) {
  // Bucket 0: 15 -> 23 ms; bucket 1: 30 -> 34 ms; optimizer to 37 ms (tests/library_costs_test.cpp).
  const StepTiming t = compose_step(schedule({}), true, {0.008, 0.004}, "ring");
  EXPECT_DOUBLE_EQ(t.step_s, 0.037);
  EXPECT_EQ(t.framework_s, 0.0);
  EXPECT_EQ(t.phases.size(), 5u);  // no "framework" phase
}

TEST(FrameworkCosts, OptimizerKernelsPerTensorFollowTheFramework) {
  EXPECT_EQ(optimizer_kernels_per_tensor(Optimizer::Sgd, FrameworkMode::Eager), 1);
  EXPECT_EQ(optimizer_kernels_per_tensor(Optimizer::Momentum, FrameworkMode::Eager), 3);
  EXPECT_EQ(optimizer_kernels_per_tensor(Optimizer::Adam, FrameworkMode::Eager), 8);
  for (Optimizer o : {Optimizer::Sgd, Optimizer::Momentum, Optimizer::Adam})
    EXPECT_EQ(optimizer_kernels_per_tensor(o, FrameworkMode::Graph), 1);
  // ResNet-50 (Keras: every convolution has a bias): 53 convolutions and 53 batch norms of two
  // tensors each and the classifier's two: 214. Eager momentum launches 2 more kernels a tensor
  // than a graph: 428 x 5 us = 2.14 ms more in the roofline's optimizer, and its three operations
  // move 32 bytes a parameter where the graph's fused apply moves 20.
  const Model m = build_zoo_model("resnet50", ModelOptions{});
  EXPECT_EQ(tensors_of(m), 214);
  const Device& d = find_device("v100", "");
  const ComputeTuning t;
  FrameworkSpec eager, graph;
  eager.mode = FrameworkMode::Eager;
  const ComputeProfile pe = compute_profile(m, d, Precision::FP32, 64, t, Optimizer::Momentum, eager);
  const ComputeProfile pg = compute_profile(m, d, Precision::FP32, 64, t, Optimizer::Momentum, graph);
  const double traffic_s = double(m.params_trainable()) * (32 - 20) / (d.mem_bw_Bps * t.memory_efficiency);
  EXPECT_NEAR(pe.optimizer_s - pg.optimizer_s, 214 * 2 * 5e-6 + traffic_s, 1e-12);
  EXPECT_DOUBLE_EQ(pe.step_overhead_s, 37e-6);  // eager's measured default
  EXPECT_EQ(pg.step_overhead_s, 0.0);
}

// Multi-tensor launches (cost/framework_costs.hpp) by hand. Keras ResNet-50, 214 tensors of
// 25,583,592 elements: chunks = ceil(25,583,592 / 65,536) + 214 = 391 + 214 = 605, in ceil(605 / 320)
// = 2 launches of blocks. foreach momentum: mul_ max(ceil(214/110), 2) = 2, add_ and add_
// max(ceil(214/64), 2) = 4 each: 10 (per tensor: 642). foreach Adam: 4 + 2 + ceil(214/48) 5 + 4
// + ceil(214/96) 3 + 2 + 5 = 25. fused: Adam ceil(214/36) = 6, momentum ceil(214/48) = 5, SGD
// ceil(214/64) = 4. GPT-2's 148 tensors of 124,439,808 elements: chunks 1,899 + 148 = 2,047, 7
// launches of blocks each: foreach momentum 3 x 7 = 21. A graph: one op a variable, whatever the key.
TEST(FrameworkCosts, OptimizerLaunchesByHand) {
  FrameworkSpec fw;
  fw.mode = FrameworkMode::Eager;
  const double r50 = 25583592, gpt2 = 124439808;
  EXPECT_EQ(optimizer_launches(Optimizer::Momentum, fw, 214, r50), 642);
  fw.optimizer_launches = OptimizerLaunches::Foreach;
  EXPECT_EQ(optimizer_launches(Optimizer::Momentum, fw, 214, r50), 10);
  EXPECT_EQ(optimizer_launches(Optimizer::Adam, fw, 214, r50), 25);
  EXPECT_EQ(optimizer_launches(Optimizer::Sgd, fw, 214, r50), 4);
  EXPECT_EQ(optimizer_launches(Optimizer::Momentum, fw, 148, gpt2), 21);
  EXPECT_EQ(optimizer_launches(Optimizer::Momentum, fw, 0, 0), 0);
  fw.optimizer_launches = OptimizerLaunches::Fused;
  EXPECT_EQ(optimizer_launches(Optimizer::Adam, fw, 214, r50), 6);
  EXPECT_EQ(optimizer_launches(Optimizer::Momentum, fw, 214, r50), 5);
  EXPECT_EQ(optimizer_launches(Optimizer::Sgd, fw, 214, r50), 4);
  fw.mode = FrameworkMode::Graph;
  EXPECT_EQ(optimizer_launches(Optimizer::Adam, fw, 214, r50), 214);
}

// Bytes an update moves per parameter, operation by operation (framework_costs.hpp): a fused update
// streams weight, gradient and each state once; torch's unfused operations read and write theirs
// once each.
TEST(FrameworkCosts, OptimizerTrafficByHand) {
  FrameworkSpec fw;
  fw.mode = FrameworkMode::Eager;
  EXPECT_EQ(optimizer_traffic_bytes(Optimizer::Sgd, fw), 12.0);
  EXPECT_EQ(optimizer_traffic_bytes(Optimizer::Momentum, fw), 8 + 12 + 12.0);
  EXPECT_EQ(optimizer_traffic_bytes(Optimizer::Adam, fw), 8 + 12 + 8 + 12 + 8 + 8 + 8 + 16.0);
  fw.optimizer_launches = OptimizerLaunches::Foreach;
  EXPECT_EQ(optimizer_traffic_bytes(Optimizer::Momentum, fw), 32.0);
  EXPECT_EQ(optimizer_traffic_bytes(Optimizer::Adam, fw), 12 + 8 + 12 + 8 + 8 + 8 + 16.0);
  fw.optimizer_launches = OptimizerLaunches::Fused;
  EXPECT_EQ(optimizer_traffic_bytes(Optimizer::Sgd, fw), 12.0);
  EXPECT_EQ(optimizer_traffic_bytes(Optimizer::Momentum, fw), 20.0);
  EXPECT_EQ(optimizer_traffic_bytes(Optimizer::Adam, fw), 28.0);
  FrameworkSpec graph;
  graph.mode = FrameworkMode::Graph;
  EXPECT_EQ(optimizer_traffic_bytes(Optimizer::Adam, graph), 28.0);
}

// framework.zero_grad = zeros by hand on ResNet-50 (214 gradient tensors) in FP32 on a V100: the
// update fills every gradient (4 bytes a parameter, a kernel a tensor in PyTorch 1.x's loop, two
// _foreach_zero_ launches of up to 110 tensors with foreach), each layer's backward adds its new
// gradients into the zeroed ones (12 bytes a parameter, a kernel a tensor), and no micro-batch
// pays a separate accumulation.
TEST(FrameworkCosts, ZeroGradByHand) {
  const Model m = build_zoo_model("resnet50", ModelOptions{});
  const Device& d = find_device("v100", "");
  const ComputeTuning t;
  const double bw = d.mem_bw_Bps * t.memory_efficiency, params = double(m.params_trainable());
  FrameworkSpec none, zeros;
  none.mode = zeros.mode = FrameworkMode::Eager;
  zeros.zeroes_gradients = true;
  const auto at = [&](const FrameworkSpec& fw) {
    return compute_profile(m, d, Precision::FP32, 64, t, Optimizer::Momentum, fw);
  };
  const ComputeProfile pn = at(none), pz = at(zeros);
  EXPECT_NEAR(pz.optimizer_s - pn.optimizer_s, params * 4 / bw + 214 * 5e-6, 1e-12);
  EXPECT_EQ(pz.optimizer_kernels - pn.optimizer_kernels, 214);
  EXPECT_NEAR(pz.optimizer_host_s - pn.optimizer_host_s, 214 * 20.9e-6 / 3, 1e-15);  // zero_grad's own loop
  EXPECT_EQ(pz.accumulate_s, 0.0);
  EXPECT_GT(pn.accumulate_s, 0.0);
  // A host-bound step (batch 1) issues no accumulation kernels where none run.
  ComputeTuning hosted = t;
  hosted.host_kernel_s = 40e-6;
  EXPECT_EQ(compute_profile(m, d, Precision::FP32, 1, hosted, Optimizer::Momentum, zeros).accumulate_s, 0.0);
  EXPECT_GT(compute_profile(m, d, Precision::FP32, 1, hosted, Optimizer::Momentum, none).accumulate_s, 0.0);
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const double add = m.layers[i].params_trainable > 0
                           ? m.layers[i].params_trainable * 12.0 / bw + m.layers[i].trainable_tensors() * 5e-6
                           : 0.0;
    EXPECT_NEAR(pz.layers[i].bwd_s - pn.layers[i].bwd_s, add, 1e-12) << m.layers[i].name;
    EXPECT_EQ(pz.layers[i].bwd_kernels, pn.layers[i].bwd_kernels) << m.layers[i].name;  // host: see host_dispatch.hpp
  }
  none.optimizer_launches = zeros.optimizer_launches = OptimizerLaunches::Foreach;
  EXPECT_EQ(at(zeros).optimizer_kernels - at(none).optimizer_kernels, 2);
  EXPECT_EQ(zero_grad_launches(zeros, 214, params), 2);
  zeros.optimizer_launches = OptimizerLaunches::PerTensor;
  EXPECT_EQ(zero_grad_launches(zeros, 214, params), 214);
}

namespace {
// One PyTorch DDP rank's step with `extra` keys.
double ddp_step_s(std::vector<std::string> extra) {
  extra.insert(extra.end(), {"--training.framework=pytorch_ddp", "--cluster.nodes=1"});
  return predict_default(extra).step_time_s;
}
// Each of `bad` (simulate's arguments) exits 2 and names `key`.
void expect_refused(std::initializer_list<const char*> bad, const std::string& key) {
  for (const std::string args : bad) {
    const auto r = testutil::run_ddlsim("simulate " + args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(key), std::string::npos) << r.out;
  }
}
}  // namespace

// The key's default follows the PyTorch generation framework.optimizer_launches names (1.x: zeros,
// 2.x: none); a graph or a sharded optimizer refuses zeros (exit code 2, naming the key).
TEST(FrameworkCosts, ZeroGradThroughTheScenario) {
  EXPECT_EQ(ddp_step_s({"--framework.zero_grad=zeros"}), ddp_step_s({"--framework.optimizer_launches=per_tensor"}));
  EXPECT_EQ(ddp_step_s({"--framework.optimizer_launches=foreach", "--framework.zero_grad=none"}),
            ddp_step_s({"--framework.optimizer_launches=foreach"}));
  EXPECT_GT(ddp_step_s({"--framework.zero_grad=zeros"}), ddp_step_s({"--framework.zero_grad=none"}));
  expect_refused({"--training.framework=horovod --framework.zero_grad=zeros",
                  "--training.framework=pytorch_ddp --training.sharding=fsdp_full --framework.zero_grad=zeros"},
                 "framework.zero_grad");
}

// training.weight_decay by hand on ResNet-50 (214 tensors, 25,583,592 parameters): l2 adds
// `grad.add(param)` to each tensor's loop (12 bytes, a kernel and a host operation a tensor) or one
// _foreach_add of up to 48 tensors a launch (5 launches); decoupled (AdamW) `param.mul_` (8 bytes) or
// one _foreach_mul_ of up to 110 (2 launches); a fused update takes it for free. A graph refuses it,
// and decoupled needs adam (exit code 2, naming the key).
TEST(FrameworkCosts, WeightDecayByHand) {
  const double r50 = 25583592;
  FrameworkSpec fw;
  fw.mode = FrameworkMode::Eager;
  FrameworkSpec l2 = fw, decoupled = fw;
  l2.weight_decay = WeightDecay::L2;
  decoupled.weight_decay = WeightDecay::Decoupled;
  EXPECT_EQ(optimizer_launches(Optimizer::Momentum, l2, 214, r50), 214 * 4);
  EXPECT_EQ(optimizer_traffic_bytes(Optimizer::Momentum, l2), 32 + 12.0);
  EXPECT_EQ(optimizer_traffic_bytes(Optimizer::Sgd, l2), 12 + 12.0);
  EXPECT_EQ(optimizer_traffic_bytes(Optimizer::Adam, decoupled), 80 + 8.0);
  EXPECT_NEAR(optimizer_host_s(Optimizer::Momentum, l2, 214) - optimizer_host_s(Optimizer::Momentum, fw, 214),
              214 * 20.9e-6 / 3, 1e-15);
  for (FrameworkSpec* f : {&fw, &l2, &decoupled}) f->optimizer_launches = OptimizerLaunches::Foreach;
  EXPECT_EQ(optimizer_launches(Optimizer::Momentum, l2, 214, r50) - optimizer_launches(Optimizer::Momentum, fw, 214, r50), 5);
  EXPECT_EQ(optimizer_launches(Optimizer::Adam, decoupled, 214, r50) - optimizer_launches(Optimizer::Adam, fw, 214, r50), 2);
  EXPECT_EQ(optimizer_traffic_bytes(Optimizer::Adam, l2), 72 + 12.0);
  for (FrameworkSpec* f : {&fw, &l2, &decoupled}) f->optimizer_launches = OptimizerLaunches::Fused;
  EXPECT_EQ(optimizer_launches(Optimizer::Adam, decoupled, 214, r50), optimizer_launches(Optimizer::Adam, fw, 214, r50));
  EXPECT_EQ(optimizer_traffic_bytes(Optimizer::Adam, decoupled), 28.0);
  EXPECT_EQ(optimizer_host_s(Optimizer::Adam, l2, 214), optimizer_host_s(Optimizer::Adam, fw, 214));
  EXPECT_GT(ddp_step_s({"--training.weight_decay=l2"}), ddp_step_s({}));
  EXPECT_EQ(ddp_step_s({"--training.weight_decay=none"}), ddp_step_s({}));
  expect_refused({"--training.framework=horovod --training.weight_decay=l2",
                  "--training.framework=pytorch_ddp --training.weight_decay=decoupled"},
                 "training.weight_decay");
}

// Through the scenario: foreach takes 632 launches of 5 us off ResNet-50's eager update; a graph
// framework refuses the key (exit code 2, naming it).
TEST(FrameworkCosts, ForeachUpdateThroughTheScenario) {
  const Prediction per_tensor =
      predict_default({"--training.framework=pytorch_ddp", "--cluster.nodes=1", "--framework.zero_grad=none"});
  const Prediction foreach = predict_default({"--training.framework=pytorch_ddp", "--cluster.nodes=1",
                                              "--framework.optimizer_launches=foreach"});
  EXPECT_NEAR(per_tensor.step_time_s - foreach.step_time_s, 632 * 5e-6, 1e-9);
  try {
    predict_default({"--training.framework=horovod", "--framework.optimizer_launches=fused"});
    ADD_FAILURE() << "a graph framework took framework.optimizer_launches = fused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("framework.optimizer_launches = fused needs an eager framework"),
              std::string::npos) << e.what();
  }
}

TEST(FrameworkCosts, TensorsOfALayerAreItsWeightBiasGammaAndBeta) {
  Layer conv;
  conv.kind = LayerKind::Conv2D;
  conv.in.c = 3;
  conv.out.c = 8;
  conv.geom = ConvGeometry{3, 3, 1, 1};
  conv.params_trainable = 3 * 3 * 3 * 8;
  EXPECT_EQ(conv.trainable_tensors(), 1);
  conv.params_trainable += 8;
  EXPECT_EQ(conv.trainable_tensors(), 2);
  Layer bn;
  bn.kind = LayerKind::BatchNorm;
  bn.out.c = 8;
  bn.params_trainable = 8;  // beta only (scale = false)
  EXPECT_EQ(bn.trainable_tensors(), 1);
  bn.params_trainable = 16;
  EXPECT_EQ(bn.trainable_tensors(), 2);
  Layer relu;
  relu.kind = LayerKind::Activation;
  EXPECT_EQ(relu.trainable_tensors(), 0);
}

TEST(FrameworkCosts, PresetsChooseModeCopiesAndNegotiation) {
  // Horovod on 4 poti nodes (1 GPU each): two bit-vector allreduces of ceil(log2 4) = 2 rounds over
  // the inter-node route (its latency: 2 PCIe hops of 2 us and 2 Ethernet hops of 25 us = 54 us):
  // 2 x 2 x 54 us = 216 us. DDP negotiates nothing and runs eagerly.
  const Prediction hvd = predict_default({"--training.framework=horovod", "--cluster.nodes=4"});
  const Route route = find_cluster("poti", "").inter_route();
  EXPECT_DOUBLE_EQ(hvd.negotiation_s, 2 * 2 * route.step_latency_s());
  EXPECT_EQ(hvd.framework_mode, "graph");
  const Prediction ddp = predict_default({"--training.framework=pytorch_ddp", "--cluster.nodes=4"});
  EXPECT_EQ(ddp.negotiation_s, 0.0);
  EXPECT_EQ(ddp.framework_mode, "eager");
  EXPECT_DOUBLE_EQ(ddp.framework_s, 37e-6);
  // Where a step goes adds up with the framework's part.
  EXPECT_NEAR(ddp.compute_time_s + ddp.framework_s + ddp.interference_s + ddp.exposed_comm_s + ddp.input_wait_s +
                  ddp.straggler_wait_s,
              ddp.step_time_s, 1e-12 * ddp.step_time_s);
  // One rank exchanges nothing: no negotiation.
  EXPECT_EQ(predict_default({"--training.framework=horovod", "--cluster.nodes=1"}).negotiation_s, 0.0);
}

TEST(FrameworkCosts, MeasuredThroughputCoversTheHostTime) {
  // One GPU, synthetic input: the step is the measured one, host time included.
  const Prediction p = predict_default({"--cluster.nodes=1", "--input.format=synthetic", "--compute.throughput=500",
                                        "--framework.step_overhead_us=1000", "--compute.device_spread=0"});
  EXPECT_NEAR(p.step_time_s, 64.0 / 500.0, 1e-12);
  EXPECT_DOUBLE_EQ(p.framework_s, 0.001);
  // A measured step no longer than the host time is an input error naming both keys.
  try {
    predict_default({"--cluster.nodes=1", "--compute.throughput=100000", "--framework.step_overhead_us=1000"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("framework.step_overhead_us"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("compute.throughput"), std::string::npos) << e.what();
  }
}

TEST(FrameworkCosts, BadKeysAreInputErrors) {
  for (const char* bad : {"--framework.mode=lazy", "--framework.buffer_copies=some", "--framework.negotiation=yes",
                          "--framework.step_overhead_us=-1"})
    EXPECT_THROW(predict_default({bad}), InputError) << bad;
}

TEST(FrameworkCosts, BothBackendsAndFidelitiesAgree) {
  // Horovod on 3 poti nodes: copies, negotiation and a host time per step in every backend.
  const std::vector<std::string> base = {"--training.framework=horovod", "--cluster.nodes=3",
                                         "--framework.step_overhead_us=300"};
  const auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), base.begin(), base.end());
    return predict_default(extra);
  };
  const Prediction analytic = with({});
  ASSERT_GT(analytic.negotiation_s, 0.0);
  for (const char* fidelity : {"fast", "full"}) {
    const Prediction sg = with({"--simulation.backend=simgrid", std::string("--simulation.fidelity=") + fidelity});
    EXPECT_NEAR(sg.step_time_s, analytic.step_time_s, 1e-9 * analytic.step_time_s) << fidelity;
    EXPECT_DOUBLE_EQ(sg.framework_s, analytic.framework_s) << fidelity;
  }
}

// The update's host time (cost/framework_costs.hpp), by hand for 161 tensors (torchvision's
// ResNet-50): a per-tensor loop of momentum SGD, 3 operations of 20.9 / 3 us each a tensor: 161 x
// 20.9 = 3364.9 us; Adam's 8: 161 x 8 x 20.9 / 3 = 8973.1 us; foreach momentum, 3 multi-tensor
// operations of 2.3 / 3 us a tensor: 161 x 2.3 = 370.3 us; fused, one: 123.43 us; a graph: none.
TEST(FrameworkCosts, UpdateHostTimeByHand) {
  FrameworkSpec eager;
  eager.mode = FrameworkMode::Eager;
  EXPECT_NEAR(optimizer_host_s(Optimizer::Momentum, eager, 161), 3364.9e-6, 1e-10);
  EXPECT_NEAR(optimizer_host_s(Optimizer::Adam, eager, 161), 8973.0667e-6, 1e-10);
  eager.optimizer_launches = OptimizerLaunches::Foreach;
  EXPECT_NEAR(optimizer_host_s(Optimizer::Momentum, eager, 161), 370.3e-6, 1e-10);
  eager.optimizer_launches = OptimizerLaunches::Fused;
  EXPECT_NEAR(optimizer_host_s(Optimizer::Momentum, eager, 161), 123.4333e-6, 1e-10);
  EXPECT_EQ(optimizer_host_s(Optimizer::Momentum, FrameworkSpec{}, 161), 0.0);  // a graph
}
