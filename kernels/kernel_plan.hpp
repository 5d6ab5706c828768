// The kernels a training step runs, layer by layer: the non-CUDA half of the calibration harness,
// shared by the GPU runner (kernels/cuda_runner.cu) and its CPU twin (kernels/cpu_runner.cpp).
//
// The kernels are the roofline's (ops/layer_ops.hpp), under eager PyTorch's rules on the math
// attention path (the harness has no fused attention kernel) with autocast's casts in mixed
// precision, each run as:
// * a matrix product (Product): dense layers are GEMMs; convolutions are implicit GEMMs
//   (M = batch x output pixels, N = filters, K = kernel_h x kernel_w x input channels): forward
//   C[MxN] = A[MxK] B[KxN], data gradient dA[MxK] = dC[MxN] B^T, weight gradient dB[KxN] = A^T dC;
//   a grouped convolution is one such GEMM per group (N and K divided by the groups), batched;
//   attention's score and context products and their gradients are batched GEMMs, one per head
//   and sample (per window in windowed attention);
// * a streaming pass (Stream): a copy moving the bytes the roofline counts for the kernel, half
//   read and half written (the roofline does not tell reads from writes);
// * a reduction (Reduce) of the kernel's bytes into its output (channels, parameters, or a value
//   per sample and channel), summed in FP32;
// * a sliding window (Window): pooling and depthwise convolutions, `window` taps an output.
// After a synchronisation, each weighted layer runs one SGD-with-momentum update kernel; a step
// that only accumulates runs one axpy instead.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.hpp"
#include "ops/layer_ops.hpp"
#include "spec/precision.hpp"

namespace ddlsim {
inline namespace kernels_layer {

enum class KernelPhase { Forward, Backward, Update, Accumulate };

enum class MemOp {
  Stream,    // y = x                        (every elementwise kernel, as the bytes it moves)
  Window,    // y[o] = sum_j x[o*stride+j] w[j], `window` taps (pooling, depthwise, their gradients)
  Reduce,    // y[c] = sum over rows of x    (bias gradient, batch-norm statistics)
  Sgd,       // v = mu v + g; w -= lr v      (optimizer update, per parameter)
  Axpy,      // acc += g                     (gradient accumulation)
};

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  bool trans_a = false;  // A stored as KxM
  bool trans_b = false;  // B stored as NxK
  std::int64_t count = 1;  // `count` such products on consecutive matrices (heads x batch, groups)
};

struct KernelSpec {
  std::string name;            // the op's name (ops/layer_ops.cpp): fwd_gemm, bn_stats, attn_softmax, ...
  KernelPhase phase = KernelPhase::Forward;
  bool is_gemm = false;
  GemmShape gemm;              // is_gemm
  MemOp op = MemOp::Stream;    // !is_gemm
  std::int64_t out_elems = 0;  // !is_gemm: elements written (rows x channels for Reduce: channels)
  std::int64_t in_elems = 0;   // !is_gemm: elements read per input
  int window = 1;              // Window taps
  Precision precision = Precision::FP32;

  // Identical kernels (ResNet's repeated blocks) share one measurement.
  std::string key() const;
  double flops() const;        // operations (multiply-add = 2)
};

// The three buffers a runner gives a kernel (A, B, C of a GEMM; the inputs and the output of a
// memory-bound kernel), in bytes: the one rule both runners allocate by and the memory check uses.
// Elements are 2 bytes in mixed precision (4 for the FP32 optimizer update and accumulation, and
// for a reduction's output, summed in FP32).
struct KernelBuffers {
  double a = 0, b = 0, c = 0;
};
KernelBuffers kernel_buffers(const KernelSpec& k);

struct LayerKernels {
  std::string layer;                 // Layer::name
  std::vector<KernelSpec> kernels;   // forward, backward, update, accumulate (in that order)
};

// Kernels of one layer at a batch size. `input_grad` is false up to the first weighted layer;
// `bytes` is the layer's entry of activation_bytes (ops/autocast.hpp).
std::vector<KernelSpec> layer_kernels(const Layer& layer, int batch, Precision precision, bool input_grad,
                                      const ActivationBytes& bytes);
// The op rules the harness runs by (eager PyTorch, math attention, autocast in mixed precision).
OpRules harness_rules(Precision precision, bool input_grad);
// Kernels of every layer of the model, in model order; layers that run none (input, reshape,
// dropout) are listed with an empty kernel list.
std::vector<LayerKernels> model_kernels(const Model& model, int batch, Precision precision);

const char* to_string(KernelPhase p);
const char* to_string(MemOp op);

}  // namespace kernels_layer
}  // namespace ddlsim
