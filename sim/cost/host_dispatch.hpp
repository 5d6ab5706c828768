// The host as a bottleneck (compute.host_step_ms): an eager framework issues every kernel from the
// CPU (Python, the dispatcher, autograd, the launch), and where the GPU runs a kernel faster than
// the host issues the next, the GPU waits. Measured on an NVIDIA H200 with PyTorch 2.11 and AMP:
// BERT-base at 32 x 128 tokens kept its GPU busy 58 % of the step, EfficientNet-B0 63 %
// (calibration/torch/step_profile.py; docs/design.md "The harness on a GPU").
//
// The user gives the host's time for one step (forward, backward, update), measured where the GPU
// is no bottleneck (a tiny batch), spread evenly over the kernels ddlsim counts; or its time per
// kernel of the layers ddlsim counts (compute.host_kernel_us; an eager framework's default below),
// the update then issued at the optimizer's own host cost (cost/framework_costs.hpp). The host
// runs ahead of the GPU and never waits for it; a layer's GPU work starts once the GPU is free and
// its first kernel has been issued, and ends no sooner than its last kernel's share after that
// kernel was issued:
//   issue_l = H + k_l h,  start_l = max(E, H + h),  E_l = max(start_l + g_l, issue_l + g_l / k_l)
// (H the host's clock, E the GPU's, h the host time a kernel, g_l and k_l the layer's GPU time and
// kernels), through the forward layers in order, the backward layers in reverse, then the update.
// Each layer's time becomes E_l - E_{l-1}: the step composer sees a slower GPU and nothing else.
#pragma once
#include "core/units.hpp"

namespace ddlsim {
inline namespace cost_layer {

struct ComputeProfile;

// An eager framework's host time per layer kernel ddlsim counts, where the scenario gives none:
// tiny-batch training steps (the GPU idle most of the step) of PyTorch 2.11 with AMP on two lent
// GPU machines, each step's time less the loop's and the update's host time, over ddlsim's layer
// kernels: an H100 (EfficientNet-B0, ResNet-50, MobileNetV2 at batch 2: 32.6, 40.6, 40.7 us) and an
// H200 (BERT-base at 1 x 8 tokens, GPT-2 at 1 x 8: 43.7, 39.0 us); their mean (docs/design.md, "The
// host by default"). A second H100 machine took 30 % longer: hosts differ, give yours.
constexpr Seconds kEagerHostKernel_s = 39.3e-6;

// Kernels a step issues: every layer's forward and backward kernels and the update's.
int step_kernels(const ComputeProfile& p);

// The host's time for each layer kernel and for the whole update (issued over the update's
// kernels); zero: no floor.
struct HostTimes {
  Seconds per_kernel_s = 0;
  Seconds update_s = 0;
  // The host waits for the GPU before it issues the update: AMP's GradScaler reads whether any
  // gradient overflowed (torch/cuda/amp/grad_scaler.py _maybe_opt_step: found_inf .item()), so
  // the update's host time is not hidden behind the backward pass.
  bool sync_before_update = false;
};

// Applies the host's floor (per_kernel_s > 0; else the profile stays as it is). The accumulation of
// a micro-batch's gradients issues as many kernels as there are gradient tensors, each at
// per_kernel_s (autograd's AccumulateGrad nodes).
void apply_host_floor(ComputeProfile& p, HostTimes host);

}  // namespace cost_layer
}  // namespace ddlsim
