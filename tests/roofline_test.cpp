// The roofline's per-operation rules (cost/compute.cpp), against hand calculations.
#include <gtest/gtest.h>

#include "cost/compute.hpp"
#include "system/device.hpp"

using namespace ddlsim;

namespace {

// One convolution of `k` x `k`, stride `stride`, 1 GFLOP a sample, tiny tensors (compute-bound).
Model conv_model(int k, int stride) {
  Model m;
  m.name = "one_conv";
  Layer c;
  c.name = "conv";
  c.kind = LayerKind::Conv2D;
  c.geom = {k, k, stride, 1};
  c.params_trainable = 1000;
  c.bias_in_params_only = true;  // its parameters are weights: no bias kernels
  c.fwd_flops = 1e9;
  c.in_elems = c.out_elems = 1000;
  m.layers = {c};
  return m;
}

// The roofline of one kernel: eff = 0.6 w / (w + peak x 20 us); t = w / (peak x eff) + 5 us.
double kernel_s(double flops, double peak) {
  const double eff = 0.6 * flops / (flops + peak * 20e-6);
  return flops / (peak * eff) + 5e-6;
}

}  // namespace

TEST(Roofline, Fp32ThreeByThreeConvolutionsRunAsWinograd) {
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  const double peak = 15.7e12, batch = 32;
  // 3x3 stride 1 in FP32: 2.25x fewer operations (F(2x2,3x3)).
  const auto p3 = compute_profile(conv_model(3, 1), v100, Precision::FP32, 32, t, Optimizer::Sgd);
  EXPECT_NEAR(p3.layers[0].fwd_s, kernel_s(1e9 * batch / 2.25, peak), 1e-12);
  // Not for strided or 1x1 convolutions, nor on tensor cores, nor when switched off.
  const auto p3s2 = compute_profile(conv_model(3, 2), v100, Precision::FP32, 32, t, Optimizer::Sgd);
  EXPECT_NEAR(p3s2.layers[0].fwd_s, kernel_s(1e9 * batch, peak), 1e-12);
  const auto p1 = compute_profile(conv_model(1, 1), v100, Precision::FP32, 32, t, Optimizer::Sgd);
  EXPECT_NEAR(p1.layers[0].fwd_s, kernel_s(1e9 * batch, peak), 1e-12);
  // (Mixed precision: the FP16 rule, without autocast's weight casts, tested in transformer_test.)
  t.autocast = false;
  const auto mixed = compute_profile(conv_model(3, 1), v100, Precision::Mixed, 32, t, Optimizer::Sgd);
  EXPECT_NEAR(mixed.layers[0].fwd_s, kernel_s(1e9 * batch, 125e12), 1e-12);
  t.autocast = true;
  t.winograd = false;
  const auto off = compute_profile(conv_model(3, 1), v100, Precision::FP32, 32, t, Optimizer::Sgd);
  EXPECT_NEAR(off.layers[0].fwd_s, kernel_s(1e9 * batch, peak), 1e-12);
}

// compute.half_efficiency_us: a 1x1 convolution of 1 GFLOP a sample, batch 32, FP32 on a V100
// (15.7 TFLOP/s): 32 GFLOP / (0.6 x 15.7e12) = 3.397 ms, plus 20 us / 0.6 = 33.3 us by default,
// 2 us / 0.6 = 3.33 us at 2 us (an H100's, calibration/measured/h100-kernel-sweep.csv), none at 0;
// plus 5 us of launch each time.
TEST(Roofline, HalfEfficiencyLengthIsAKnob) {
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  const double work = 32e9 / (0.6 * 15.7e12);
  for (const double half_us : {20.0, 2.0, 0.0}) {
    t.half_efficiency_work_s = half_us * 1e-6;
    const auto p = compute_profile(conv_model(1, 1), v100, Precision::FP32, 32, t, Optimizer::Sgd);
    EXPECT_NEAR(p.layers[0].fwd_s, work + half_us * 1e-6 / 0.6 + 5e-6, 1e-12) << half_us;
  }
}

