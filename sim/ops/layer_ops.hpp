// The kernels a training step runs for each layer: one list, read by the roofline (cost/compute.cpp),
// which prices each kernel's work and traffic, and by the calibration harness (kernels/kernel_plan.cpp),
// which runs a kernel of the same shape or the same bytes and times it. A calibration file names
// the kernels it timed with the names given here, so `ddlsim profile --kernels` sets the two side
// by side.
//
// A kernel's traffic is given in passes over the layer's tensors (its input, all inputs together;
// its output; its inner tensor, attention's scores; a dropout's one-byte mask) and its work as a
// share of the layer's forward operations. The rules of each kind, and where they come from, are
// in layer_ops.cpp.
#pragma once
#include <string>
#include <vector>

#include "model/model.hpp"
#include "ops/autocast.hpp"

namespace ddlsim {
inline namespace ops_layer {

// What the harness runs for a kernel: a matrix product of the layer's shapes (`Product` says
// which), a streaming pass of the kernel's bytes, a reduction to a small output, or a sliding window.
enum class OpShape { Product, Stream, Reduce, Window };

// Which matrix product: a convolution's or dense layer's forward, data and weight gradients
// (implicit GEMMs), or one of attention's per-head products and their gradients.
enum class Product { None, Forward, DataGrad, WeightGrad, Scores, Context, GradProbs, GradV, GradQ, GradK };

// What a reduction sums into: the layer's channels (batch-norm statistics, a bias's gradient),
// its trainable parameters (a learned addend's or scale's gradient), or a value per sample and
// channel (a squeeze-excite scale's gradient).
enum class ReduceTo { Channels, Params, SampleChannels };

// Casts autocast adds around a layer (ops/autocast.hpp): of its input (and of that gradient back),
// and of its FP32 weights to FP16 (and of their gradient back).
enum class OpCast { None, Input, Weights };

struct Op {
  const char* name = "";     // e.g. fwd_gemm, bn_stats, attn_softmax (the names calibration files use;
                             // string literals: a kernel list is built for every prediction)
  double in = 0, out = 0;    // passes over the input and the output
  double work = 0;           // share of the layer's forward operations
  bool weights = false;      // reads (or, computing their gradient, writes) the layer's weights
  bool weight_grad = false;  // a backward kernel that computes the weights' gradient
  bool fork_sum = false;     // autograd's sum of the output's gradients (no cuDNN transposes)
  double inner = 0;          // passes over the layer's inner tensor (attention's scores)
  double mask = 0;           // passes over a dropout's one-byte mask (of the output's, or the scores', size)
  bool beside_cudnn = false; // an ATen kernel around a convolution's cuDNN call (no cuDNN transposes)
  OpShape shape = OpShape::Stream;
  Product product = Product::None;
  ReduceTo reduce_to = ReduceTo::Channels;
  int taps = 0;              // Window: taps per output (0: the layer's kernel or pooling window)
  OpCast cast = OpCast::None;
};

struct LayerOps {
  std::vector<Op> fwd, bwd;
};

// What decides a layer's kernels besides the layer itself.
struct OpRules {
  bool per_kind_traffic = true;  // false: the earlier uniform rule (one pass in and out per kernel)
  bool fork_sums = true;         // autograd sums a forked output's gradients (false: one at every add)
  bool fused_attention = false;  // scaled_dot_product_attention's fused kernels, not the math path
  bool softmax_fp32 = false;     // attention's softmax in FP32 (mixed precision under autocast)
  bool eager_inplace = false;    // eager PyTorch: an in-place activation first copies its input
  bool input_grad = true;        // the layer's input needs a gradient (false before the first weights)
};

// The layer's forward and backward kernels in launch order, autocast's casts (`bytes`) last.
LayerOps layer_ops(const Layer& l, const OpRules& rules, const ActivationBytes& bytes);
// The same, written into `out` (its lists reused: the roofline's pass over a model allocates once).
void layer_ops(const Layer& l, const OpRules& rules, const ActivationBytes& bytes, LayerOps& out);

// The sizes an op's passes are counted in, for one layer at one batch size.
struct OpSizes {
  double in_bytes = 0, out_bytes = 0, inner_bytes = 0, mask_bytes = 0, weight_bytes = 0;
  double cast_input_bytes = 0, cast_weight_bytes = 0;  // a cast's read and write together
};
// `act_bytes`: bytes of a weight's working copy and of an attention score (2 in mixed precision, else 4).
OpSizes op_sizes(const Layer& l, int batch, const ActivationBytes& ab, double act_bytes);

// The bytes an op reads and writes (weights included), and without the weights.
double op_bytes(const Op& op, const OpSizes& s);
double op_activation_bytes(const Op& op, const OpSizes& s);

}  // namespace ops_layer
}  // namespace ddlsim
