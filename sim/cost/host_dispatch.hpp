// The host as a bottleneck (compute.host_step_ms): an eager framework issues every kernel from the
// CPU (Python, the dispatcher, autograd, the launch), and where the GPU runs a kernel faster than
// the host issues the next, the GPU waits. Measured on an NVIDIA H200 with PyTorch 2.11 and AMP:
// BERT-base at 32 x 128 tokens kept its GPU busy 58 % of the step, EfficientNet-B0 63 %
// (calibration/torch/step_profile.py; docs/design.md "The harness on a GPU").
//
// The user gives the host's time for one step (forward, backward, update), measured where the GPU
// is no bottleneck (a tiny batch), or its time per kernel ddlsim counts (compute.host_kernel_us,
// times the step's kernels); it is spread evenly over the kernels ddlsim counts. The host
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

struct ComputeProfile;

// Kernels a step issues: every layer's forward and backward kernels and the update's.
int step_kernels(const ComputeProfile& p);

// Applies the host's floor (host_step_s > 0; 0 leaves the profile as it is). The accumulation of a
// micro-batch's gradients issues as many kernels as there are gradient tensors, at the same rate.
void apply_host_floor(ComputeProfile& p, Seconds host_step_s);

}  // namespace ddlsim