TEST(Roofline, ChannelsFirstTensorCoreConvolutionsPayTheirTransposes) {
  // A 3x3 convolution in mixed precision on a V100 with 1e6 input and 1e6 output elements a
  // sample (2 bytes each): NCHW adds a transpose kernel reading and writing both, 2 x 4 MB x 32
  // samples = 256 MB at 0.8 x 900 GB/s, plus 5 us, to the forward pass and twice to the backward
  // (data and weight gradients; this model's one convolution is also its first layer with
  // weights, which computes only its weight gradient: once).
  Model m = conv_model(3, 1);
  m.layers[0].in_elems = m.layers[0].out_elems = 1000000;
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  const auto nhwc = compute_profile(m, v100, Precision::Mixed, 32, t, Optimizer::Sgd);
  t.nchw = true;
  const auto nchw = compute_profile(m, v100, Precision::Mixed, 32, t, Optimizer::Sgd);
  const double transpose = 2 * 4e6 * 32 / (0.8 * 900e9) + 5e-6;
  EXPECT_NEAR(nchw.layers[0].fwd_s - nhwc.layers[0].fwd_s, transpose, 1e-12);
  EXPECT_NEAR(nchw.layers[0].bwd_s - nhwc.layers[0].bwd_s, transpose, 1e-12);
  Model two = m;
  two.layers.insert(two.layers.begin(), m.layers[0]);
  t.nchw = false;
  const auto two_nhwc = compute_profile(two, v100, Precision::Mixed, 32, t, Optimizer::Sgd);
  t.nchw = true;
  const auto two_nchw = compute_profile(two, v100, Precision::Mixed, 32, t, Optimizer::Sgd);
  EXPECT_NEAR(two_nchw.layers[1].bwd_s - two_nhwc.layers[1].bwd_s, 2 * transpose, 1e-12);
  // No tensor cores, no transposes: FP32 on a V100, mixed on a P100.
  const auto fp32 = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd);
  t.nchw = false;
  EXPECT_EQ(fp32.layers[0].fwd_s, compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd).layers[0].fwd_s);
  const Device& p100 = find_device("p100", "");
  const auto p100_nhwc = compute_profile(m, p100, Precision::Mixed, 32, t, Optimizer::Sgd);
  t.nchw = true;
  EXPECT_EQ(compute_profile(m, p100, Precision::Mixed, 32, t, Optimizer::Sgd).layers[0].fwd_s, p100_nhwc.layers[0].fwd_s);
}

TEST(Roofline, Rtx5090FromItsWhitepaper) {
  const Device& d = find_device("rtx5090", "");
  EXPECT_DOUBLE_EQ(d.peak_fp32, 104.8e12);
  EXPECT_DOUBLE_EQ(d.peak_fp16, 209.5e12);
  EXPECT_DOUBLE_EQ(d.mem_bw_Bps, 1792e9);
  EXPECT_EQ(d.pcie_gen, 5);
}

// Datacenter parts from their datasheets (dense tensor rates: half the sparse figures they print
// beside them) and GeForce parts from their architecture whitepapers (FP16 tensor with FP32
// accumulate; TF32 at the FP32 rate).
TEST(Roofline, MoreDevicesFromTheirDatasheets) {
  EXPECT_DOUBLE_EQ(find_device("l4", "").peak_tf32, 60e12);       // L4: TF32 120* TFLOPS
  EXPECT_DOUBLE_EQ(find_device("l4", "").peak_fp16, 121e12);      // FP16 242*
  EXPECT_DOUBLE_EQ(find_device("a30", "").mem_bw_Bps, 933e9);
  EXPECT_DOUBLE_EQ(find_device("h200", "").mem_bw_Bps, 4800e9);   // 4.8 TB/s HBM3e
  EXPECT_FALSE(find_device("p100-pcie", "").tensor_cores);
  EXPECT_DOUBLE_EQ(find_device("rtx4080", "").peak_fp16, 97.5e12);
  EXPECT_DOUBLE_EQ(find_device("rtx3080", "").peak_tf32, find_device("rtx3080", "").peak_fp32);
  EXPECT_EQ(find_device("A100-80GB-PCIe", "").pcie_gen, 4);
}

