#include "cost/compute.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"
#include "cost/autocast.hpp"
#include "cost/framework_costs.hpp"
#include "cost/fusion.hpp"
#include "cost/host_dispatch.hpp"

namespace ddlsim {
inline namespace cost_layer {

namespace {

// Attention's matrix products run on the tensor cores, as GEMMs do.
bool is_gemm(LayerKind k) { return k == LayerKind::Conv2D || k == LayerKind::Dense || k == LayerKind::Attention; }
bool is_free(LayerKind k) { return k == LayerKind::Input || k == LayerKind::Reshape; }

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

// One kernel's traffic and work: elements read and written per sample, in units of the layer's
// input (all inputs) and output, and its share of the layer's operations.
struct Kernel {
  double in = 0, out = 0;  // passes over the input and the output
  double work = 0;         // share of the layer's forward operations
  bool weights = false;    // reads (or, computing their gradient, writes) the layer's weights
  bool weight_grad = false;  // a backward kernel that computes the weights' gradient
  bool fork_sum = false;     // autograd's sum of the output's gradients (no cuDNN transposes)
  double inner = 0;          // passes over the layer's inner tensor (attention's scores)
  double mask = 0;           // passes over a dropout's one-byte mask (of the output's, or the scores', size)
  bool beside_cudnn = false; // an ATen kernel around a convolution's cuDNN call (no cuDNN transposes)
};
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

// A kernel of attention: passes over its input (packed q, k, v), output and scores, and its work.
Kernel attn(double in, double out, double inner, double work, double mask = 0) {
  return {in, out, work, false, false, false, inner, mask};
}
struct Kernels {
  std::vector<Kernel> fwd, bwd;
};

// A biased convolution or dense layer in eager PyTorch (ATen Convolution.cpp: cuDNN's convolution
// is called without the bias and `output.add_(reshape_bias(...))` follows; convolution_backward and
// addmm's backward sum grad_output over all but the channel dimension, a reduce_kernel; linear's
// forward adds the bias in cuBLAS's epilogue). Counted on an H100 (calibration/measured/
// h100-zoo-kernels.csv): VGG-16 ran 13 such adds (its convolutions) and 16 sums (and its 3 dense
// layers), ConvNeXt-T 58 sums (18 blocks x (depthwise + 2 linear) + 4 downsampling convolutions),
// ViT-B/16 50 (12 blocks x 4 linear + patch embedding + head). TensorFlow's BiasAdd and
// BiasAddGrad are the same two kernels.
Kernel bias_add() { return {0, 2, 0, false, false, false, 0, 0, true}; }
Kernel bias_sum() { return {0, 1, 0, false, true, false, 0, 0, true}; }

// The kernels a framework runs for a layer in training (compute.op_traffic = kernels), after
// PyTorch's ATen CUDA kernels (TensorFlow and cuDNN follow the same passes):
// * convolution, dense, depthwise: forward x -> y; backward the data gradient dy -> dx and the
//   weight gradient (x, dy) -> dW, each with the forward's operations (cuDNN's BackwardData and
//   BackwardFilter); with a bias, bias_add and bias_sum above (ATen's own NCHW depthwise kernel
//   adds its bias inside, which is not told apart);
// * batch norm (Normalization.cuh): forward batch_norm_collect_statistics reads x, then
//   batch_norm_transform_input reads x and writes y; backward batch_norm_backward_reduce reads x
//   and dy, batch_norm_backward_elemt reads x and dy and writes dx;
// * activation: forward reads x, writes y; backward reads dy and the saved x (or y), writes dx
//   (gelu_new: the operations Hugging Face writes it with, gelu_new_kernels);
// * add: forward reads every input, writes y; backward hands dy to each branch unchanged;
// * multiply by a per-channel scale (squeeze-excite): forward reads x and s, writes y; backward
//   dx = dy s (reads dy, writes dx) and ds = sum over pixels of dy x (reads dy and x);
// * pooling, concatenation: forward reads the inputs, writes y; backward reads dy, writes dx;
// * preprocessing normalisation: forward only (its input needs no gradient);
// * a layer whose output k > 1 layers read (a residual block's input, an Inception block's, a
//   DenseNet concatenation, a squeeze-excite block's activation) gets its k gradients summed in
//   backward: autograd accumulates each after the first into the buffer (torch/csrc/autograd
//   InputBuffer::accumulate), k - 1 kernels each reading two and writing one of its output's size.
// * a learned tensor added to the input (ViT's position embedding): forward as add; backward
//   its gradient, the sum of dy over the batch (reads dy);
// * layer norm (ATen layer_norm_kernel.cu): forward one kernel reads x, writes y (the statistics
//   stay in registers); backward layer_norm_grad_input reads x and dy, writes dx, and the
//   gamma/beta gradient kernel reads x and dy;
// * embedding (ATen Embedding.cu): forward a gather reads the ids and the rows, writes y; backward
//   embedding_dense_backward sorts the ids (a pass over them) and sums dy's rows into the zeroed
//   table gradient (reads dy, writes the whole table);
// * dropout of rate > 0 (ATen Dropout.cu): forward reads x, writes y and a one-byte mask;
//   backward reads dy and the mask, writes dx; stochastic depth (torchvision's StochasticDepth):
//   forward draws one value a sample (two launches) and multiplies (reads x, writes y), backward
//   multiplies the gradient (reads dy, writes dx);
// * attention: attention_kernels below;
// compute.op_traffic = kernels_add_fork is the previous round's rule (no sums at forks but one at
// every add: reads two, writes one of the add's output); uniform is the earlier rule: every kernel
// reads its input and writes its output once, backward is two such kernels for layers with
// weights and 1.5 passes else.
// Attention over packed q, k, v (the input: 3 D a token), output D a token, scores H T^2 (inner),
// as PyTorch's F.multi_head_attention_forward runs it in training (torchvision's ViT calls it):
// the packed projection is made contiguous per head (a copy of the input) and the heads' outputs
// merged back (a copy of the output), forward and backward. Between them:
// * fused (PyTorch 2's scaled_dot_product_attention: FlashAttention, Dao 2022 and 2023, or the
//   memory-efficient kernel): forward one kernel reads q, k, v and writes the output; backward a
//   preprocessing kernel (rowsum of dO o O: reads both) and one kernel that recomputes the scores
//   and runs five matrix products where forward ran two (work 2.5), reading q, k, v and dO and
//   writing dq, dk, dv;
// * math (PyTorch 1.x _scaled_dot_product_attention, Keras): q scaled by 1/sqrt(d) (reads and
//   writes q; timm and Hugging Face scale the scores instead, Layer::scale_scores, and Hugging
//   Face's BERT adds its attention mask to them, Layer::additive_mask: a pass over the scores
//   each), scores = q k^T, softmax, output = scores v; backward the two products' four
//   gradients, the softmax's (reads probabilities and their gradient, writes the scores'), the
//   scaling's. Under autocast (mixed precision) softmax runs in FP32 (PyTorch's autocast op list): it reads
//   FP16 scores and writes FP32 probabilities, which are cast back to FP16 for the product, and the
//   gradients go the same way back; passes count FP16 elements (an FP32 one is two).
// Causal attention (GPT): the fused kernels skip the blocks above the diagonal (half the work);
// math computes every score and masks them (a read and a write of the scores), and backward masks
// their gradient likewise (the gradient of Hugging Face's torch.where and of nanoGPT's masked_fill:
// where(mask, dy, 0), a read and a write). Dropout on the
// probabilities (BERT, GPT-2): the fused kernels apply it in place (FlashAttention regenerates the
// mask in backward); math runs ATen's fused_dropout (reads P, writes P' and a one-byte mask) and
// backward masked_scale (reads the gradient and the mask, writes the gradient).
// Windowed attention (Swin) adds to the scores a relative-position bias gathered from its table
// and, in shifted windows, a mask: math runs each add as a pass over the scores (reads and writes
// them) and sums the scores' gradient over the batch into the bias's (reads them); the fused
// kernels take the bias as an additive mask the size of the scores (read forward; backward writes
// its gradient, which a reduction reads).
Kernel bias_gradient(double inner) { return {0, 0, 0, false, true, false, inner}; }

Kernels attention_kernels(const Layer& l, bool fused, bool mixed) {
  const Kernel split = attn(2, 0, 0, 0), merge = attn(0, 2, 0, 0);
  const double half = l.causal ? 0.5 : 1;
  const bool bias = l.params_trainable > 0;
  if (fused) {
    const double mask = bias || l.shifted ? 1 : 0;
    Kernels ks{{split, attn(1, 1, mask, half), merge}, {merge, attn(0, 2, 0, 0), attn(2, 1, 0, 2.5 * half), split}};
    if (bias) ks.bwd.insert(ks.bwd.end(), {attn(0, 0, 1, 0), bias_gradient(1)});
    return ks;
  }
  const double attended = l.window > 0 ? l.window : l.in.h;
  const double gemm_flops = 4.0 * double(l.in.h) * attended * l.out.c;
  const double g = l.fwd_flops > 0 ? gemm_flops / l.fwd_flops / 2 : 0.5;  // share of one product
  const double softmax_work = 1 - 2 * g;
  // q scaled (PyTorch, Keras), or the scores (timm, Hugging Face); Hugging Face's BERT adds its mask.
  const Kernel scale = l.scale_scores ? attn(0, 0, 2, 0) : attn(2.0 / 3, 0, 0, 0);
  Kernels ks;
  ks.fwd = {split};
  if (!l.scale_scores) ks.fwd.push_back(scale);
  ks.fwd.push_back(attn(2.0 / 3, 0, 1, g));
  if (l.scale_scores) ks.fwd.push_back(scale);
  if (l.additive_mask) ks.fwd.push_back(attn(0, 0, 2, 0));
  if (l.causal) ks.fwd.push_back(attn(0, 0, 2, 0));
  if (bias) ks.fwd.push_back(attn(0, 0, 2, 0));
  if (l.shifted) ks.fwd.push_back(attn(0, 0, 2, 0));
  if (mixed) ks.fwd.insert(ks.fwd.end(), {attn(0, 0, 3, softmax_work), attn(0, 0, 3, 0)});
  else ks.fwd.push_back(attn(0, 0, 2, softmax_work));
  if (l.dropout > 0) ks.fwd.push_back(attn(0, 0, 2, 0, 1));
  ks.fwd.insert(ks.fwd.end(), {attn(1.0 / 3, 1, 1, g), merge});
  ks.bwd = {merge, attn(1.0 / 3, 1, 1, g), attn(1.0 / 3, 1, 1, g)};
  if (l.dropout > 0) ks.bwd.push_back(attn(0, 0, 2, 0, 1));
  if (l.causal) ks.bwd.push_back(attn(0, 0, 2, 0));  // the mask's gradient: where(mask, dy, 0)
  if (mixed) ks.bwd.insert(ks.bwd.end(), {attn(0, 0, 3, 0), attn(0, 0, 6, softmax_work), attn(0, 0, 3, 0)});
  else ks.bwd.push_back(attn(0, 0, 3, softmax_work));
  if (bias) ks.bwd.push_back(bias_gradient(1));
  ks.bwd.insert(ks.bwd.end(), {attn(2.0 / 3, 0, 1, g), attn(2.0 / 3, 0, 1, g), scale, split});
  return ks;
}

// Hugging Face's gelu_new (transformers/activations.py NewGELUActivation, GPT-2's activation), the
// tanh approximation written as eight PyTorch operations: 0.5 x, x^3, 0.044715 x^3, x + that,
// sqrt(2/pi) times it, tanh, 1 + tanh, the product (the first and the last read two tensors).
// Backward, autograd's eleven: the product's two gradients, tanh's, the two scalings', pow's three
// (x^2, times 3, times the gradient), 0.5's, and two sums of x's three gradients.
// Under autocast with an FP16 input (the linear layer before it), `pow` is on autocast's FP32 list
// (torch.amp "Autocast Op Reference", CUDA ops that autocast to float32): x is cast to FP32 first,
// and type promotion carries FP32 through x + 0.044715 x^3 and every operation after it, so the
// output is FP32 (cost/autocast.cpp). Passes: `in` an FP16 tensor of x's size, `out` an FP32 one.
// Forward nine kernels: 0.5 x (FP16 in and out), the cast, pow, the scaling, the add (reads x and
// an FP32 tensor), the scaling, tanh, 1 + tanh, the product (reads 0.5 x and an FP32 tensor).
// Backward fourteen: the product's gradient to 0.5 x computed in FP32 and cast back to its FP16
// type (autograd casts a gradient to its input's type: engine.cpp validate_outputs), to the FP32
// factor; tanh's; the scaling's; the add's gradient to x cast to FP16; the scaling's; pow's three
// and the cast's gradient back to FP16; 0.5's (FP16); the two FP16 sums of x's three gradients.
Kernels gelu_new_kernels(bool autocast_half_input) {
  const double w = 1.0 / 8;
  if (autocast_half_input)
    return {{{2, 0, w}, {1, 1, 0}, {0, 2, w}, {0, 2, w}, {1, 2, w}, {0, 2, w}, {0, 2, w}, {0, 2, w}, {1, 2, w}},
            {{0, 3, 0}, {1, 1, 0}, {1, 2, 0}, {0, 3, 0}, {0, 2, 0}, {1, 1, 0}, {0, 2, 0}, {0, 2, 0}, {0, 2, 0},
             {0, 3, 0}, {1, 1, 0}, {2, 0, 0}, {3, 0, 0}, {3, 0, 0}}};
  return {{{1, 1, w}, {1, 1, w}, {1, 1, w}, {2, 1, w}, {1, 1, w}, {1, 1, w}, {1, 1, w}, {2, 1, w}},
          {{2, 1, 0}, {2, 1, 0}, {2, 1, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}, {2, 1, 0}, {1, 1, 0},
           {2, 1, 0}, {2, 1, 0}}};
}

// Whether a layer's kernels read an FP16 input and write an FP32 output under autocast (gelu_new's
// promoted operations, above).
bool promotes_to_float(const ActivationBytes& ab) { return ab.in == 2 && ab.out == 4; }

// PyTorch's autograd and an in-place activation whose derivative reads its input
// (Layer::inplace_copies_input): the in-place kernel first saves a copy of the input for backward
// (its generated VariableType kernel clones `self`), one more kernel reading x and writing the copy.
// Seen with torch 1.13's profiler on this machine (calibration/torch/op_census.py): EfficientNet-B0
// 49 copies under silu_, MobileNetV2 35 under hardtanh_, MobileNetV3-Large 21 under hardswish_,
// ResNet-50 none. Eager PyTorch only: a graph framework runs no in-place ops, and compilers
// (compute.fusion = pointwise) functionalise them.
Kernels per_kind_kernels(const Layer& l, bool fork_sums, bool promoted, bool inplace_copy) {
  const double x_over_in = l.in_elems > 0 ? double(l.in.elems()) / double(l.in_elems) : 1;
  switch (l.kind) {
    case LayerKind::Conv2D:
    case LayerKind::Dense:
    case LayerKind::DepthwiseConv2D: {
      Kernels ks{{{1, 1, 1, true}}, {{1, 1, 1, true}, {1, 1, 1, true, true}}};
      if (l.trainable_tensors() < 2 || l.bias_in_params_only) return ks;
      // A bias (bias_add, bias_sum): a dense layer's GEMM adds it in its epilogue.
      if (l.kind != LayerKind::Dense) ks.fwd.push_back(bias_add());
      ks.bwd.push_back(bias_sum());
      return ks;
    }
    case LayerKind::BatchNorm:
      return {{{1, 0, 0.5}, {1, 1, 0.5, true}}, {{1, 1, 0.5, true, true}, {2, 1, 0.5, true}}};
    case LayerKind::Activation:
      if (l.fn == "gelu_new") return gelu_new_kernels(promoted);
      if (inplace_copy) return {{{1, 1, 0}, {1, 1, 1}}, {{2, 1, 1}}};
      return {{{1, 1, 1}}, {{2, 1, 1}}};
    case LayerKind::Add: {
      Kernels ks{{{1, 1, 1, l.params_trainable > 0}}, {}};
      if (!fork_sums) ks.bwd.push_back({0, 3, 1});
      if (l.params_trainable > 0) ks.bwd.push_back({0, 1, 0, true, true});
      return ks;
    }
    case LayerKind::LayerNorm:
      return {{{1, 1, 1, true}}, {{2, 1, 0.5, true}, {1, 1, 0.5, true, true}}};
    case LayerKind::Attention:  // attention_kernels, which needs the tuning
      return {};
    case LayerKind::Embedding:
      return {{{1, 2, 0}}, {{1, 0, 0, false, true}, {0, 1, 0, true, true}}};  // ids need no gradient
    case LayerKind::Dropout:  // fused_dropout: x in, y and the mask out; masked_scale: dy, mask in, dx out
      // Stochastic depth: a draw per sample (bernoulli_, div_: launches on N values), y = x noise;
      // backward dx = dy noise.
      if (l.per_sample) return {{{0, 0, 0}, {0, 0, 0}, {1, 1, 0}}, {{1, 1, 0}}};
      return {{{1, 1, 0, false, false, false, 0, 1}}, {{1, 1, 0, false, false, false, 0, 1}}};
    case LayerKind::Multiply:
      return {{{1, 1, 1}}, {{1, 1, 0.5}, {x_over_in, 1, 0.5}}};
    case LayerKind::Pool:
    case LayerKind::Concat:
    case LayerKind::Permute:
      return {{{1, 1, 1}}, {{1, 1, 1}}};
    case LayerKind::Normalization:
      return {{{1, 1, 1, true}}, {}};
    case LayerKind::Input:
      return {};
    case LayerKind::Reshape: {
      // A view; a crop (Layer::slice_grads) is copied forward where it drops anything
      // (.contiguous()), and backward each sliced dimension's slice_backward zero-fills the input's
      // size and copies the gradient into it (read and write of the output's size).
      // A permuted view whose gradient is reshaped (Layer::grad_copy): one copy backward.
      Kernels ks;
      if (l.grad_copy) ks.bwd.push_back({1, 1, 0});
      if (l.slice_grads == 0) return ks;
      if (l.in_elems != l.out_elems) ks.fwd.push_back({0, 2, 0});
      for (int i = 0; i < l.slice_grads; ++i) ks.bwd.insert(ks.bwd.end(), {{1, 0, 0}, {0, 2, 0}});
      return ks;
    }
  }
  return {};
}

// The kernels of one layer under the tuning's traffic rule.
// eager_inplace: PyTorch eager, whose in-place activations copy their input first.
Kernels layer_kernels(const Layer& l, const ComputeTuning& t, Precision p, const ActivationBytes& ab,
                      bool eager_inplace) {
  if (t.per_kind_traffic) {
    // Attention's softmax runs in FP32 only under autocast (cost/autocast.hpp).
    Kernels ks = l.kind == LayerKind::Attention
                     ? attention_kernels(l, t.fused_attention, p == Precision::Mixed && t.autocast)
                     : per_kind_kernels(l, t.fork_sums, promotes_to_float(ab), eager_inplace && l.inplace_copies_input());
    for (int i = 1; t.fork_sums && i < l.consumers; ++i) ks.bwd.push_back({0, 3, 0, false, false, true});
    return ks;
  }
  if (l.params_trainable > 0) return {{{1, 1, 1, true}}, {{1, 1, 1, true}, {1, 1, 1, true, true}}};
  return {{{1, 1, 1, true}}, {{1.5, 1.5, 1}}};
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

LayerCost layer_cost(const Layer& l, const Device& d, Precision p, int batch, const ComputeTuning& t,
                     bool needs_input_gradient, const ActivationBytes& ab, bool eager_inplace) {
  LayerCost c;
  c.grad_elems = double(l.params_trainable);
  c.grad_tensors = l.trainable_tensors();
  // A free layer (a reshape, a dropout of rate 0) passes its input on as its output; when that output
  // forks, autograd still sums its gradients (layer_kernels' fork sums, charged below).
  // A crop's slice gradients and a permuted view's gradient copy are per-kind kernels (uniform
  // traffic keeps them free, the earlier rule).
  const bool view_kernels = (l.slice_grads > 0 || l.grad_copy) && t.per_kind_traffic;
  if (is_free(l.kind) && !view_kernels &&
      (l.kind == LayerKind::Input || l.consumers < 2 || !t.fork_sums || !t.per_kind_traffic))
    return c;
  const double act_bytes = p == Precision::Mixed ? 2.0 : 4.0;  // weights' copies, attention's scores
  const bool fp32_fused = l.kind == LayerKind::Attention && t.fused_attention && p != Precision::Mixed;
  const Roofline gemm{fp32_fused ? fp32_fused_attention_peak(d) : d.peak(p), d.mem_bw_Bps * t.memory_efficiency, t};
  const Roofline simt{d.peak_fp32, d.mem_bw_Bps * t.memory_efficiency, t};
  const Roofline& roof = is_gemm(l.kind) ? gemm : simt;
  const Flops flops = l.fwd_flops * batch / (t.winograd && winograd(l, p) ? kWinogradSaving : 1.0);
  const double in_bytes = double(l.in_elems) * batch * ab.in;
  const double out_bytes = double(l.out_elems) * batch * ab.out;
  const double inner_bytes = double(l.inner_elems) * batch * act_bytes;
  const double mask_bytes = double(l.kind == LayerKind::Attention ? l.inner_elems : l.out_elems) * batch;
  const Bytes weights = double(l.params()) * act_bytes;
  // Channels-first activations: a tensor-core convolution transposes its input and output.
  const Seconds transpose_s = t.nchw && tensor_cores(d, p) && l.kind == LayerKind::Conv2D
                                  ? roof.kernel_s(0, 2 * (in_bytes + out_bytes)) : 0;
  // cuDNN's channels-first FP16 batch norm: a block a channel (bn_channel_blocks_s).
  const bool channel_blocks = l.kind == LayerKind::BatchNorm && t.nchw && p == Precision::Mixed &&
                              t.bn_channel_blocks && t.per_kind_traffic && !t.pointwise_fusion;
  const auto run = [&](const Kernel& k) {
    const Bytes bytes = k.in * in_bytes + k.out * out_bytes + k.inner * inner_bytes + k.mask * mask_bytes +
                        (k.weights ? weights : 0);
    const Seconds s = roof.kernel_s(flops * k.work, bytes);
    const Bytes activations = bytes - (k.weights ? weights : 0);
    const Seconds blocks =
        channel_blocks && !k.fork_sum ? bn_channel_blocks_s(activations, l.out.c, d) + t.kernel_overhead_s : 0;
    return std::max(s, blocks) + (k.fork_sum || k.beside_cudnn ? 0 : transpose_s);
  };
  const auto launches = [&](const Kernel& k) {
    return 1 + (transpose_s > 0 && !k.fork_sum && !k.beside_cudnn ? 1 : 0);
  };
  const Kernels ks = layer_kernels(l, t, p, ab, eager_inplace);
  for (const Kernel& k : ks.fwd) c.fwd_s += run(k), c.fwd_kernels += launches(k);
  // No layer before the first one with trainable weights needs a gradient; that layer computes
  // only its weights' gradient (autograd skips inputs that do not require one).
  const bool weights_only = t.per_kind_traffic && !needs_input_gradient;
  for (const Kernel& k : ks.bwd)
    if (!weights_only || (k.weight_grad && l.params_trainable > 0)) c.bwd_s += run(k), c.bwd_kernels += launches(k);
  // Autocast's cast of the input (cost/autocast.hpp), and of its gradient back; of the weights
  // (4 bytes read, 2 written an element), and of their gradient back.
  if (ab.cast_from > 0) {
    const Seconds cast = roof.kernel_s(0, double(l.in_elems) * batch * (ab.cast_from + ab.in));
    c.fwd_s += cast, ++c.fwd_kernels;
    if (!weights_only) c.bwd_s += cast, ++c.bwd_kernels;
  }
  if (ab.cast_weights > 0) {
    const Seconds cast = roof.kernel_s(0, ab.cast_weights * 6);
    c.fwd_s += cast, ++c.fwd_kernels;
    c.bwd_s += cast, ++c.bwd_kernels;
  }
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
  const auto bytes = [&](const Kernel& k) { return k.in * in + k.out * out + k.mask * mask; };
  const Kernels ks = layer_kernels(l, t, p, ab, false);  // compilers functionalise in-place ops
  double masks = 0;
  for (const Kernel& k : ks.fwd) tr.fwd_bytes += bytes(k), tr.work += k.work * l.fwd_flops * batch, tr.fwd = true;
  for (const Kernel& k : ks.bwd)
    if (!k.fork_sum) tr.bwd_bytes += bytes(k), tr.bwd = true, masks += k.mask * mask;
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

ComputeProfile roofline_profile(const Model& model, const Device& device, Precision precision,
                                int batch, const ComputeTuning& tuning, Optimizer optimizer, const FrameworkSpec& fw) {
  const FrameworkMode mode = fw.mode;
  ComputeProfile prof;
  int tensors = 0;
  bool needs_input_gradient = false;  // some earlier layer has trainable weights
  const std::vector<ActivationBytes> bytes = activation_bytes(model, precision, tuning.autocast);
  const bool eager_inplace = mode == FrameworkMode::Eager && !tuning.pointwise_fusion;
  std::size_t first_trainable = model.layers.size();
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const Layer& l = model.layers[i];
    prof.layers.push_back(layer_cost(l, device, precision, batch, tuning, needs_input_gradient, bytes[i],
                                     eager_inplace));
    tensors += prof.layers.back().grad_tensors;
    if (l.params_trainable > 0 && !needs_input_gradient) first_trainable = i;
    needs_input_gradient = needs_input_gradient || l.params_trainable > 0;
  }
  if (tuning.pointwise_fusion && tuning.per_kind_traffic)
    fuse_pointwise_chains(model, device, precision, batch, tuning, bytes, first_trainable, prof);
  // The optimizer on FP32 master weights (spec/optimizer.hpp: 20 bytes a parameter for SGD with
  // momentum), its kernels per trainable tensor as the framework runs them (cost/framework_costs.hpp).
  // Accumulation: read two, write one, one kernel per tensor (autograd's AccumulateGrad; a graph's
  // AssignAdd per variable).
  const double params = double(model.params_trainable());
  const BytesPerSecond bw = device.mem_bw_Bps * tuning.memory_efficiency;
  prof.optimizer_kernels = optimizer_launches(optimizer, fw, tensors, params);
  prof.optimizer_host_s = optimizer_host_s(optimizer, fw, tensors);
  prof.optimizer_s =
      params * optimizer_update_bytes(optimizer) / bw + prof.optimizer_kernels * tuning.kernel_overhead_s;
  prof.accumulate_s = params * 12.0 / bw + tensors * tuning.kernel_overhead_s;
  return prof;
}

Seconds device_step_s(const ComputeProfile& p) { return p.forward_s() + p.backward_s() + p.optimizer_s; }
}  // namespace

namespace {
// Tier 1: per-layer times measured on the device (calibration/calibration.hpp: batch rule there).
ComputeProfile calibrated_profile(const Model& model, Precision precision, int batch, const ComputeTuning& t,
                                  Optimizer optimizer) {
  const Calibration& cal = *t.calibration;
  check_calibration_matches(cal, model, precision, t.calibration_origin);
  ComputeProfile prof;
  for (const auto& l : model.layers) {
    const LayerTiming at = layer_timing_at(cal, l.name, batch, t.calibration_origin);
    LayerCost c;
    c.grad_elems = double(l.params_trainable);
    c.grad_tensors = l.trainable_tensors();
    c.fwd_s = at.fwd_s;
    c.bwd_s = at.bwd_s;
    prof.layers.push_back(c);
    // Calibration times SGD with momentum; another optimizer scales by its memory traffic.
    prof.optimizer_s += at.update_s * optimizer_update_bytes(optimizer) / optimizer_update_bytes(Optimizer::Momentum);
    prof.accumulate_s += at.accum_s;
  }
  return prof;
}

// The host's time per layer kernel: given, else an eager framework's default on a GPU (none for
// CPU ranks of a `cpu` calibration: their host is the device).
Seconds host_kernel_s(const ComputeTuning& t, const FrameworkSpec& fw) {
  if (t.host_kernel_s >= 0) return t.host_kernel_s;
  return fw.mode == FrameworkMode::Eager && !t.cpu_ranks() ? kEagerHostKernel_s : 0;
}

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
    ComputeProfile prof = calibrated_profile(model, precision, batch, tuning, optimizer);
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
  const ComputeProfile at_measured = profile_at(tuning.measured_batch);
  const Seconds measured_step_s = tuning.measured_batch / tuning.measured_samples_per_s;
  if (measured_step_s <= overhead)
    throw InputError("compute.throughput: the measured step (" + format_number(measured_step_s * 1e6) +
                     " us) is not longer than the framework's per-step overhead (framework.step_overhead_us = " +
                     format_number(overhead * 1e6) + " us); expected a throughput of one GPU");
  const double scale = (measured_step_s - overhead) / device_step_s(at_measured);
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

double host_contention(const ComputeTuning& t, int ranks_per_node) {
  if (!t.cpu_ranks() || t.node_cores <= 0) return 1;
  // Relative to the lone rank that was calibrated (itself slowed if it had more threads than cores).
  const auto share = [&](int ranks) { return std::max(1.0, double(ranks) * t.threads_per_rank / t.node_cores); };
  return share(ranks_per_node) / share(1);
}

}  // namespace cost_layer
}  // namespace ddlsim
