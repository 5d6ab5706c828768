#include "cost/framework_costs.hpp"

#include <cmath>

namespace ddlsim {

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

namespace {

bool cpu_compute(const System& sys) {
  return sys.compute.calibration && sys.compute.calibration->device_kind == "cpu";
}

}  // namespace

FrameworkCosts framework_costs(const Execution& e, const System& sys, int nodes, int gpus_per_node) {
  FrameworkCosts c;
  c.step_overhead_s = step_overhead_s(e.fw);
  const int ranks = nodes * gpus_per_node;
  if (ranks <= 1) return c;
  // CPU ranks: the calibration measured a CPU whose memory rate the device table does not hold,
  // so copies are not costed there.
  if (!cpu_compute(sys)) {
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

}  // namespace ddlsim