namespace {
// A layer of `kind` whose input and output hold 1e6 values a sample and that does no arithmetic
// worth counting: its kernels are memory-bound, so each costs bytes / (0.8 x 900 GB/s) + 5 us on a
// V100. In FP32 at batch 32 one pass over the input or the output is 4 B x 1e6 x 32 = 128 MB.
Layer memory_layer(LayerKind kind, std::int64_t params) {
  Layer l;
  l.name = "layer";
  l.kind = kind;
  l.params_trainable = params;
  l.in = l.out = Shape{1000, 1000, 1};
  l.in_elems = l.out_elems = 1000000;
  return l;
}
constexpr double kPass = 128e6, kV100 = 0.8 * 900e9, kLaunch = 5e-6;
}  // namespace

// compute.op_traffic = kernels: each kind of layer moves what its training kernels move.
TEST(Roofline, EachKindOfLayerMovesWhatItsKernelsMove) {
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  // A convolution first, so that every layer after it computes its input's gradient.
  Model m = conv_model(1, 1);
  m.layers.push_back(memory_layer(LayerKind::BatchNorm, 2));
  m.layers.push_back(memory_layer(LayerKind::Activation, 0));
  m.layers.push_back(memory_layer(LayerKind::Add, 0));
  m.layers.back().in_elems = 2000000;  // two inputs
  const auto p = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd);
  // Batch norm (8 bytes of gamma and beta read by the kernels that use them): forward, statistics
  // (read x) and transform (read x, write y); backward, reduce (read x, dy) and elementwise (read
  // x, dy, write dx): 3 and 5 passes in two kernels each.
  EXPECT_NEAR(p.layers[1].fwd_s, (3 * kPass + 8) / kV100 + 2 * kLaunch, 1e-12);
  EXPECT_NEAR(p.layers[1].bwd_s, (5 * kPass + 16) / kV100 + 2 * kLaunch, 1e-12);
  // Activation: read x, write y; backward read dy and x, write dx.
  EXPECT_NEAR(p.layers[2].fwd_s, 2 * kPass / kV100 + kLaunch, 1e-12);
  EXPECT_NEAR(p.layers[2].bwd_s, 3 * kPass / kV100 + kLaunch, 1e-12);
  // Add of two: read both, write y; backward hands dy to both inputs unchanged: no kernel.
  EXPECT_NEAR(p.layers[3].fwd_s, 3 * kPass / kV100 + kLaunch, 1e-12);
  EXPECT_EQ(p.layers[3].bwd_s, 0);
}

// Where a layer's output feeds k layers, autograd sums their k gradients: k - 1 kernels, each
// reading two and writing one of the output's size. An activation read by 3 layers: its own
// backward (read dy and x, write dx: 3 passes) plus 2 x 3 passes, in 3 kernels.
// compute.op_traffic = kernels_add_fork is the previous rule: no sums at forks, one at each add.
TEST(Roofline, GradientsAreSummedWhereAnOutputForks) {
  const Device& v100 = find_device("v100", "");
  Model m = conv_model(1, 1);
  m.layers.push_back(memory_layer(LayerKind::Activation, 0));
  m.layers.back().consumers = 3;
  m.layers.push_back(memory_layer(LayerKind::Add, 0));
  m.layers.back().in_elems = 2000000;
  ComputeTuning t;
  auto p = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd);
  EXPECT_NEAR(p.layers[1].bwd_s, (3 + 2 * 3) * kPass / kV100 + 3 * kLaunch, 1e-12);
  EXPECT_EQ(p.layers[2].bwd_s, 0);
  t.fork_sums = false;
  p = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd);
  EXPECT_NEAR(p.layers[1].bwd_s, 3 * kPass / kV100 + kLaunch, 1e-12);
  EXPECT_NEAR(p.layers[2].bwd_s, 3 * kPass / kV100 + kLaunch, 1e-12);
  // A convolution whose output forks, channels-first in mixed precision: its three GEMM kernels
  // pay cuDNN's transposes, its gradient sum does not (one more kernel of 3 passes, FP16).
  Model c = conv_model(1, 1);  // a first convolution, so that the second computes its input's gradient
  c.layers.push_back(c.layers.front());
  c.layers.back().out_elems = 1000000;
  ComputeTuning nchw;
  nchw.nchw = true;
  const double one = compute_profile(c, v100, Precision::Mixed, 32, nchw, Optimizer::Sgd).layers[1].bwd_s;
  c.layers.back().consumers = 2;
  const double two = compute_profile(c, v100, Precision::Mixed, 32, nchw, Optimizer::Sgd).layers[1].bwd_s;
  EXPECT_NEAR(two - one, 3 * kPass / 2 / kV100 + kLaunch, 1e-12);
}

