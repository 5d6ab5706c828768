// What the training framework itself costs the step (docs/design.md "Framework costs"):
//   * a fixed host time per micro-batch (the training loop: zero_grad, loss bookkeeping, the
//     optimizer's Python), after the update;
//   * copies of the gradients into and out of each exchanged buffer (fusion buffer, bucket, pack),
//     on the exchange's critical path: 4 bytes moved per byte exchanged (read and write, each way)
//     at the device's streaming memory rate, plus one launch per copy kernel;
//   * negotiation: Horovod's controller agrees on the ready tensors before each exchange with two
//     bit-vector allreduces over the host network (recursive doubling: ceil(log2 p) hops each).
// The optimizer's kernel launches are part of the compute profile (cost/compute.cpp,
// optimizer_launches).
#pragma once
#include "core/units.hpp"
#include "spec/execution.hpp"
#include "spec/framework.hpp"
#include "spec/optimizer.hpp"
#include "system/system.hpp"

namespace ddlsim {
inline namespace cost_layer {

struct FrameworkCosts {
  Seconds step_overhead_s = 0;     // per micro-batch, on the compute lane after the update
  BufferCopies copies = BufferCopies::None;
  BytesPerSecond copy_Bps = 0;     // device memory rate of the copies
  Seconds per_launch_s = 0;        // one copy kernel's launch
  Seconds negotiation_s = 0;       // before each exchange

  // The copies around one exchange of `bytes` holding `tensors` tensors: in and out.
  Seconds copies_s(Bytes bytes, int tensors) const;
};

// Tensors one batched copy kernel takes (Horovod BATCHED_D2D_CAPACITY, horovod/common/ops/cuda/
// cuda_kernels.h, PR #2435).
constexpr int kBatchedCopyTensors = 160;

// Kernels the optimizer launches per trainable tensor: eager PyTorch 1.13's single-tensor paths
// (torch/optim/sgd.py, adam.py: sgd 1, momentum 3, adam 8); a graph runs one fused apply op per
// variable (TensorFlow ResourceApplyGradientDescent / Momentum / Adam).
int optimizer_kernels_per_tensor(Optimizer o, FrameworkMode m);

// Kernels one update launches over `tensors` trainable tensors of `params` elements in all, as the
// framework runs it (spec/framework.hpp OptimizerLaunches; a graph: one op per variable). A
// multi-tensor operation of depth d (tensor lists it reads and writes) launches when its tensor
// list or its block list is full (ATen/native/cuda/MultiTensorApply.cuh, the 4 KB argument
// layout: at most 110, 64, 48, 36 tensors for depth 1-4, 96 / 64 / 48 for the scalar-list forms,
// 320 blocks of 65,536 elements): max(ceil(tensors / max_tensors), ceil(chunks / 320)) launches,
// with chunks = params / 65,536 + tensors (each tensor's last chunk partial).
int optimizer_launches(Optimizer o, const FrameworkSpec& fw, int tensors, double params);

// Bytes one update reads and writes per trainable parameter (FP32), as the framework runs it: a
// fused update (fused=True, a graph's apply op per variable) streams each tensor once
// (spec/optimizer.hpp optimizer_update_bytes: 12, 20, 28); an unfused one reads and writes its
// tensors once per operation, temporaries included (4 bytes each). torch 1.13's single-tensor
// paths (torch/optim/sgd.py, adam.py, no weight decay): momentum buf.mul_ (8) .add_(grad) (12),
// param.add_(buf) (12): 32; adam exp_avg.mul_ (8) .add_(grad) (12), exp_avg_sq.mul_ (8)
// .addcmul_(grad, grad) (12), sqrt (8), / bias correction (8), .add_(eps) (8),
// param.addcdiv_(exp_avg, denom) (16): 80. foreach (the torch 2.x operations listed in
// framework_costs.cpp multi_tensor_ops): momentum 8 + 12 + 12 = 32; adam _foreach_lerp_ 12, mul_ 8,
// addcmul_ 12, sqrt 8, div_ 8, add_ 8, addcdiv_ 16: 72. Plain SGD is one operation: 12 either way.
// Weight decay (FrameworkSpec::weight_decay) adds one more operation to an unfused update: l2 12
// (the gradient and the weights read, a new gradient written), decoupled 8 (the weights in place);
// a fused update none. Its launches and host time join the update's (optimizer_launches,
// optimizer_host_s).
Bytes optimizer_traffic_bytes(Optimizer o, const FrameworkSpec& fw);

// Kernels optimizer.zero_grad(set_to_none=False) launches to fill `tensors` gradients of `params`
// elements with zeros (FrameworkSpec::zeroes_gradients): one a tensor (torch 1.13
// torch/optim/optimizer.py zero_grad: p.grad.zero_()), or torch._foreach_zero_ over them where the
// optimizer runs foreach or fused (a depth-1 multi-tensor operation: 110 tensors a launch).
int zero_grad_launches(const FrameworkSpec& fw, int tensors, double params);
// Their host time: one operation a tensor at the per-tensor loop's cost, or the foreach one's a
// tensor (kHostTensorOp_s, kHostForeachTensorOp_s below).
Seconds zero_grad_host_s(const FrameworkSpec& fw, int tensors);

// Host time of an eager update (the optimizer's Python and dispatch; a graph's is 0): PyTorch 2.11's
// SGD with momentum on CUDA tensors took 20.9 us a tensor in its per-tensor loop (3 operations: 7.0
// us each) and 2.3 us a tensor with foreach (3 multi-tensor operations: 0.77 us a tensor each), on
// the lent H200 machine (calibration/torch/eager_overhead.py --device cuda; docs/design.md "The
// host as a bottleneck"). per_tensor: 7.0 us an operation a tensor; foreach: 0.77 us a tensor an
// operation; fused: one operation.
constexpr Seconds kHostTensorOp_s = 20.9e-6 / 3;
constexpr Seconds kHostForeachTensorOp_s = 2.3e-6 / 3;
Seconds optimizer_host_s(Optimizer o, const FrameworkSpec& fw, int tensors);

// Host time of the training loop per micro-batch: the scenario's, else the mode's default.
Seconds default_step_overhead_s(FrameworkMode m);
Seconds step_overhead_s(const FrameworkSpec& fw);

// On `nodes` nodes of `gpus_per_node` ranks (one rank exchanges nothing: no copies, no negotiation).
FrameworkCosts framework_costs(const Execution& e, const System& sys, int nodes, int gpus_per_node);

}  // namespace cost_layer
}  // namespace ddlsim
