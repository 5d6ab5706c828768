#include "cost/framework_costs.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ddlsim {
inline namespace cost_layer {

Seconds FrameworkCosts::copies_s(Bytes bytes, int tensors) const {
  if (copies == BufferCopies::None || copy_Bps <= 0) return 0;
  const int kernels_each_way = copies == BufferCopies::PerTensor
                                   ? tensors
                                   : (tensors + kBatchedCopyTensors - 1) / kBatchedCopyTensors;
  return 4 * bytes / copy_Bps + 2 * kernels_each_way * per_launch_s;
}

int optimizer_kernels_per_tensor(Optimizer o, FrameworkMode m) {
  if (m == FrameworkMode::Graph) return 1;
  // torch 1.13 _single_tensor_sgd: buf.mul_(momentum).add_(grad) and param.add_(buf);
  // _single_tensor_adam: exp_avg.mul_().add_(), exp_avg_sq.mul_().addcmul_(),
  // (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps), param.addcdiv_() (no weight decay).
  return o == Optimizer::Sgd ? 1 : o == Optimizer::Momentum ? 3 : 8;
}

namespace {

// One multi-tensor operation: its tensor lists' limit per launch (MultiTensorApply.cuh).
int multi_tensor_launches(int max_tensors, int tensors, double params) {
  const double chunks = std::ceil(params / 65536.0) + tensors;
  return int(std::max(std::ceil(double(tensors) / max_tensors), std::ceil(chunks / 320.0)));
}

// Each update's multi-tensor operations, as their launch limits:
//   foreach (torch 2.x torch/optim/sgd.py _multi_tensor_sgd, adam.py _multi_tensor_adam, neither
//   capturable): sgd _foreach_add_(params, grads) [64]; momentum _foreach_mul_(bufs) [110],
//   _foreach_add_(bufs, grads) [64], _foreach_add_(params, bufs) [64]; adam _foreach_lerp_(exp_avgs,
//   grads) [64], _foreach_mul_(exp_avg_sqs) [110], _foreach_addcmul_(exp_avg_sqs, grads, grads) [48],
//   _foreach_sqrt(exp_avg_sqs) [64], _foreach_div_(sqrt, list) [96], _foreach_add_(sqrt, eps) [110],
//   _foreach_addcdiv_(params, exp_avgs, sqrt, list) [48] (the step counts stay on the CPU);
//   fused (_fused_sgd_ over params, grads, buffers [48]; without momentum [64]; _fused_adam_ over
//   params, grads, exp_avgs, exp_avg_sqs [36]).
std::vector<int> multi_tensor_ops(Optimizer o, OptimizerLaunches l) {
  if (l == OptimizerLaunches::Fused) return {o == Optimizer::Sgd ? 64 : o == Optimizer::Momentum ? 48 : 36};
  if (o == Optimizer::Sgd) return {64};
  if (o == Optimizer::Momentum) return {110, 64, 64};
  return {64, 110, 48, 64, 96, 110, 48};
}

}  // namespace

namespace {
// The operation weight decay adds to an unfused update (0 or 1 a tensor) and, run foreach, its
// tensor limit a launch: _foreach_add(grads, params) writes a third list (depth 3: 48),
// _foreach_mul_(params, scalar) one (depth 1: 110).
int weight_decay_ops(const FrameworkSpec& fw) {
  return fw.weight_decay != WeightDecay::None && fw.optimizer_launches != OptimizerLaunches::Fused ? 1 : 0;
}
int weight_decay_max_tensors(const FrameworkSpec& fw) { return fw.weight_decay == WeightDecay::L2 ? 48 : 110; }
}  // namespace

int optimizer_launches(Optimizer o, const FrameworkSpec& fw, int tensors, double params) {
  if (fw.mode == FrameworkMode::Graph || fw.optimizer_launches == OptimizerLaunches::PerTensor)
    return tensors * (optimizer_kernels_per_tensor(o, fw.mode) + (fw.mode == FrameworkMode::Eager ? weight_decay_ops(fw) : 0));
  if (tensors <= 0) return 0;
  int n = 0;
  for (int max_tensors : multi_tensor_ops(o, fw.optimizer_launches))
    n += multi_tensor_launches(max_tensors, tensors, params);
  if (weight_decay_ops(fw)) n += multi_tensor_launches(weight_decay_max_tensors(fw), tensors, params);
  return n;
}

int zero_grad_launches(const FrameworkSpec& fw, int tensors, double params) {
  if (fw.optimizer_launches == OptimizerLaunches::PerTensor || tensors <= 0) return std::max(tensors, 0);
  return multi_tensor_launches(110, tensors, params);
}

Seconds zero_grad_host_s(const FrameworkSpec& fw, int tensors) {
  return tensors * (fw.optimizer_launches == OptimizerLaunches::PerTensor ? kHostTensorOp_s : kHostForeachTensorOp_s);
}

Bytes optimizer_traffic_bytes(Optimizer o, const FrameworkSpec& fw) {
  if (fw.mode == FrameworkMode::Graph || fw.optimizer_launches == OptimizerLaunches::Fused)
    return optimizer_update_bytes(o);
  const Bytes decay = !weight_decay_ops(fw) ? 0 : fw.weight_decay == WeightDecay::L2 ? 12 : 8;
  if (o == Optimizer::Sgd) return optimizer_update_bytes(o) + decay;
  if (o == Optimizer::Momentum) return 32 + decay;
  return (fw.optimizer_launches == OptimizerLaunches::PerTensor ? 80 : 72) + decay;
}

Seconds optimizer_host_s(Optimizer o, const FrameworkSpec& fw, int tensors) {
  if (fw.mode == FrameworkMode::Graph) return 0;
  if (fw.optimizer_launches == OptimizerLaunches::PerTensor)
    return tensors * (optimizer_kernels_per_tensor(o, fw.mode) + weight_decay_ops(fw)) * kHostTensorOp_s;
  return tensors * double(multi_tensor_ops(o, fw.optimizer_launches).size() + weight_decay_ops(fw)) *
         kHostForeachTensorOp_s;
}

// Eager: PyTorch 1.13's training loop around a one-parameter model (zero_grad, forward, backward,
// SGD step) took 36.5, 37.4 and 38.4 us per iteration in three runs on this project's 2-core
// machine, nothing else running (calibration/torch/eager_overhead.py): 37 us. The kernels' own
// launches are counted per kernel (compute.kernel_overhead_us).
// Graph: one session or function call per step; not measured here (TensorFlow is not packaged in
// Debian), so 0: a graph runner's per-step cost is in its kernels' launches.
Seconds default_step_overhead_s(FrameworkMode m) { return m == FrameworkMode::Eager ? 37e-6 : 0; }

Seconds step_overhead_s(const FrameworkSpec& fw) {
  return fw.step_overhead_s >= 0 ? fw.step_overhead_s : default_step_overhead_s(fw.mode);
}

FrameworkCosts framework_costs(const Execution& e, const System& sys, int nodes, int gpus_per_node) {
  FrameworkCosts c;
  c.step_overhead_s = step_overhead_s(e.fw);
  const int ranks = nodes * gpus_per_node;
  if (ranks <= 1) return c;
  // CPU ranks: the calibration measured a CPU whose memory rate the device table does not hold,
  // so copies are not costed there.
  if (!sys.compute.cpu_ranks()) {
    c.copies = e.fw.copies;
    c.copy_Bps = sys.device.mem_bw_Bps * sys.compute.memory_efficiency;
    c.per_launch_s = sys.compute.kernel_overhead_s;
  }
  if (e.fw.negotiates) {
    // One round costs the route's latency and software overhead (across nodes if there are several).
    const Route route = nodes > 1 ? sys.cluster.inter_route() : sys.cluster.intra_route();
    c.negotiation_s = 2 * std::ceil(std::log2(double(ranks))) * route.step_latency_s();
  }
  return c;
}

}  // namespace cost_layer
}  // namespace ddlsim
