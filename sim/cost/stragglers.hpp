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
#include "system/variability.hpp"

namespace ddlsim {
inline namespace cost_layer {

// E[max of n independent standard normals] = integral of x n phi(x) Phi(x)^(n-1) dx (Simpson's rule).
double expected_max_std_normal(int n);

// The defaults (kGpuDeviceSpread, kGpuStepJitterCv and its interval): system/variability.hpp.

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
