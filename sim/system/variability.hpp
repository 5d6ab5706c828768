// How GPUs of one model vary, when the scenario does not say (compute.device_spread,
// compute.jitter_cv): the defaults cost/stragglers.hpp composes into each synchronisation's wait,
// and the ends of their 80 % interval (predict/uncertainty.hpp).
#pragma once

namespace ddlsim {
inline namespace system_layer {

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

}  // namespace system_layer
}  // namespace ddlsim
