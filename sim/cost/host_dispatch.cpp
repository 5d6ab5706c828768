#include "cost/host_dispatch.hpp"

#include <algorithm>

#include "cost/compute.hpp"

namespace ddlsim {
inline namespace cost_layer {

namespace {

// The host and the GPU clocks as kernels are issued and run (host_dispatch.hpp).
struct Clocks {
  Seconds per_kernel_s;
  Seconds host = 0;
  Seconds gpu = 0;

  // Issues `kernels` kernels of `gpu_s` in all; returns the GPU time they now take. Work counted
  // without kernels (a calibrated layer the roofline gives none) runs as soon as the GPU is free.
  Seconds run(Seconds gpu_s, int kernels) {
    if (kernels <= 0) {
      gpu += gpu_s;
      return gpu_s;
    }
    const Seconds first = host + per_kernel_s;
    host += kernels * per_kernel_s;
    const Seconds end = std::max(std::max(gpu, first) + gpu_s, host + gpu_s / kernels);
    const Seconds took = end - gpu;
    gpu = end;
    return took;
  }
};

}  // namespace

int step_kernels(const ComputeProfile& p) {
  int n = p.optimizer_kernels;
  for (const LayerCost& l : p.layers) n += l.fwd_kernels + l.bwd_kernels;
  return n;
}

void apply_host_floor(ComputeProfile& p, HostTimes host) {
  if (host.per_kernel_s <= 0 || step_kernels(p) <= 0) return;
  const Seconds gpu_alone = p.forward_s() + p.backward_s() + p.optimizer_s;
  Clocks c{host.per_kernel_s};
  for (LayerCost& l : p.layers) l.fwd_s = c.run(l.fwd_s, l.fwd_kernels);
  for (auto l = p.layers.rbegin(); l != p.layers.rend(); ++l) l->bwd_s = c.run(l->bwd_s, l->bwd_kernels);
  const Seconds after_backward_host = c.host, after_backward_gpu = c.gpu;
  if (host.sync_before_update) c.host = std::max(c.host, c.gpu);
  c.per_kernel_s = p.optimizer_kernels > 0 ? host.update_s / p.optimizer_kernels : 0;
  p.optimizer_s = c.run(p.optimizer_s, p.optimizer_kernels);
  p.host_wait_share = c.gpu > 0 ? 1 - gpu_alone / c.gpu : 0;
  // Accumulating instead of updating: the same clocks after the backward pass (no kernels where the
  // backward pass adds into zeroed gradients itself: accumulate_s 0, compute.cpp zero_gradients).
  int tensors = 0;
  for (const LayerCost& l : p.layers) tensors += p.accumulate_s > 0 ? l.grad_tensors : 0;
  Clocks acc{host.per_kernel_s, after_backward_host, after_backward_gpu};
  p.accumulate_s = acc.run(p.accumulate_s, tensors);
}

}  // namespace cost_layer
}  // namespace ddlsim