TEST(Roofline, NoGradientBeforeTheFirstLayerWithWeights) {
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  Model m;
  m.layers = {memory_layer(LayerKind::Normalization, 0), memory_layer(LayerKind::Activation, 0),
              memory_layer(LayerKind::BatchNorm, 2), memory_layer(LayerKind::Activation, 0)};
  const auto p = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd);
  EXPECT_EQ(p.layers[0].bwd_s, 0);  // preprocessing: forward only
  EXPECT_EQ(p.layers[1].bwd_s, 0);  // before any weights: nothing to propagate to
  // The first batch norm computes only gamma's and beta's gradient: the reduce kernel (x, dy).
  EXPECT_NEAR(p.layers[2].bwd_s, (2 * kPass + 8) / kV100 + kLaunch, 1e-12);
  EXPECT_NEAR(p.layers[3].bwd_s, 3 * kPass / kV100 + kLaunch, 1e-12);
}

// compute.op_traffic = uniform: one kernel reading the input and writing the output, two in
// backward for layers with weights, 1.5 passes of both else; and every layer computes its input's
// gradient.
TEST(Roofline, UniformTrafficIsOneKernelAPass) {
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  t.per_kind_traffic = false;
  Model m;
  m.layers = {memory_layer(LayerKind::Normalization, 0), memory_layer(LayerKind::BatchNorm, 2),
              memory_layer(LayerKind::Activation, 0)};
  const auto p = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd);
  EXPECT_NEAR(p.layers[0].bwd_s, 3 * kPass / kV100 + kLaunch, 1e-12);
  EXPECT_NEAR(p.layers[1].fwd_s, (2 * kPass + 8) / kV100 + kLaunch, 1e-12);
  EXPECT_NEAR(p.layers[1].bwd_s, 2 * ((2 * kPass + 8) / kV100 + kLaunch), 1e-12);
  EXPECT_NEAR(p.layers[2].bwd_s, 3 * kPass / kV100 + kLaunch, 1e-12);
}

// PyTorch's in-place activations whose gradient reads their input (SiLU, Hardswish, ReLU6,
// Hardsigmoid) make autograd copy the input first: one more kernel forward (read x, write the
// copy), in eager PyTorch only. A convolution, then an in-place SiLU, an in-place ReLU (its
// gradient reads the result: no copy) and an out-of-place SiLU.
TEST(Roofline, InPlaceActivationsCopyTheirInputInEagerPyTorch) {
  const Device& v100 = find_device("v100", "");
  Model m = conv_model(1, 1);
  for (const char* fn : {"silu", "relu", "silu"}) {
    m.layers.push_back(memory_layer(LayerKind::Activation, 0));
    m.layers.back().fn = fn;
  }
  m.layers[1].inplace = m.layers[2].inplace = true;
  ComputeTuning t;
  FrameworkSpec eager, graph;
  eager.mode = FrameworkMode::Eager;
  graph.mode = FrameworkMode::Graph;
  const auto e = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd, eager);
  const auto g = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd, graph);
  const double act = 2 * kPass / kV100 + kLaunch;  // read x, write y
  EXPECT_NEAR(e.layers[1].fwd_s, 2 * act, 1e-12);  // the copy (read x, write it) and the activation
  EXPECT_NEAR(g.layers[1].fwd_s, act, 1e-12);
  EXPECT_NEAR(e.layers[1].bwd_s, g.layers[1].bwd_s, 1e-15);  // backward reads the copy instead of x
  EXPECT_NEAR(e.layers[2].fwd_s, act, 1e-12);
  EXPECT_NEAR(e.layers[3].fwd_s, act, 1e-12);
  // Compiled (compute.fusion = pointwise): functionalised, no copy.
  t.pointwise_fusion = true;
  const auto f = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd, eager);
  const auto fg = compute_profile(m, v100, Precision::FP32, 32, t, Optimizer::Sgd, graph);
  for (std::size_t i = 1; i < m.layers.size(); ++i) EXPECT_NEAR(f.layers[i].fwd_s, fg.layers[i].fwd_s, 1e-15);
}

