// Stragglers: a synchronous exchange waits for the slowest rank. Two kinds of variation:
//  * between devices of one model (static: manufacturing and power management give every GPU its
//    own pace; the same GPU is the slowest on every micro-batch), standard deviation `spread`;
//  * run to run (each micro-batch draws afresh), coefficient of variation `cv`.
// Over a synchronisation period of k micro-batches of compute T each, rank i computes
//   k T (1 + spread X_i + cv/sqrt(k) W_i),   X_i, W_i independent standard normals,
// a normal of standard deviation k T sqrt(spread^2 + cv^2/k) (k micro-batches' run-to-run
// variations partly cancel; a slow device's do not). Each synchronisation adds the expected lead
// of the slowest of p ranks:
//   wait = k T sqrt(spread^2 + cv^2 / k) E_p,   E_p = E[max of p standard normals]
// (spread = 0 gives T cv sqrt(k) E_p). E_1 = 0, E_2 = 1/sqrt(pi).
#pragma once
#include "core/units.hpp"
#include "system/system.hpp"

namespace ddlsim {
inline namespace cost_layer {

// E[max of n independent standard normals] = integral of x n phi(x) Phi(x)^(n-1) dx (Simpson's rule).
double expected_max_std_normal(int n);

// Speed spread between GPUs of one model when compute.device_spread is not given. Sinha et al.,
// "Not All GPUs Are Created Equal", SC22 (arXiv 2208.11035): across V100/MI60 clusters (Summit,
// Vortex, Longhorn, Frontera, Corona), 8 % average performance variation between GPUs of one SKU
// (the fastest to the slowest GPU that is not an outlier; outliers up to 1.5x slower are left
// out). Read as the whiskers of a normal (+-2.698 sigma, Tukey's 1.5 IQR), the range is 5.396
// sigma: sigma = 0.08 / 5.396 = 0.0148.
constexpr double kGpuDeviceSpread = 0.08 / 5.396;

// A GPU's step-to-step variation when compute.jitter_cv is not given: 43 PyTorch training steps
// measured on one lent H100 (calibration/measured/h100-zoo-steps.csv: 22 zoo models, 10 or 20
// steps each) and one lent H200 (h200-torch-steps.csv: 7 steps, 20 each). Each run's coefficient of
// variation, read as a normal's, is (p90 - p10) / (2 x 1.2816) / median step; over the 43 runs it
// has its median at kGpuStepJitterCv and its 10th and 90th percentiles at kGpuStepJitterCvP10 and
// kGpuStepJitterCvP90 (tests/stragglers_test.cpp recomputes them). GPU-bound steps (VGG, ViT, TF32
// ResNet-50) vary by 0.1-1 %; steps that wait on the host's launches (MobileNet, EfficientNet,
// DenseNet) by 5-15 %.
constexpr double kGpuStepJitterCv = 0.0429;
constexpr double kGpuStepJitterCvP10 = 0.0022;
constexpr double kGpuStepJitterCvP90 = 0.0888;

// The variation that applies: compute.jitter_cv when given; 0 for CPU ranks of a `cpu`
// calibration (not measured); else kGpuStepJitterCv.
double jitter_cv(const ComputeTuning& t);

// The spread that applies: compute.device_spread when given; 0 for CPU ranks of a `cpu`
// calibration (one machine's cores share its clock); else kGpuDeviceSpread.
double device_spread(const ComputeTuning& t);

// Per synchronisation: `compute_s` is one micro-batch's forward + backward time on one rank.
Seconds straggler_wait_s(Seconds compute_s, double cv, double spread, int sync_period, int ranks);

}  // namespace cost_layer
}  // namespace ddlsim
