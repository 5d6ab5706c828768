#include "ops/layer_ops.hpp"

#include <algorithm>
#include <string>
#include <string_view>

namespace ddlsim {
inline namespace ops_layer {

namespace {

Op stream(const char* name, double in, double out, double work = 0) {
  Op o;
  o.name = name;
  o.in = in, o.out = out, o.work = work;
  return o;
}
Op weighted(Op o) {
  o.weights = true;
  return o;
}
Op of_weights(Op o) {  // computes the weights' gradient (and writes it)
  o.weight_grad = true;
  return o;
}
Op product(Op o, Product p) {
  o.shape = OpShape::Product, o.product = p;
  return o;
}
Op reduce(Op o, ReduceTo to) {
  o.shape = OpShape::Reduce, o.reduce_to = to;
  return o;
}
Op window(Op o, int taps = 0) {
  o.shape = OpShape::Window, o.taps = taps;
  return o;
}
Op beside_cudnn(Op o) {
  o.beside_cudnn = true;
  return o;
}

// A layer's kernels each way, written over what `ks` held (its lists keep their room: one LayerOps
// serves a whole model's layers without allocating).
void set(LayerOps& ks, std::initializer_list<Op> fwd, std::initializer_list<Op> bwd) {
  ks.fwd.assign(fwd);
  ks.bwd.assign(bwd);
}

// A kernel of attention: passes over its input (packed q, k, v), output and scores, and its work.
Op attn(const char* name, double in, double out, double inner, double work, double mask = 0) {
  Op o = stream(name, in, out, work);
  o.inner = inner, o.mask = mask;
  return o;
}

// A biased convolution or dense layer in eager PyTorch (ATen Convolution.cpp: cuDNN's convolution
// is called without the bias and `output.add_(reshape_bias(...))` follows; convolution_backward and
// addmm's backward sum grad_output over all but the channel dimension, a reduce_kernel; linear's
// forward adds the bias in cuBLAS's epilogue). Counted on an H100 (calibration/measured/
// h100-zoo-kernels.csv): VGG-16 ran 13 such adds (its convolutions) and 16 sums (and its 3 dense
// layers), ConvNeXt-T 58 sums (18 blocks x (depthwise + 2 linear) + 4 downsampling convolutions),
// ViT-B/16 50 (12 blocks x 4 linear + patch embedding + head). TensorFlow's BiasAdd and
// BiasAddGrad are the same two kernels.
Op bias_add() { return beside_cudnn(stream("bias_add", 0, 2)); }
Op bias_sum() { return beside_cudnn(reduce(of_weights(stream("bias_grad", 0, 1)), ReduceTo::Channels)); }

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
Op bias_gradient(const char* name) { return reduce(of_weights(attn(name, 0, 0, 1, 0)), ReduceTo::Params); }

void attention_ops(const Layer& l, bool fused, bool mixed, LayerOps& ks) {
  const Op split = attn("attn_split", 2, 0, 0, 0), merge = attn("attn_merge", 0, 2, 0, 0);
  const Op split_bwd = attn("attn_split_bwd", 2, 0, 0, 0), merge_bwd = attn("attn_merge_bwd", 0, 2, 0, 0);
  const double half = l.causal ? 0.5 : 1;
  const bool bias = l.params_trainable > 0;
  if (fused) {
    const double mask = bias || l.shifted ? 1 : 0;
    set(ks, {split, attn("attn_fused", 1, 1, mask, half), merge},
        {merge_bwd, attn("attn_fused_pre", 0, 2, 0, 0), attn("attn_fused_bwd", 2, 1, 0, 2.5 * half), split_bwd});
    if (bias) ks.bwd.insert(ks.bwd.end(), {attn("attn_bias_grad_pass", 0, 0, 1, 0), bias_gradient("attn_bias_grad")});
    return;
  }
  const double attended = l.window > 0 ? l.window : l.in.h;
  const double gemm_flops = 4.0 * double(l.in.h) * attended * l.out.c;
  const double g = l.fwd_flops > 0 ? gemm_flops / l.fwd_flops / 2 : 0.5;  // share of one product
  const double softmax_work = 1 - 2 * g;
  const auto gemm = [&](const char* name, double in, double out, Product p) {
    return product(attn(name, in, out, 1, g), p);
  };
  // q scaled (PyTorch, Keras), or the scores (timm, Hugging Face); Hugging Face's BERT adds its mask.
  const Op scale = l.scale_scores ? attn("attn_scale_scores", 0, 0, 2, 0) : attn("attn_scale_q", 2.0 / 3, 0, 0, 0);
  Op scale_bwd = scale;
  scale_bwd.name = l.scale_scores ? "attn_scale_scores_bwd" : "attn_scale_q_bwd";
  ks.fwd = {split};
  if (!l.scale_scores) ks.fwd.push_back(scale);
  ks.fwd.push_back(gemm("attn_scores", 2.0 / 3, 0, Product::Scores));
  if (l.scale_scores) ks.fwd.push_back(scale);
  if (l.additive_mask) ks.fwd.push_back(attn("attn_add_mask", 0, 0, 2, 0));
  if (l.causal) ks.fwd.push_back(attn("attn_causal_mask", 0, 0, 2, 0));
  if (bias) ks.fwd.push_back(attn("attn_bias", 0, 0, 2, 0));
  if (l.shifted) ks.fwd.push_back(attn("attn_shift_mask", 0, 0, 2, 0));
  if (mixed)
    ks.fwd.insert(ks.fwd.end(), {attn("attn_softmax", 0, 0, 3, softmax_work), attn("attn_softmax_cast", 0, 0, 3, 0)});
  else
    ks.fwd.push_back(attn("attn_softmax", 0, 0, 2, softmax_work));
  if (l.dropout > 0) ks.fwd.push_back(attn("attn_dropout", 0, 0, 2, 0, 1));
  ks.fwd.insert(ks.fwd.end(), {gemm("attn_context", 1.0 / 3, 1, Product::Context), merge});
  ks.bwd = {merge_bwd, gemm("attn_grad_probs", 1.0 / 3, 1, Product::GradProbs),
            gemm("attn_grad_v", 1.0 / 3, 1, Product::GradV)};
  if (l.dropout > 0) ks.bwd.push_back(attn("attn_dropout_bwd", 0, 0, 2, 0, 1));
  if (l.causal) ks.bwd.push_back(attn("attn_causal_bwd", 0, 0, 2, 0));  // the mask's gradient: where(mask, dy, 0)
  if (mixed)
    ks.bwd.insert(ks.bwd.end(), {attn("attn_softmax_cast_bwd", 0, 0, 3, 0), attn("attn_softmax_bwd", 0, 0, 6, softmax_work),
                                 attn("attn_softmax_cast_back", 0, 0, 3, 0)});
  else
    ks.bwd.push_back(attn("attn_softmax_bwd", 0, 0, 3, softmax_work));
  if (bias) ks.bwd.push_back(bias_gradient("attn_bias_grad"));
  ks.bwd.insert(ks.bwd.end(), {gemm("attn_grad_q", 2.0 / 3, 0, Product::GradQ),
                               gemm("attn_grad_k", 2.0 / 3, 0, Product::GradK), scale_bwd, split_bwd});
}

// Hugging Face's gelu_new (transformers/activations.py NewGELUActivation, GPT-2's activation), the
// tanh approximation written as eight PyTorch operations: 0.5 x, x^3, 0.044715 x^3, x + that,
// sqrt(2/pi) times it, tanh, 1 + tanh, the product (the first and the last read two tensors).
// Backward, autograd's eleven: the product's two gradients, tanh's, the two scalings', pow's three
// (x^2, times 3, times the gradient), 0.5's, and two sums of x's three gradients.
// Under autocast with an FP16 input (the linear layer before it), `pow` is on autocast's FP32 list
// (torch.amp "Autocast Op Reference", CUDA ops that autocast to float32): x is cast to FP32 first,
// and type promotion carries FP32 through x + 0.044715 x^3 and every operation after it, so the
// output is FP32 (ops/autocast.cpp). Passes: `in` an FP16 tensor of x's size, `out` an FP32 one.
// Forward nine kernels: 0.5 x (FP16 in and out), the cast, pow, the scaling, the add (reads x and
// an FP32 tensor), the scaling, tanh, 1 + tanh, the product (reads 0.5 x and an FP32 tensor).
// Backward fourteen: the product's gradient to 0.5 x computed in FP32 and cast back to its FP16
// type (autograd casts a gradient to its input's type: engine.cpp validate_outputs), to the FP32
// factor; tanh's; the scaling's; the add's gradient to x cast to FP16; the scaling's; pow's three
// and the cast's gradient back to FP16; 0.5's (FP16); the two FP16 sums of x's three gradients.
void gelu_new_ops(bool autocast_half_input, LayerOps& ks) {
  const double w = 1.0 / 8;
  struct P {
    double in, out, work;
  };
  static const char* const fwd[] = {"gelu_fwd1", "gelu_fwd2", "gelu_fwd3", "gelu_fwd4", "gelu_fwd5",
                                    "gelu_fwd6", "gelu_fwd7", "gelu_fwd8", "gelu_fwd9"};
  static const char* const bwd[] = {"gelu_bwd1",  "gelu_bwd2",  "gelu_bwd3",  "gelu_bwd4",  "gelu_bwd5",
                                    "gelu_bwd6",  "gelu_bwd7",  "gelu_bwd8",  "gelu_bwd9",  "gelu_bwd10",
                                    "gelu_bwd11", "gelu_bwd12", "gelu_bwd13", "gelu_bwd14"};
  const auto named = [](std::vector<Op>& ops, const char* const* names, std::initializer_list<P> ps) {
    int i = 0;
    for (const P& p : ps) ops.push_back(stream(names[i++], p.in, p.out, p.work));
  };
  if (autocast_half_input) {
    named(ks.fwd, fwd, {{2, 0, w}, {1, 1, 0}, {0, 2, w}, {0, 2, w}, {1, 2, w}, {0, 2, w}, {0, 2, w}, {0, 2, w}, {1, 2, w}});
    named(ks.bwd, bwd, {{0, 3, 0}, {1, 1, 0}, {1, 2, 0}, {0, 3, 0}, {0, 2, 0}, {1, 1, 0}, {0, 2, 0}, {0, 2, 0},
                        {0, 2, 0}, {0, 3, 0}, {1, 1, 0}, {2, 0, 0}, {3, 0, 0}, {3, 0, 0}});
    return;
  }
  named(ks.fwd, fwd, {{1, 1, w}, {1, 1, w}, {1, 1, w}, {2, 1, w}, {1, 1, w}, {1, 1, w}, {1, 1, w}, {2, 1, w}});
  named(ks.bwd, bwd, {{2, 1, 0}, {2, 1, 0}, {2, 1, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}, {2, 1, 0},
                      {1, 1, 0}, {2, 1, 0}, {2, 1, 0}});
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
void per_kind_ops(const Layer& l, bool fork_sums, bool promoted, bool inplace_copy, LayerOps& ks) {
  const double x_over_in = l.in_elems > 0 ? double(l.in.elems()) / double(l.in_elems) : 1;
  switch (l.kind) {
    case LayerKind::Conv2D:
    case LayerKind::Dense: {
      set(ks, {product(weighted(stream("fwd_gemm", 1, 1, 1)), Product::Forward)},
          {product(weighted(stream("bwd_data_gemm", 1, 1, 1)), Product::DataGrad),
           product(of_weights(weighted(stream("bwd_weight_gemm", 1, 1, 1))), Product::WeightGrad)});
      if (l.trainable_tensors() < 2 || l.bias_in_params_only) return;
      // A bias (bias_add, bias_sum): a dense layer's GEMM adds it in its epilogue.
      if (l.kind != LayerKind::Dense) ks.fwd.push_back(bias_add());
      ks.bwd.push_back(bias_sum());
      return;
    }
    case LayerKind::DepthwiseConv2D: {
      set(ks, {window(weighted(stream("dw_fwd", 1, 1, 1)))},
          {window(weighted(stream("dw_bwd_data", 1, 1, 1))), window(of_weights(weighted(stream("dw_bwd_weight", 1, 1, 1))))});
      if (l.trainable_tensors() < 2 || l.bias_in_params_only) return;
      ks.fwd.push_back(bias_add());
      ks.bwd.push_back(bias_sum());
      return;
    }
    case LayerKind::BatchNorm:
      return set(ks, {reduce(stream("bn_stats", 1, 0, 0.5), ReduceTo::Channels), weighted(stream("bn_apply", 1, 1, 0.5))},
                 {reduce(of_weights(weighted(stream("bn_bwd_reduce", 1, 1, 0.5))), ReduceTo::Channels),
                  weighted(stream("bn_bwd_apply", 2, 1, 0.5))});
    case LayerKind::Activation:
      if (l.fn == std::string_view("gelu_new")) return gelu_new_ops(promoted, ks);
      if (inplace_copy)
        return set(ks, {stream("act_save_input", 1, 1, 0), stream("act_fwd", 1, 1, 1)}, {stream("act_bwd", 2, 1, 1)});
      return set(ks, {stream("act_fwd", 1, 1, 1)}, {stream("act_bwd", 2, 1, 1)});
    case LayerKind::Add: {
      Op fwd = stream("add_fwd", 1, 1, 1);
      fwd.weights = l.params_trainable > 0;
      set(ks, {fwd}, {});
      if (!fork_sums) ks.bwd.push_back(stream("add_bwd_sum", 0, 3, 1));
      if (l.params_trainable > 0) ks.bwd.push_back(reduce(of_weights(weighted(stream("add_bwd_param", 0, 1, 0))), ReduceTo::Params));
      return;
    }
    case LayerKind::LayerNorm:
      return set(ks, {weighted(stream("ln_fwd", 1, 1, 1))},
                 {weighted(stream("ln_bwd_data", 2, 1, 0.5)),
                  reduce(of_weights(weighted(stream("ln_bwd_weight", 1, 1, 0.5))), ReduceTo::Channels)});
    case LayerKind::Attention:  // attention_ops, which needs the rules
    case LayerKind::Input:
      return;
    case LayerKind::Embedding:  // ids need no gradient
      return set(ks, {stream("emb_fwd", 1, 2, 0)},
                 {of_weights(stream("emb_bwd_sort", 1, 0, 0)), of_weights(weighted(stream("emb_bwd_sum", 0, 1, 0)))});
    case LayerKind::Dropout: {  // fused_dropout: x in, y and the mask out; masked_scale: dy, mask in, dx out
      // Stochastic depth: a draw per sample (bernoulli_, div_: launches on N values), y = x noise;
      // backward dx = dy noise.
      if (l.per_sample)
        return set(ks, {stream("drop_path_draw", 0, 0), stream("drop_path_scale", 0, 0), stream("drop_path_fwd", 1, 1)},
                   {stream("drop_path_bwd", 1, 1)});
      Op fwd = stream("dropout_fwd", 1, 1), bwd = stream("dropout_bwd", 1, 1);
      fwd.mask = bwd.mask = 1;
      return set(ks, {fwd}, {bwd});
    }
    case LayerKind::Multiply:
      return set(ks, {stream("mul_fwd", 1, 1, 1)},
                 {stream("mul_bwd_x", 1, 1, 0.5),
                  reduce(stream("mul_bwd_scale", x_over_in, 1, 0.5),
                         l.params_trainable > 0 ? ReduceTo::Params : ReduceTo::SampleChannels)});
    case LayerKind::Pool:
      return set(ks, {window(stream("pool_fwd", 1, 1, 1))}, {window(stream("pool_bwd", 1, 1, 1), 1)});
    case LayerKind::Concat:
      return set(ks, {stream("concat_fwd", 1, 1, 1)}, {stream("concat_bwd", 1, 1, 1)});
    case LayerKind::Permute:
      return set(ks, {stream("permute_fwd", 1, 1, 1)}, {stream("permute_bwd", 1, 1, 1)});
    case LayerKind::Normalization:
      return set(ks, {weighted(stream("norm_apply", 1, 1, 1))}, {});
    case LayerKind::Reshape: {
      // A view; a crop (Layer::slice_grads) is copied forward where it drops anything
      // (.contiguous()), and backward each sliced dimension's slice_backward zero-fills the input's
      // size and copies the gradient into it (read and write of the output's size).
      // A permuted view whose gradient is reshaped (Layer::grad_copy): one copy backward.
      if (l.grad_copy) ks.bwd.push_back(stream("view_grad_copy", 1, 1));
      if (l.slice_grads == 0) return;
      if (l.in_elems != l.out_elems) ks.fwd.push_back(stream("crop_copy", 0, 2));
      for (int i = 0; i < l.slice_grads; ++i) ks.bwd.insert(ks.bwd.end(), {stream("slice_zero", 1, 0), stream("slice_copy", 0, 2)});
      return;
    }
  }
}

// The earlier uniform rule: every kernel reads its input and writes its output once; backward is
// two such kernels for layers with weights and 1.5 passes else.
void uniform_ops(const Layer& l, LayerOps& ks) {
  if (l.params_trainable > 0)
    return set(ks, {weighted(stream("fwd", 1, 1, 1))},
               {weighted(stream("bwd_data", 1, 1, 1)), of_weights(weighted(stream("bwd_weight", 1, 1, 1)))});
  set(ks, {weighted(stream("fwd", 1, 1, 1))}, {stream("bwd", 1.5, 1.5, 1)});
}

bool is_free(LayerKind k) { return k == LayerKind::Input || k == LayerKind::Reshape; }

Op cast(const char* name, OpCast what) {
  Op o = stream(name, 0, 0);
  o.cast = what;
  return o;
}

}  // namespace

void layer_ops(const Layer& l, const OpRules& r, const ActivationBytes& ab, LayerOps& ks) {
  ks.fwd.clear();
  ks.bwd.clear();
  // A free layer (a reshape, a dropout of rate 0) passes its input on as its output; when that output
  // forks, autograd still sums its gradients (the fork sums below).
  // A crop's slice gradients and a permuted view's gradient copy are per-kind kernels (uniform
  // traffic keeps them free, the earlier rule).
  const bool view_kernels = (l.slice_grads > 0 || l.grad_copy) && r.per_kind_traffic;
  if (is_free(l.kind) && !view_kernels &&
      (l.kind == LayerKind::Input || l.consumers < 2 || !r.fork_sums || !r.per_kind_traffic))
    return;
  if (r.per_kind_traffic) {
    // Attention's softmax runs in FP32 only under autocast (ops/autocast.hpp).
    if (l.kind == LayerKind::Attention)
      attention_ops(l, r.fused_attention, r.softmax_fp32, ks);
    else
      per_kind_ops(l, r.fork_sums, promotes_to_float(ab), r.eager_inplace && l.inplace_copies_input(), ks);
    for (int i = 1; r.fork_sums && i < l.consumers; ++i) {
      Op sum = stream("fork_sum", 0, 3);
      sum.fork_sum = true;
      ks.bwd.push_back(sum);
    }
  } else {
    uniform_ops(l, ks);
  }
  // No layer before the first one with trainable weights needs a gradient; that layer computes
  // only its weights' gradient (autograd skips inputs that do not require one).
  const bool weights_only = r.per_kind_traffic && !r.input_grad;
  if (weights_only) {
    const bool keeps = l.params_trainable > 0;
    ks.bwd.erase(std::remove_if(ks.bwd.begin(), ks.bwd.end(), [&](const Op& k) { return !(k.weight_grad && keeps); }),
                 ks.bwd.end());
  }
  // Autocast's cast of the input (ops/autocast.hpp), and of its gradient back; of the weights
  // (4 bytes read, 2 written an element), and of their gradient back.
  if (ab.cast_from > 0) {
    ks.fwd.push_back(cast("cast_input", OpCast::Input));
    if (!weights_only) ks.bwd.push_back(cast("cast_input_bwd", OpCast::Input));
  }
  if (ab.cast_weights > 0) {
    ks.fwd.push_back(cast("cast_weights", OpCast::Weights));
    ks.bwd.push_back(cast("cast_weights_bwd", OpCast::Weights));
  }
}

LayerOps layer_ops(const Layer& l, const OpRules& r, const ActivationBytes& ab) {
  LayerOps ks;
  layer_ops(l, r, ab, ks);
  return ks;
}

OpSizes op_sizes(const Layer& l, int batch, const ActivationBytes& ab, double act_bytes) {
  OpSizes s;
  s.in_bytes = double(l.in_elems) * batch * ab.in;
  s.out_bytes = double(l.out_elems) * batch * ab.out;
  s.inner_bytes = double(l.inner_elems) * batch * act_bytes;
  s.mask_bytes = double(l.kind == LayerKind::Attention ? l.inner_elems : l.out_elems) * batch;
  s.weight_bytes = double(l.params()) * act_bytes;
  s.cast_input_bytes = double(l.in_elems) * batch * (ab.cast_from + ab.in);
  s.cast_weight_bytes = ab.cast_weights * 6;
  return s;
}

double op_bytes(const Op& k, const OpSizes& s) {
  switch (k.cast) {
    case OpCast::Input: return s.cast_input_bytes;
    case OpCast::Weights: return s.cast_weight_bytes;
    case OpCast::None: break;
  }
  return k.in * s.in_bytes + k.out * s.out_bytes + k.inner * s.inner_bytes + k.mask * s.mask_bytes +
         (k.weights ? s.weight_bytes : 0);
}

double op_activation_bytes(const Op& k, const OpSizes& s) { return op_bytes(k, s) - (k.weights ? s.weight_bytes : 0); }

}  // namespace ops_layer
}  // namespace ddlsim