// A biased convolution: cuDNN's call, then ATen adds the bias (reads and writes y: 2 passes) and
// backward sums dy into its gradient (1 pass), each a kernel of its own; a dense layer adds its
// bias inside the GEMM and sums dy backward; a bias kept only for the parameter count (Keras's
// ResNets) runs neither. Channels-first tensor-core convolutions transpose around cuDNN's call
// only: the bias kernels pay no transposes. 1x1 layers of one channel over 1e6 pixels: the
// convolution's weight is 1 value, so 2 parameters are a weight and a bias.
TEST(Roofline, BiasesRunTheirOwnKernels) {
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  const auto with = [&](LayerKind kind, std::int64_t params, bool params_only, Precision p) {
    Model m = conv_model(1, 1);
    Layer l = memory_layer(kind, params);
    l.geom = {1, 1, 1, 1};
    l.in.c = l.out.c = 1;
    l.bias_in_params_only = params_only;
    m.layers.push_back(l);
    return compute_profile(m, v100, p, 32, t, Optimizer::Sgd).layers[1];
  };
  const LayerCost plain = with(LayerKind::Conv2D, 1, false, Precision::FP32);
  const LayerCost biased = with(LayerKind::Conv2D, 2, false, Precision::FP32);
  // (+ the bias's 4 bytes, read by the forward and data-gradient kernels, written by the weights'.)
  EXPECT_NEAR(biased.fwd_s - plain.fwd_s, (2 * kPass + 4) / kV100 + kLaunch, 1e-15);
  EXPECT_NEAR(biased.bwd_s - plain.bwd_s, (kPass + 8) / kV100 + kLaunch, 1e-15);
  EXPECT_EQ(biased.fwd_kernels, plain.fwd_kernels + 1);
  EXPECT_EQ(biased.bwd_kernels, plain.bwd_kernels + 1);
  const LayerCost dense = with(LayerKind::Dense, 1, false, Precision::FP32);
  const LayerCost dense_biased = with(LayerKind::Dense, 2, false, Precision::FP32);
  EXPECT_NEAR(dense_biased.fwd_s - dense.fwd_s, 4 / kV100, 1e-15);
  EXPECT_NEAR(dense_biased.bwd_s - dense.bwd_s, (kPass + 8) / kV100 + kLaunch, 1e-15);
  const LayerCost keras = with(LayerKind::Conv2D, 2, true, Precision::FP32);
  EXPECT_NEAR(keras.fwd_s - plain.fwd_s, 4 / kV100, 1e-15);
  EXPECT_NEAR(keras.bwd_s - plain.bwd_s, 8 / kV100, 1e-15);
  // FP16 activations (no autocast casts), channels-first: 1 pass is 64 MB.
  t.autocast = false;
  t.nchw = true;
  const LayerCost half = with(LayerKind::Conv2D, 1, false, Precision::Mixed);
  const LayerCost half_biased = with(LayerKind::Conv2D, 2, false, Precision::Mixed);
  EXPECT_NEAR(half_biased.fwd_s - half.fwd_s, (kPass + 2) / kV100 + kLaunch, 1e-15);
  EXPECT_NEAR(half_biased.bwd_s - half.bwd_s, (kPass / 2 + 4) / kV100 + kLaunch, 1e-15);
  EXPECT_EQ(half_biased.fwd_kernels, half.fwd_kernels + 1);
}

