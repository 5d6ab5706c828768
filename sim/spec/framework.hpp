// What the training framework itself costs the step, beyond compute and the library's exchanges
// (cost/framework_costs.hpp, docs/design.md "Framework costs"): how it runs the step (eager,
// one host call per kernel; or a graph), how it moves gradients in and out of the buffers it
// exchanges, and whether its ranks negotiate before each exchange (Horovod's controller).
#pragma once
#include "core/units.hpp"

namespace ddlsim {
inline namespace spec_layer {

enum class FrameworkMode { Eager, Graph };  // PyTorch eager; TensorFlow graph / XLA

// Gradients copied into the exchange buffer before and out of it after each exchange:
//   none        each tensor is exchanged in place (per-variable transfers, no fusion)
//   per_tensor  one copy kernel per tensor each way (PyTorch DDP, gradient_as_bucket_view=False)
//   batched     one kernel for up to 160 tensors each way (Horovod's batched D2D memcpy; TF's
//               packed all-reduce concatenates and splits in one kernel each)
enum class BufferCopies { None, PerTensor, Batched };

// How an eager framework's optimizer launches its kernels (docs/design.md "Framework costs"):
//   per_tensor  a loop over the tensors, each step's operations one kernel a tensor (PyTorch 1.x's
//               default; torch/optim/sgd.py 1.13: `if foreach is None: foreach = False`)
//   foreach     each operation once over all tensors, as multi-tensor launches (PyTorch 2.x's
//               default on CUDA: torch.optim `foreach=None` picks it)
//   fused       the whole update one multi-tensor kernel (`fused=True`: Adam since 2.0, SGD 2.4)
enum class OptimizerLaunches { PerTensor, Foreach, Fused };

// Weight decay as an eager optimizer applies it (training.weight_decay):
//   none       none
//   l2         added to the gradient first (torch.optim SGD's and Adam's weight_decay: torch 1.13
//              `grad.add(param, alpha=weight_decay)`, foreach `torch._foreach_add(grads, params)`)
//   decoupled  the weights shrunk in place (AdamW: `param.mul_(1 - lr * weight_decay)`, foreach
//              `torch._foreach_mul_(params, ...)`)
// A fused update takes it as a scalar of its one kernel.
enum class WeightDecay { None, L2, Decoupled };

struct FrameworkSpec {
  FrameworkMode mode = FrameworkMode::Graph;
  OptimizerLaunches optimizer_launches = OptimizerLaunches::PerTensor;  // eager only
  // The training loop zeroes the gradients between updates instead of freeing them
  // (optimizer.zero_grad(set_to_none=False), PyTorch 1.x's default): a fill kernel per tensor in
  // the update and, in backward, autograd's AccumulateGrad adding each new gradient into the zeroed
  // one in place (torch/csrc/autograd/functions/accumulate_grad.h: `variable_grad += new_grad`)
  // instead of taking it as it is. Eager only.
  bool zeroes_gradients = false;
  WeightDecay weight_decay = WeightDecay::None;  // eager only
  BufferCopies copies = BufferCopies::None;
  bool negotiates = false;         // a controller coordinates the ranks before each exchange
  Seconds step_overhead_s = -1;    // host time of the training loop per micro-batch; < 0: the mode's default
  // Activations recomputed (training.recompute = full): each layer's forward run again in the
  // backward pass (torch.utils.checkpoint per block, Megatron-LM's full recomputation), only the
  // residual blocks' inputs kept (cost/memory.hpp).
  bool recompute = false;
};

}  // namespace spec_layer
}  // namespace ddlsim
