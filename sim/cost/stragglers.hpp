// Stragglers: run-to-run variation of each rank's compute. A synchronous exchange waits for the
// slowest rank, so with per-rank compute times T (1 + cv Z_i), Z_i independent standard normals,
// each synchronisation adds the expected lead of the slowest of p ranks:
//   wait = T_k x cv_k x E[max of p standard normals]
// where T_k = k T is the compute between two synchronisations (k = sync period) and cv_k = cv / sqrt(k)
// (k micro-batches' variations partly cancel), so wait = T cv sqrt(k) E_p. E_1 = 0, E_2 = 1/sqrt(pi).
#pragma once
#include "core/units.hpp"

namespace ddlsim {

// E[max of n independent standard normals] = integral of x n phi(x) Phi(x)^(n-1) dx (Simpson's rule).
double expected_max_std_normal(int n);

// Per synchronisation: `compute_s` is one micro-batch's forward + backward time on one rank.
Seconds straggler_wait_s(Seconds compute_s, double cv, int sync_period, int ranks);

}  // namespace ddlsim
