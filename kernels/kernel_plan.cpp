#include "kernels/kernel_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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

// A product of a convolution or dense layer (implicit GEMMs; a grouped convolution as one GEMM a
// group, batched) or of attention (one a head, sample and window).
KernelSpec product_kernel(const Op& op, KernelPhase ph, const Layer& l, I64 batch, Precision p) {
  const char* name = op.name;
  if (l.kind == LayerKind::Attention) {
    const I64 t = l.window > 0 ? l.window : l.in.h, heads = std::max(l.heads, 1), d = l.out.c / heads;
    const I64 count = batch * heads * (l.in.h / std::max<I64>(t, 1));
    switch (op.product) {
      case Product::Scores: return batched(name, ph, count, t, t, d, false, true, p);
      case Product::Context: return batched(name, ph, count, t, d, t, false, false, p);
      case Product::GradProbs: return batched(name, ph, count, t, t, d, false, true, p);
      case Product::GradV: return batched(name, ph, count, t, d, t, true, false, p);
      case Product::GradQ: return batched(name, ph, count, t, d, t, false, false, p);
      default: return batched(name, ph, count, t, d, t, true, false, p);  // GradK
    }
  }
  const bool conv = l.kind == LayerKind::Conv2D;
  const I64 g = conv ? std::max(l.geom.groups, 1) : 1;
  const I64 m = batch * (conv ? I64(l.out.h) * l.out.w : I64(l.in.h) * l.in.w);
  const I64 n = l.out.c / g;
  const I64 k = conv ? I64(l.geom.kernel_h) * l.geom.kernel_w * (l.in.c / g) : l.in.c;
  switch (op.product) {
    case Product::DataGrad: return batched(name, ph, g, m, k, n, false, true, p);
    case Product::WeightGrad: return batched(name, ph, g, k, n, m, true, false, p);
    default: return batched(name, ph, g, m, n, k, false, false, p);  // Forward
  }
}

// A memory-bound kernel moving `bytes`, in elements of the kernel's precision.
KernelSpec memory_kernel(const Op& op, KernelPhase ph, const Layer& l, I64 batch, Precision p, double bytes) {
  const double elem = p == Precision::Mixed ? 2 : 4;
  const I64 moved = I64(std::llround(bytes / elem));
  const I64 in = batch * l.in.elems(), o = batch * l.out.elems();
  switch (op.shape) {
    case OpShape::Window: {
      // Forward and a weight gradient slide over the input; a data gradient over the output's gradient.
      const int taps = op.taps > 0 ? op.taps
                       : l.kind == LayerKind::Pool
                           ? int(std::max(1.0, l.fwd_flops / double(std::max<I64>(l.out.elems(), 1))))
                           : l.geom.kernel_h * l.geom.kernel_w;
      const bool data_grad = ph == B && !op.weight_grad;
      return mem(op.name, ph, MemOp::Window, data_grad ? in : o, data_grad ? o : in, taps, p);
    }
    case OpShape::Reduce: {
      const I64 out = op.reduce_to == ReduceTo::Params ? l.params_trainable
                      : op.reduce_to == ReduceTo::SampleChannels ? batch * (l.in_elems - l.in.elems())
                                                                 : I64(l.out.c);
      return mem(op.name, ph, MemOp::Reduce, out, std::max<I64>(moved - out, out), 1, p);
    }
    default: {
      const I64 n = std::max<I64>(moved / 2, 1);
      return mem(op.name, ph, MemOp::Stream, n, n, 1, p);
    }
  }
}

}  // namespace

OpRules harness_rules(Precision precision, bool input_grad) {
  OpRules r;
  r.softmax_fp32 = precision == Precision::Mixed;
  r.eager_inplace = true;
  r.input_grad = input_grad;
  return r;
}

std::vector<KernelSpec> layer_kernels(const Layer& l, int batch, Precision p, bool input_grad,
                                      const ActivationBytes& ab) {
  std::vector<KernelSpec> out;
  const LayerOps ops = layer_ops(l, harness_rules(p, input_grad), ab);
  const OpSizes sizes = op_sizes(l, batch, ab, p == Precision::Mixed ? 2.0 : 4.0);
  const auto add = [&](const Op& op, KernelPhase ph) {
    out.push_back(op.shape == OpShape::Product ? product_kernel(op, ph, l, batch, p)
                                               : memory_kernel(op, ph, l, batch, p, op_bytes(op, sizes)));
  };
  for (const Op& op : ops.fwd) add(op, F);
  for (const Op& op : ops.bwd) add(op, B);
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
  const std::vector<ActivationBytes> bytes = activation_bytes(model, p, true);
  bool seen_weights = false;
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const Layer& l = model.layers[i];
    out.push_back({l.name, layer_kernels(l, batch, p, seen_weights, bytes[i])});
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
    case MemOp::Stream: return "stream";
    case MemOp::Window: return "window";
    case MemOp::Reduce: return "reduce";
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
