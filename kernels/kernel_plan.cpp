#include "kernels/kernel_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ddlsim {
inline namespace kernels_layer {

namespace {

using I64 = std::int64_t;

KernelSpec gemm(const char* name, KernelPhase ph, I64 m, I64 n, I64 k, bool ta, bool tb, Precision p) {
  KernelSpec s;
  s.name = name;
  s.phase = ph;
  s.is_gemm = true;
  s.gemm = GemmShape{m, n, k, ta, tb};
  s.precision = p;
  return s;
}

KernelSpec batched(const char* name, KernelPhase ph, I64 count, I64 m, I64 n, I64 k, bool ta, bool tb, Precision p) {
  KernelSpec s = gemm(name, ph, m, n, k, ta, tb, p);
  s.gemm.count = count;
  return s;
}

KernelSpec mem(const char* name, KernelPhase ph, MemOp op, I64 out, I64 in, int window, Precision p) {
  KernelSpec s;
  s.name = name;
  s.phase = ph;
  s.op = op;
  s.out_elems = std::max<I64>(out, 1);
  s.in_elems = std::max<I64>(in, 1);
  s.window = std::max(window, 1);
  s.precision = p;
  return s;
}

constexpr auto F = KernelPhase::Forward;
constexpr auto B = KernelPhase::Backward;

// Conv2D and Dense as (implicit) GEMMs, plus the bias gradient; a grouped convolution as one
// such GEMM per group (batched).
void gemm_layer(const Layer& l, I64 batch, Precision p, bool input_grad, std::vector<KernelSpec>& out) {
  const bool conv = l.kind == LayerKind::Conv2D;
  const I64 g = conv ? std::max(l.geom.groups, 1) : 1;
  const I64 m = batch * (conv ? I64(l.out.h) * l.out.w : I64(l.in.h) * l.in.w);
  const I64 n = l.out.c / g;
  const I64 k = conv ? I64(l.geom.kernel_h) * l.geom.kernel_w * (l.in.c / g) : l.in.c;
  out.push_back(batched("fwd_gemm", F, g, m, n, k, false, false, p));
  if (input_grad) out.push_back(batched("bwd_data_gemm", B, g, m, k, n, false, true, p));
  out.push_back(batched("bwd_weight_gemm", B, g, k, n, m, true, false, p));
  if (l.params_trainable > g * k * n) out.push_back(mem("bias_grad", B, MemOp::Reduce, g * n, m * g * n, 1, p));
}

// Attention of T tokens, H heads of d channels, over packed q, k, v (cost/compute.cpp's math path):
// the per-head split and merge copies, scores = q k^T and context = P v per head and sample, the
// softmax over the scores as one read and one write (its backward two reads and a write).
void attention_layer(const Layer& l, I64 batch, Precision p, std::vector<KernelSpec>& out) {
  // Windowed attention: one product per window and head, of window tokens.
  const I64 t = l.window > 0 ? l.window : l.in.h, heads = std::max(l.heads, 1), d = l.out.c / heads;
  const I64 count = batch * heads * (l.in.h / t);
  const I64 qkv = batch * l.in.elems(), o = batch * l.out.elems(), scores = batch * l.inner_elems;
  out.push_back(mem("attn_split", F, MemOp::Copy, qkv, qkv, 1, p));
  out.push_back(batched("attn_scores", F, count, t, t, d, false, true, p));
  if (l.causal) out.push_back(mem("attn_mask", F, MemOp::Unary, scores, scores, 1, p));
  if (l.params_trainable > 0) out.push_back(mem("attn_bias", F, MemOp::Unary, scores, scores, 1, p));
  if (l.shifted) out.push_back(mem("attn_shift_mask", F, MemOp::Unary, scores, scores, 1, p));
  out.push_back(mem("attn_softmax", F, MemOp::Unary, scores, scores, 1, p));
  if (l.dropout > 0) out.push_back(mem("attn_dropout", F, MemOp::Unary, scores, scores, 1, p));
  out.push_back(batched("attn_context", F, count, t, d, t, false, false, p));
  out.push_back(mem("attn_merge", F, MemOp::Copy, o, o, 1, p));
  out.push_back(mem("attn_merge_bwd", B, MemOp::Copy, o, o, 1, p));
  out.push_back(batched("attn_bwd_probs", B, count, t, t, d, false, true, p));
  out.push_back(batched("attn_bwd_v", B, count, t, d, t, true, false, p));
  if (l.dropout > 0) out.push_back(mem("attn_dropout_bwd", B, MemOp::Binary, scores, scores, 1, p));
  out.push_back(mem("attn_softmax_bwd", B, MemOp::Binary, scores, scores, 1, p));
  if (l.params_trainable > 0) out.push_back(mem("attn_bias_bwd", B, MemOp::Reduce, l.params_trainable, scores, 1, p));
  out.push_back(batched("attn_bwd_q", B, count, t, d, t, false, false, p));
  out.push_back(batched("attn_bwd_k", B, count, t, d, t, true, false, p));
  out.push_back(mem("attn_split_bwd", B, MemOp::Copy, qkv, qkv, 1, p));
}

void memory_layer(const Layer& l, I64 batch, Precision p, std::vector<KernelSpec>& out) {
  const I64 in = batch * l.in.elems(), o = batch * l.out.elems(), c = l.out.c;
  switch (l.kind) {
    case LayerKind::DepthwiseConv2D: {
      const int taps = l.geom.kernel_h * l.geom.kernel_w;
      out.push_back(mem("dw_fwd", F, MemOp::Window, o, in, taps, p));
      out.push_back(mem("dw_bwd_data", B, MemOp::Window, in, o, taps, p));
      out.push_back(mem("dw_bwd_weight", B, MemOp::Window, o, in, taps, p));
      break;
    }
    case LayerKind::BatchNorm:
      out.push_back(mem("bn_stats", F, MemOp::Reduce, c, o, 1, p));
      out.push_back(mem("bn_apply", F, MemOp::Scale, o, o, 1, p));
      out.push_back(mem("bn_bwd_reduce", B, MemOp::Reduce, c, o, 1, p));
      out.push_back(mem("bn_bwd_apply", B, MemOp::Binary, o, o, 1, p));
      break;
    case LayerKind::Normalization:
      out.push_back(mem("norm_apply", F, MemOp::Scale, o, o, 1, p));
      break;
    case LayerKind::Activation:
      // gelu_new: Hugging Face's eight operations forward, autograd's eleven backward
      // (cost/compute.cpp gelu_new_kernels), as unary passes.
    {
      const bool gelu_new = l.fn == "gelu_new";
      for (int i = 0; i < (gelu_new ? 7 : 0); ++i) out.push_back(mem("act_fwd_op", F, MemOp::Unary, o, o, 1, p));
      out.push_back(mem("act_fwd", F, MemOp::Unary, o, o, 1, p));
      for (int i = 0; i < (gelu_new ? 10 : 0); ++i) out.push_back(mem("act_bwd_op", B, MemOp::Binary, o, o, 1, p));
      out.push_back(mem("act_bwd", B, MemOp::Binary, o, o, 1, p));
    }
      break;
    case LayerKind::Pool: {
      const int taps = int(std::max(1.0, l.fwd_flops / double(std::max<I64>(l.out.elems(), 1))));
      out.push_back(mem("pool_fwd", F, MemOp::Window, o, in, taps, p));
      out.push_back(mem("pool_bwd", B, MemOp::Window, in, o, 1, p));
      break;
    }
    case LayerKind::Add:
      // Forward adds the operands; backward passes the gradient through unchanged (no kernel),
      // and sums it over the batch for a learned addend (ViT's position embedding).
      out.push_back(mem("add_fwd", F, MemOp::Binary, o, o, 1, p));
      if (l.params_trainable > 0) out.push_back(mem("add_bwd_param", B, MemOp::Reduce, l.params_trainable, o, 1, p));
      break;
    case LayerKind::LayerNorm:
      out.push_back(mem("ln_fwd", F, MemOp::Scale, o, o, 1, p));
      out.push_back(mem("ln_bwd_data", B, MemOp::Binary, o, o, 1, p));
      out.push_back(mem("ln_bwd_weight", B, MemOp::Reduce, c, o, 1, p));
      break;
    case LayerKind::Attention:
      attention_layer(l, batch, p, out);
      break;
    case LayerKind::Permute:
      out.push_back(mem("permute_fwd", F, MemOp::Copy, o, o, 1, p));
      out.push_back(mem("permute_bwd", B, MemOp::Copy, in, in, 1, p));
      break;
    case LayerKind::Dropout:  // the mask's byte a value is not in the stand-in kernels
      out.push_back(mem("dropout_fwd", F, MemOp::Unary, o, o, 1, p));
      out.push_back(mem("dropout_bwd", B, MemOp::Binary, o, o, 1, p));
      break;
    case LayerKind::Embedding:
      // A gather of rows; backward writes the whole table's gradient from dy's rows.
      out.push_back(mem("emb_fwd", F, MemOp::Copy, o, o, 1, p));
      out.push_back(mem("emb_bwd", B, MemOp::Copy, l.params_trainable, o, 1, p));
      break;
    case LayerKind::Multiply:
      out.push_back(mem("mul_fwd", F, MemOp::Binary, o, o, 1, p));
      out.push_back(mem("mul_bwd_x", B, MemOp::Binary, o, o, 1, p));
      // The scale's gradient: per sample for an activation (squeeze-excite), summed over the
      // batch for a learned one (layer scale).
      out.push_back(mem("mul_bwd_scale", B, MemOp::Reduce,
                        l.params_trainable > 0 ? l.params_trainable : batch * (l.in_elems - l.in.elems()), o, 1, p));
      break;
    case LayerKind::Concat:
      out.push_back(mem("concat_fwd", F, MemOp::Copy, o, o, 1, p));
      out.push_back(mem("concat_bwd", B, MemOp::Copy, o, o, 1, p));
      break;
    default:
      break;
  }
}

}  // namespace

std::vector<KernelSpec> layer_kernels(const Layer& l, int batch, Precision p, bool input_grad) {
  std::vector<KernelSpec> out;
  const bool gemm_kind = l.kind == LayerKind::Dense || l.kind == LayerKind::Conv2D;
  if (gemm_kind)
    gemm_layer(l, batch, p, input_grad, out);
  else
    memory_layer(l, batch, p, out);
  if (l.params_trainable > 0) {
    // Optimizer state stays FP32 (master weights) in every precision.
    out.push_back(mem("sgd_update", KernelPhase::Update, MemOp::Sgd, l.params_trainable, l.params_trainable, 1,
                      Precision::FP32));
    out.push_back(mem("grad_accumulate", KernelPhase::Accumulate, MemOp::Axpy, l.params_trainable,
                      l.params_trainable, 1, Precision::FP32));
  }
  return out;
}

std::vector<LayerKernels> model_kernels(const Model& model, int batch, Precision p) {
  std::vector<LayerKernels> out;
  bool seen_weights = false;
  for (const Layer& l : model.layers) {
    out.push_back({l.name, layer_kernels(l, batch, p, seen_weights)});
    if (l.params_trainable > 0) seen_weights = true;
  }
  return out;
}

std::string KernelSpec::key() const {
  if (is_gemm)
    return fmt::format("gemm_{}_m{}_n{}_k{}_{}{}{}", to_string(precision), gemm.m, gemm.n, gemm.k,
                       gemm.trans_a ? 't' : 'n', gemm.trans_b ? 't' : 'n',
                       gemm.count > 1 ? fmt::format("_x{}", gemm.count) : std::string());
  return fmt::format("{}_{}_o{}_i{}_w{}", to_string(op), to_string(precision), out_elems, in_elems, window);
}

double KernelSpec::flops() const {
  if (is_gemm) return 2.0 * double(gemm.m) * double(gemm.n) * double(gemm.k) * double(gemm.count);
  return double(out_elems) * window;
}

const char* to_string(KernelPhase p) {
  switch (p) {
    case KernelPhase::Forward: return "forward";
    case KernelPhase::Backward: return "backward";
    case KernelPhase::Update: return "update";
    case KernelPhase::Accumulate: return "accumulate";
  }
  return "?";
}

const char* to_string(MemOp op) {
  switch (op) {
    case MemOp::Scale: return "scale";
    case MemOp::Unary: return "unary";
    case MemOp::Binary: return "binary";
    case MemOp::Window: return "window";
    case MemOp::Reduce: return "reduce";
    case MemOp::Copy: return "copy";
    case MemOp::Sgd: return "sgd";
    case MemOp::Axpy: return "axpy";
  }
  return "?";
}

KernelBuffers kernel_buffers(const KernelSpec& k) {
  const bool fp32_op = !k.is_gemm && (k.op == MemOp::Sgd || k.op == MemOp::Axpy);
  const double elem = k.precision == Precision::Mixed && !fp32_op ? 2 : 4;
  if (k.is_gemm) {
    const auto& g = k.gemm;
    const double e = elem * double(g.count);
    return {e * double(g.m) * double(g.k), e * double(g.k) * double(g.n), e * double(g.m) * double(g.n)};
  }
  const double mem = elem * double(std::max(k.in_elems, k.out_elems));
  // A reduction's sums accumulate in FP32 (cuda_runner.cu): its output holds 4-byte floats.
  const double out = k.op == MemOp::Reduce ? std::max(mem, 4.0 * double(k.out_elems)) : mem;
  return {mem, mem, out};
}

}  // namespace kernels_layer
}  // namespace ddlsim
