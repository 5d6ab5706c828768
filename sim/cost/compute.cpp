#include "cost/compute.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "core/text.hpp"
#include "ops/autocast.hpp"
#include "ops/layer_ops.hpp"
#include "cost/framework_costs.hpp"
#include "cost/fusion.hpp"
#include "cost/host_dispatch.hpp"

namespace ddlsim {
inline namespace cost_layer {

namespace {

// Attention's matrix products run on the tensor cores, as GEMMs do.
bool is_gemm(LayerKind k) { return k == LayerKind::Conv2D || k == LayerKind::Dense || k == LayerKind::Attention; }

struct Roofline {
  FlopsPerSecond peak;
  BytesPerSecond mem_Bps;
  const ComputeTuning& t;

  Seconds kernel_s(Flops flops, Bytes bytes) const {
    const double half_work = peak * t.half_efficiency_work_s;
    const double eff = t.max_efficiency * flops / (flops + half_work);
    const Seconds compute = flops > 0 ? flops / (peak * eff) : 0;
    return std::max(compute, bytes / mem_Bps) + t.kernel_overhead_s;
  }
};

// Winograd: for 3x3 stride-1 convolutions in FP32, cuDNN's autotuner (TensorFlow's default,
// PyTorch's cudnn.benchmark) picks its Winograd algorithms, which need 2.25x fewer multiplies
// than direct convolution with F(2x2, 3x3) (Lavin and Gray, "Fast Algorithms for Convolutional
// Neural Networks", CVPR 2016, table 1; cuDNN's CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD[_NONFUSED]
// for 3x3 filters). Tensor-core precisions run implicit GEMM instead.
constexpr double kWinogradSaving = 2.25;

bool winograd(const Layer& l, Precision p) {
  return p == Precision::FP32 && l.kind == LayerKind::Conv2D && l.geom.kernel_h == 3 && l.geom.kernel_w == 3 &&
         l.geom.stride == 1 && l.geom.groups == 1;
}

// Memory format: tensor cores take channels-last (NHWC) data; with channels-first (NCHW)
// activations cuDNN transposes each convolution's input and output, a read and a write of both
// (NVIDIA Deep Learning Performance Guide, "Convolutional Layers User's Guide": Tensor Core
// tensor layouts). TensorFlow and NVIDIA's DeepLearningExamples run NHWC; PyTorch is NCHW unless
// channels_last is asked for (compute.memory_format).
// TF32 counts where the table gives it a rate above FP32 (A100, H100, A10, L40S; GeForce parts
// list TF32 at the FP32 rate, V100 and T4 have none).
bool tensor_cores(const Device& d, Precision p) {
  return d.tensor_cores && (p == Precision::Mixed || (p == Precision::TF32 && d.peak_tf32 > d.peak_fp32));
}

// Batch norm on channels-first FP16 activations: PyTorch's cudnn_batch_norm asks cuDNN for
// CUDNN_BATCHNORM_SPATIAL unless the input is channels-last (ATen native/cudnn/BatchNorm.cpp), and
// cuDNN ran it on an H100 as bn_fw_tr_1C11_kernel_NCHW and bn_bw_1C11_kernel_new: one thread block
// a channel (calibration/measured/h100-zoo-kernels.csv). Measured there, per pass over a channel's
// data: the 112x112 layers (ResNet-50's first, C = 64; MobileNetV2's four, C = 16 to 96: one wave)
// streamed 8.0 and 8.1 GB/s a block forward, 7.0 and 7.2 backward, 7.6 on average; ResNet-50's
// 28x28 layers (C = 128 to 512) took 2.46 ms backward as 18 waves of two blocks an SM would (2.38
// ms; one block an SM: 29 waves, 3.9 ms). A block's rate is its loads in flight over the memory's
// latency (Little's law), the same on any GPU running the same kernel, not a share of the chip's
// bandwidth. So a kernel of `bytes` over C channels takes ceil(C / (2 SMs)) x (bytes / C) / 7.6
// GB/s, when that is longer than the roofline's.
constexpr BytesPerSecond kBnChannelBlock_Bps = 7.6e9;
constexpr int kBnChannelBlocksPerSm = 2;
Seconds bn_channel_blocks_s(Bytes bytes, int channels, const Device& d) {
  const int sms = streaming_multiprocessors(d.name);
  if (sms <= 0 || channels <= 0) return 0;
  const double waves = std::ceil(double(channels) / (kBnChannelBlocksPerSm * sms));
  return waves * (bytes / channels) / kBnChannelBlock_Bps;
}


// Fused attention on FP32 inputs (precision fp32 or tf32) is PyTorch's memory-efficient kernel
// (FlashAttention takes FP16 and BF16 only), whose products on compute capability 8.0 and later
// run 3xTF32, three TF32 tensor-core products for each FP32 one, whatever allow_tf32 says
// (ATen mem_eff_attention/gemm_kernel_utils.h: DefaultGemmType<ArchTag, float> for
// kMinComputeCapability >= 80 is OpClassTensorOp with OpMultiplyAddFastF32), and plain FP32 on the
// CUDA cores before (OpClassSimt). On an H100 in TF32 ViT-B/16's attention kernels
// (fmha_cutlassF/B_f32..._sm80) took 31 ms of its 133 ms step (calibration/measured/h100-zoo-kernels.csv).
FlopsPerSecond fp32_fused_attention_peak(const Device& d) {
  return d.bf16 ? d.peak_tf32 / 3 : d.peak_fp32;  // bf16: Ampere and later (compute capability 8.0+)
}

OpRules op_rules(const ComputeTuning& t, Precision p, bool eager_inplace, bool input_grad) {
  OpRules r;
  r.per_kind_traffic = t.per_kind_traffic;
  r.fork_sums = t.fork_sums;
  r.fused_attention = t.fused_attention;
  r.softmax_fp32 = p == Precision::Mixed && t.autocast;  // attention's softmax under autocast
  r.eager_inplace = eager_inplace;
  r.input_grad = input_grad;
  return r;
}

// Recomputation (FrameworkSpec::recompute): each layer's forward kernels again in its backward.
void recompute_forwards(ComputeProfile& p) {
  for (LayerCost& c : p.layers) {
    c.bwd_s += c.fwd_s;
    c.bwd_kernels += c.fwd_kernels;
  }
}

// What a layer's cost holds besides its times.
LayerCost bare_cost(const Layer& l) {
  LayerCost c;
  c.grad_elems = double(l.params_trainable);
  c.grad_tensors = l.trainable_tensors();
  c.norm_channels = l.kind == LayerKind::BatchNorm ? l.out.c : 0;
  return c;
}

// One layer's kernels priced; each kernel's time goes to `each` where given.
// `ks`: room for the layer's kernel lists, reused from layer to layer.
LayerCost layer_cost(const Layer& l, const Device& d, Precision p, int batch, const ComputeTuning& t,
                     bool needs_input_gradient, const ActivationBytes& ab, bool eager_inplace, LayerOps& ks,
                     std::vector<KernelTime>* each = nullptr) {
  LayerCost c = bare_cost(l);
  layer_ops(l, op_rules(t, p, eager_inplace, needs_input_gradient), ab, ks);
  if (ks.fwd.empty() && ks.bwd.empty()) return c;
  const double act_bytes = p == Precision::Mixed ? 2.0 : 4.0;  // weights' copies, attention's scores
  const OpSizes sizes = op_sizes(l, batch, ab, act_bytes);
  const bool fp32_fused = l.kind == LayerKind::Attention && t.fused_attention && p != Precision::Mixed;
  const Roofline gemm{fp32_fused ? fp32_fused_attention_peak(d) : d.peak(p), d.mem_bw_Bps * t.memory_efficiency, t};
  const Roofline simt{d.peak_fp32, d.mem_bw_Bps * t.memory_efficiency, t};
  const Roofline& roof = is_gemm(l.kind) ? gemm : simt;
  const Flops flops = l.fwd_flops * batch / (t.winograd && winograd(l, p) ? kWinogradSaving : 1.0);
  // Channels-first activations: a tensor-core convolution transposes its input and output, around
  // each cuDNN kernel (not autograd's sums, ATen's kernels beside cuDNN, or autocast's casts).
  const Seconds transpose_s = t.nchw && tensor_cores(d, p) && l.kind == LayerKind::Conv2D
                                  ? roof.kernel_s(0, 2 * (sizes.in_bytes + sizes.out_bytes)) : 0;
  const auto transposed = [&](const Op& k) {
    return transpose_s > 0 && !k.fork_sum && !k.beside_cudnn && k.cast == OpCast::None;
  };
  // cuDNN's channels-first FP16 batch norm: a block a channel (bn_channel_blocks_s).
  const bool channel_blocks = l.kind == LayerKind::BatchNorm && t.nchw && p == Precision::Mixed &&
                              t.bn_channel_blocks && t.per_kind_traffic && !t.pointwise_fusion;
  const auto run = [&](const Op& k, bool backward) {
    const Seconds s = roof.kernel_s(flops * k.work, op_bytes(k, sizes));
    const Seconds blocks = channel_blocks && !k.fork_sum && k.cast == OpCast::None
                               ? bn_channel_blocks_s(op_activation_bytes(k, sizes), l.out.c, d) + t.kernel_overhead_s
                               : 0;
    const Seconds total = std::max(s, blocks) + (transposed(k) ? transpose_s : 0);
    if (each) each->push_back({k.name, backward, total, transposed(k) ? 2 : 1});
    return total;
  };
  for (const Op& k : ks.fwd) c.fwd_s += run(k, false), c.fwd_kernels += transposed(k) ? 2 : 1;
  for (const Op& k : ks.bwd) c.bwd_s += run(k, true), c.bwd_kernels += transposed(k) ? 2 : 1;
  return c;
}

}  // namespace

Seconds ComputeProfile::forward_s() const {
  Seconds s = 0;
  for (const auto& l : layers) s += l.fwd_s;
  return s;
}
Seconds ComputeProfile::backward_s() const {
  Seconds s = 0;
  for (const auto& l : layers) s += l.bwd_s;
  return s;
}
ComputeProfile::Passes ComputeProfile::passes() const {
  Passes p;
  for (const auto& l : layers) p.forward_s += l.fwd_s, p.backward_s += l.bwd_s;
  return p;
}
double ComputeProfile::gradient_elems() const {
  double n = 0;
  for (const auto& l : layers) n += l.grad_elems;
  return n;
}

namespace {
// compute.fusion = pointwise (cost/fusion.hpp): each chain of pointwise layers runs as one kernel
// each way, charged to its last layer (the others cost nothing). A fused kernel moves what the
// chain's own kernels moved, less the tensors they handed on to each other: forward a member's
// output is neither written nor read again, backward the gradient between two members likewise
// (what backward needs of the forward is recomputed from the chain's inputs, as both compilers do
// with pointwise work). The tail keeps autograd's sums where its output forks.
struct Traffic {
  double fwd_bytes = 0, bwd_bytes = 0, work = 0;
  bool fwd = false, bwd = false;  // whether the layer runs a kernel that way
};

Traffic eager_traffic(const Layer& l, const ComputeTuning& t, Precision p, int batch, const ActivationBytes& ab) {
  Traffic tr;
  const double in = double(l.in_elems) * batch * ab.in, out = double(l.out_elems) * batch * ab.out;
  const double mask = double(l.out_elems) * batch;
  const auto bytes = [&](const Op& k) { return k.in * in + k.out * out + k.mask * mask; };
  // Compilers functionalise in-place ops; autocast's casts are not the chain's own kernels.
  const LayerOps ks = layer_ops(l, op_rules(t, p, false, true), ab);
  double masks = 0;
  for (const Op& k : ks.fwd)
    if (k.cast == OpCast::None) tr.fwd_bytes += bytes(k), tr.work += k.work * l.fwd_flops * batch, tr.fwd = true;
  for (const Op& k : ks.bwd)
    if (!k.fork_sum && k.cast == OpCast::None) tr.bwd_bytes += bytes(k), tr.bwd = true, masks += k.mask * mask;
  // A layer of several operations (gelu_new) fused: its inputs read and its output written once
  // forward; backward the output's gradient and the inputs read, the inputs' gradient written.
  tr.fwd_bytes = std::min(tr.fwd_bytes, in + out + masks);
  tr.bwd_bytes = std::min(tr.bwd_bytes, out + 2 * in + masks);
  return tr;
}

void fuse_pointwise_chains(const Model& m, const Device& d, Precision p, int batch, const ComputeTuning& t,
                           const std::vector<ActivationBytes>& ab, std::size_t first_trainable,
                           ComputeProfile& prof) {
  const Roofline simt{d.peak_fp32, d.mem_bw_Bps * t.memory_efficiency, t};
  for (const std::vector<std::size_t>& chain : pointwise_chains(m)) {
    Traffic sum, before;
    for (std::size_t k = 0; k < chain.size(); ++k) {
      const std::size_t i = chain[k];
      const Traffic tr = eager_traffic(m.layers[i], t, p, batch, ab[i]);
      sum.fwd_bytes += tr.fwd_bytes, sum.bwd_bytes += tr.bwd_bytes, sum.work += tr.work;
      sum.fwd = sum.fwd || tr.fwd, sum.bwd = sum.bwd || tr.bwd;
      if (k > 0) {
        // The tensor handed on from the previous member: one write and one read each way saved,
        // where both ran a kernel that way.
        const std::size_t j = chain[k - 1];
        const double handed = 2 * double(m.layers[j].out_elems) * batch * ab[j].out;
        if (before.fwd && tr.fwd) sum.fwd_bytes -= handed;
        if (before.bwd && tr.bwd) sum.bwd_bytes -= handed;
      }
      before = tr;
      prof.layers[i].fwd_s = prof.layers[i].bwd_s = 0;
      prof.layers[i].fwd_kernels = prof.layers[i].bwd_kernels = 0;
    }
    const std::size_t tail = chain.back();
    LayerCost& c = prof.layers[tail];
    if (sum.fwd) c.fwd_s = simt.kernel_s(sum.work, std::max(0.0, sum.fwd_bytes)), c.fwd_kernels = 1;
    if (sum.bwd && chain.front() > first_trainable)
      c.bwd_s = simt.kernel_s(0, std::max(0.0, sum.bwd_bytes)), c.bwd_kernels = 1;
    const double y = double(m.layers[tail].out_elems) * batch * ab[tail].out;
    for (int i = 1; t.fork_sums && i < m.layers[tail].consumers; ++i)
      c.bwd_s += simt.kernel_s(0, 3 * y), ++c.bwd_kernels;
  }
}

// framework.zero_grad = zeros (FrameworkSpec::zeroes_gradients) on a profile: the update fills
// every gradient with zeros (4 bytes a parameter, zero_grad_launches kernels), and each layer's
// backward adds its new gradients into the zeroed ones (AccumulateGrad: read 8, write 4 bytes a
// parameter, a kernel a tensor: add_s[i] for layer i), so no micro-batch pays a separate accumulation.
// The fills' host time joins the update's (zero_grad's own loop); the adds' is inside the eager
// default per layer kernel (host_dispatch.hpp: measured on steps that zeroed), so they are not
// counted as layer kernels.
void zero_gradients(const Model& model, BytesPerSecond bw, const ComputeTuning& t, const FrameworkSpec& fw,
                    const std::vector<Seconds>& add_s, ComputeProfile& prof) {
  int tensors = 0;
  for (std::size_t i = 0; i < prof.layers.size() && i < model.layers.size() && i < add_s.size(); ++i) {
    tensors += prof.layers[i].grad_tensors;
    if (model.layers[i].params_trainable > 0) prof.layers[i].bwd_s += add_s[i];
  }
  const double params = double(model.params_trainable());
  const int fills = zero_grad_launches(fw, tensors, params);
  prof.optimizer_s += params * 4.0 / bw + fills * t.kernel_overhead_s;
  prof.optimizer_kernels += fills;
  prof.optimizer_host_s += zero_grad_host_s(fw, tensors);
  prof.accumulate_s = 0;
}

ComputeProfile roofline_profile(const Model& model, const Device& device, Precision precision, int batch,
                                const ComputeTuning& tuning, Optimizer optimizer, const FrameworkSpec& fw,
                                std::vector<LayerKernelTimes>* each = nullptr) {
  const FrameworkMode mode = fw.mode;
  ComputeProfile prof;
  int tensors = 0;
  bool needs_input_gradient = false;  // some earlier layer has trainable weights
  const std::vector<ActivationBytes> bytes = activation_bytes(model, precision, tuning.autocast);
  const bool eager_inplace = mode == FrameworkMode::Eager && !tuning.pointwise_fusion;
  std::size_t first_trainable = model.layers.size();
  prof.layers.reserve(model.layers.size());
  LayerOps ks;
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const Layer& l = model.layers[i];
    if (each) each->push_back({l.name, {}});
    prof.layers.push_back(layer_cost(l, device, precision, batch, tuning, needs_input_gradient, bytes[i],
                                     eager_inplace, ks, each ? &each->back().kernels : nullptr));
    tensors += prof.layers.back().grad_tensors;
    if (l.params_trainable > 0 && !needs_input_gradient) first_trainable = i;
    needs_input_gradient = needs_input_gradient || l.params_trainable > 0;
  }
  if (tuning.pointwise_fusion && tuning.per_kind_traffic)
    fuse_pointwise_chains(model, device, precision, batch, tuning, bytes, first_trainable, prof);
  if (fw.recompute) recompute_forwards(prof);
  // The optimizer on FP32 master weights, its memory traffic and kernels per trainable tensor as the
  // framework runs them (cost/framework_costs.hpp optimizer_traffic_bytes, optimizer_launches).
  // Accumulation: read two, write one, one kernel per tensor (autograd's AccumulateGrad; a graph's
  // AssignAdd per variable).
  const double params = double(model.params_trainable());
  const BytesPerSecond bw = device.mem_bw_Bps * tuning.memory_efficiency;
  prof.optimizer_kernels = optimizer_launches(optimizer, fw, tensors, params);
  prof.optimizer_host_s = optimizer_host_s(optimizer, fw, tensors);
  prof.optimizer_s =
      params * optimizer_traffic_bytes(optimizer, fw) / bw + prof.optimizer_kernels * tuning.kernel_overhead_s;
  prof.accumulate_s = params * 12.0 / bw + tensors * tuning.kernel_overhead_s;
  if (fw.zeroes_gradients) {
    std::vector<Seconds> add_s;  // AccumulateGrad's add, each layer's parameters and tensors
    for (std::size_t i = 0; i < prof.layers.size(); ++i)
      add_s.push_back(model.layers[i].params_trainable * 12.0 / bw + prof.layers[i].grad_tensors * tuning.kernel_overhead_s);
    zero_gradients(model, bw, tuning, fw, add_s, prof);
  }
  return prof;
}

Seconds device_step_s(const ComputeProfile& p) { return p.forward_s() + p.backward_s() + p.optimizer_s; }
}  // namespace

namespace {
// Tier 1: per-layer times measured on the device (calibration/calibration.hpp: batch rule there).
ComputeProfile calibrated_profile(const Model& model, Precision precision, int batch, const ComputeTuning& t,
                                  Optimizer optimizer, std::vector<Seconds>& accum_s) {
  const Calibration& cal = *t.calibration;
  check_calibration_matches(cal, model, precision, t.calibration_origin);
  ComputeProfile prof;
  for (const auto& l : model.layers) {
    const LayerTiming at = layer_timing_at(cal, l.name, batch, t.calibration_origin);
    LayerCost c = bare_cost(l);
    c.fwd_s = at.fwd_s;
    c.bwd_s = at.bwd_s;
    prof.layers.push_back(c);
    // Calibration times SGD with momentum; another optimizer scales by its memory traffic.
    prof.optimizer_s += at.update_s * optimizer_update_bytes(optimizer) / optimizer_update_bytes(Optimizer::Momentum);
    prof.accumulate_s += at.accum_s;
    accum_s.push_back(at.accum_s);
  }
  return prof;
}

}  // namespace

Seconds host_kernel_s(const ComputeTuning& t, const FrameworkSpec& fw) {
  if (t.host_kernel_s >= 0) return t.host_kernel_s;
  return fw.mode == FrameworkMode::Eager && !t.cpu_ranks() ? kEagerHostKernel_s : 0;
}

namespace {

// The host's times: a given step's spread evenly over its kernels, or a kernel's time for each
// layer kernel and the optimizer's own for the update.
HostTimes host_times(const ComputeTuning& t, const FrameworkSpec& fw, const ComputeProfile& p, Precision precision) {
  // Eager mixed precision under autocast scales its loss with a GradScaler, which synchronises.
  const bool grad_scaler = fw.mode == FrameworkMode::Eager && precision == Precision::Mixed && t.autocast;
  if (t.host_step_s > 0) {
    const Seconds each = t.host_step_s / std::max(1, step_kernels(p));
    return {each, each * p.optimizer_kernels, grad_scaler};
  }
  return {host_kernel_s(t, fw), p.optimizer_host_s, grad_scaler};
}

// A calibration of one batch asked at another: each layer's measured time (calibrated_profile
// scaled it by the batch ratio, layer_timing_at's rule for one batch) follows the roofline's shape
// instead, t(b) = t(b1) x roofline(b) / roofline(b1), so that its fixed launch costs and the small
// kernels' lower efficiency carry over; a layer the roofline prices at nothing keeps the ratio.
void follow_roofline_shape(ComputeProfile& prof, const ComputeProfile& at, const ComputeProfile& measured_at,
                           double batch_ratio) {
  const auto shape = [&](Seconds roof_b, Seconds roof_b1) { return roof_b1 > 0 ? roof_b / roof_b1 / batch_ratio : 1.0; };
  for (std::size_t i = 0; i < prof.layers.size() && i < at.layers.size(); ++i) {
    prof.layers[i].fwd_s *= shape(at.layers[i].fwd_s, measured_at.layers[i].fwd_s);
    prof.layers[i].bwd_s *= shape(at.layers[i].bwd_s, measured_at.layers[i].bwd_s);
  }
}

// The roofline's kernel counts on a calibrated profile (the host floor spreads its time over them).
void copy_kernel_counts(const ComputeProfile& from, ComputeProfile& to) {
  for (std::size_t i = 0; i < to.layers.size() && i < from.layers.size(); ++i) {
    to.layers[i].fwd_kernels = from.layers[i].fwd_kernels;
    to.layers[i].bwd_kernels = from.layers[i].bwd_kernels;
  }
  to.optimizer_kernels = from.optimizer_kernels;
  to.optimizer_host_s = from.optimizer_host_s;
}
}  // namespace

ComputeProfile compute_profile(const Model& model, const Device& device, Precision precision,
                               int batch, const ComputeTuning& tuning, Optimizer optimizer, const FrameworkSpec& fw) {
  const Seconds overhead = step_overhead_s(fw);
  if (tuning.calibration) {
    std::vector<Seconds> accum_s;  // each layer's measured accumulation
    ComputeProfile prof = calibrated_profile(model, precision, batch, tuning, optimizer, accum_s);
    if (fw.recompute) recompute_forwards(prof);
    const std::vector<int> measured = tuning.calibration->batches();
    if (measured.size() == 1 && measured.front() != batch) {
      FrameworkSpec layers_alone = fw;  // the layers' own work follows the batch; zeroing does not
      layers_alone.zeroes_gradients = false;
      follow_roofline_shape(prof, roofline_profile(model, device, precision, batch, tuning, optimizer, layers_alone),
                            roofline_profile(model, device, precision, measured.front(), tuning, optimizer, layers_alone),
                            double(batch) / measured.front());
      prof.extrapolated_from_batch = measured.front();
    }
    if (fw.zeroes_gradients)  // the harness's accumulation kernel is the add into zeroed gradients
      zero_gradients(model, device.mem_bw_Bps * tuning.memory_efficiency, tuning, fw, accum_s, prof);
    if (tuning.host_step_s > 0 || host_kernel_s(tuning, fw) > 0) {
      copy_kernel_counts(roofline_profile(model, device, precision, batch, tuning, optimizer, fw), prof);
      apply_host_floor(prof, host_times(tuning, fw, prof, precision));
    }
    prof.step_overhead_s = overhead;
    return prof;
  }
  // The host's floor comes before a measured throughput's scale, which then covers it too.
  const auto profile_at = [&](int b) {
    ComputeProfile p = roofline_profile(model, device, precision, b, tuning, optimizer, fw);
    apply_host_floor(p, host_times(tuning, fw, p, precision));
    return p;
  };
  ComputeProfile prof = profile_at(batch);
  prof.step_overhead_s = overhead;
  if (tuning.measured_samples_per_s <= 0) return prof;
  // The same profile when the throughput was measured at the scenario's batch (a fit predicts it
  // thousands of times).
  const Seconds measured_device_s =
      device_step_s(tuning.measured_batch == batch ? prof : profile_at(tuning.measured_batch));
  const Seconds measured_step_s = tuning.measured_batch / tuning.measured_samples_per_s;
  if (measured_step_s <= overhead)
    throw InputError("compute.throughput: the measured step (" + format_number(measured_step_s * 1e6) +
                     " us) is not longer than the framework's per-step overhead (framework.step_overhead_us = " +
                     format_number(overhead * 1e6) + " us); expected a throughput of one GPU");
  const double scale = (measured_step_s - overhead) / measured_device_s;
  prof.scale_by(scale);
  prof.scale = scale;
  return prof;
}

void ComputeProfile::scale_by(double f) {
  for (auto& l : layers) {
    l.fwd_s *= f;
    l.bwd_s *= f;
  }
  optimizer_s *= f;
  accumulate_s *= f;
}

std::vector<LayerKernelTimes> roofline_kernel_times(const Model& model, const Device& device, Precision precision,
                                                    int batch, const ComputeTuning& tuning, const FrameworkSpec& fw) {
  std::vector<LayerKernelTimes> each;
  roofline_profile(model, device, precision, batch, tuning, Optimizer::Momentum, fw, &each);
  return each;
}

double host_contention(const ComputeTuning& t, int ranks_per_node) {
  if (!t.cpu_ranks() || t.node_cores <= 0) return 1;
  // Relative to the lone rank that was calibrated (itself slowed if it had more threads than cores).
  const auto share = [&](int ranks) { return std::max(1.0, double(ranks) * t.threads_per_rank / t.node_cores); };
  return share(ranks_per_node) / share(1);
}

}  // namespace cost_layer
}  // namespace ddlsim
