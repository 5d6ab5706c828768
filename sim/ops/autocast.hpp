// What each activation's elements weigh in mixed precision, under PyTorch's autocast (torch.amp
// "Autocast Op Reference", CUDA): convolutions, linear layers, matrix products and
// scaled_dot_product_attention run in FP16; layer_norm, softmax and log_softmax (the loss) run in
// FP32; an embedding returns its FP32 table's rows; Hugging Face's gelu_new returns FP32 (its pow
// autocasts to FP32 and type promotion carries it to the output: ops/layer_ops.cpp); every other op runs in its inputs' type, and
// an op of two types (a residual add of FP16 and FP32, a concatenation with an FP32 parameter, a
// multiply by an FP32 layer scale) promotes to FP32. An op that autocasts an input of the other
// type first casts it (a kernel reading it and writing the copy), and backward casts the gradient
// back. Its weights too: an FP16 op casts its FP32 parameters once a forward pass (autocast's
// weight cache lives for one autocast region), and backward casts their gradient to FP32 for
// AccumulateGrad; a tied projection casts the table it shares. So a transformer's residual stream
// is FP32 under autocast (its embedding or position table is), while a CNN's activations stay FP16
// (batch norm and ReLU keep their input's type).
// `compute.mixed_activations = fp16` takes every activation as FP16 with no casts (Keras'
// mixed_float16 policy, Apex O2, Megatron): the rule before this one. FP32 and TF32 runs: 4 bytes.
#pragma once
#include <vector>

#include "model/model.hpp"
#include "spec/precision.hpp"

namespace ddlsim {
inline namespace ops_layer {

struct ActivationBytes {
  double in = 4;         // bytes an input element weighs where the layer's own kernels read it
  double out = 4;        // bytes an output element weighs
  double cast_from = 0;  // > 0: the input arrives this wide and is cast to `in` first
  double cast_weights = 0;  // FP32 weights (elements) an FP16 op casts each forward, their gradient back
};

// One entry per layer of `m`, in order. The model's input is taken as already in the compute type.
std::vector<ActivationBytes> activation_bytes(const Model& m, Precision p, bool autocast);

}  // namespace ops_layer
}  // namespace ddlsim