// cuDNN's channels-first FP16 batch norm runs a thread block a channel at 7.6 GB/s, two blocks an
// SM (cost/compute.cpp bn_channel_blocks_s). A batch norm of one channel of 1e6 values a sample,
// batch 32, FP16 activations (no autocast casts): a pass is 64 MB, one wave on the V100's 80 SMs:
// forward 3 passes, 192 MB / 7.6 GB/s + 2 launches = 25.26 ms (the roofline: 0.27 ms); backward
// 5 passes, 320 MB / 7.6 GB/s + 2 launches. With 320 channels, 2 waves of 160 blocks: 192 MB / (160
// x 7.6 GB/s) = 1.216 TB/s, faster than the roofline's 720 GB/s, which stays. Channels-last, FP32
// and a compiled step (pointwise fusion) keep the roofline.
TEST(Roofline, ChannelsFirstHalfBatchNormRunsABlockAChannel) {
  const Device& v100 = find_device("v100", "");
  ComputeTuning t;
  t.autocast = false;
  t.nchw = true;
  const auto bn = [&](int channels, Precision p, const ComputeTuning& tuning) {
    Model m = conv_model(1, 1);
    Layer l = memory_layer(LayerKind::BatchNorm, 2);
    l.out.c = channels;
    m.layers.push_back(l);
    return compute_profile(m, v100, p, 32, tuning, Optimizer::Sgd).layers[1];
  };
  constexpr double pass = 64e6, block = 7.6e9;
  const LayerCost one = bn(1, Precision::Mixed, t);
  EXPECT_NEAR(one.fwd_s, 3 * pass / block + 2 * kLaunch, 1e-12);
  EXPECT_NEAR(one.bwd_s, 5 * pass / block + 2 * kLaunch, 1e-12);
  const double roofline_fwd = (3 * pass + 4) / kV100 + 2 * kLaunch;
  EXPECT_NEAR(bn(320, Precision::Mixed, t).fwd_s, roofline_fwd, 1e-12);
  ComputeTuning nhwc = t, fused = t;
  nhwc.nchw = false;
  fused.pointwise_fusion = true;
  EXPECT_NEAR(bn(1, Precision::Mixed, nhwc).fwd_s, roofline_fwd, 1e-12);
  EXPECT_NEAR(bn(1, Precision::FP32, t).fwd_s, (6 * pass + 8) / kV100 + 2 * kLaunch, 1e-12);
  EXPECT_LT(bn(1, Precision::Mixed, fused).fwd_s, one.fwd_s / 10);
  ComputeTuning off = t;
  off.bn_channel_blocks = false;  // compute.nchw_batchnorm = roofline
  EXPECT_NEAR(bn(1, Precision::Mixed, off).fwd_s, roofline_fwd, 1e-12);
}

// The block-a-channel batch norm needs the device's SM count, kept beside the device table
// (system/device.cpp): a device added to the table without one would silently keep the roofline.
TEST(Roofline, EveryDeviceHasItsStreamingMultiprocessors) {
  for (const Device& d : device_table()) EXPECT_GT(streaming_multiprocessors(d.name), 0) << d.name;
  EXPECT_EQ(streaming_multiprocessors("v100"), 80);  // GV100 whitepaper
  EXPECT_EQ(streaming_multiprocessors("no-such-gpu"), 0);
}

// Fused attention on FP32 inputs is PyTorch's memory-efficient kernel, 3xTF32 on Ampere and later:
// one attention layer of 1 GFLOP a sample (one value in and out, so its copies cost their launch
// only), batch 32, TF32: on an A100 32 GFLOP at 0.6 x 156 / 3 TFLOP/s (+ the ramp, + 5 us), with
// the split and merge copies 5 us each; on a V100 (no TF32) its 15.7 FP32; in mixed precision
// FlashAttention at the FP16 rate, as before.
TEST(Roofline, Fp32FusedAttentionRuns3xTf32FromAmpere) {
  Model m;
  Layer a;
  a.name = "attention";
  a.kind = LayerKind::Attention;
  a.heads = 1;
  a.fwd_flops = 1e9;
  a.in_elems = a.out_elems = 1;
  m.layers = {a};
  ComputeTuning t;
  const auto fwd = [&](const char* device, Precision p) {
    return compute_profile(m, find_device(device, ""), p, 32, t, Optimizer::Sgd).layers[0].fwd_s;
  };
  EXPECT_NEAR(fwd("a100", Precision::TF32), kernel_s(32e9, 156e12 / 3) + 2 * kLaunch, 1e-9);
  EXPECT_NEAR(fwd("a100", Precision::FP32), kernel_s(32e9, 156e12 / 3) + 2 * kLaunch, 1e-9);
  EXPECT_NEAR(fwd("v100", Precision::TF32), kernel_s(32e9, 15.7e12) + 2 * kLaunch, 1e-9);
  t.autocast = false;
  EXPECT_NEAR(fwd("a100", Precision::Mixed), kernel_s(32e9, 312e12) + 2 * kLaunch, 1e-9);
}
