// Nonlinear least squares with GSL (gsl_multifit_nlinear, trust region with Levenberg-Marquardt
// steps, Jacobian by finite differences): minimises sum_i r_i(x)^2 from a start x0 and returns the
// solution with its covariance, s^2 (J^T J)^-1 with s^2 = sum r^2 / (n - p), the usual estimate
// when the residuals' scale is unknown. GSL stays private to this file.
#pragma once
#include <functional>
#include <vector>

namespace ddlsim {
inline namespace compare_layer {

struct LeastSquares {
  std::vector<double> x;                   // the solution
  std::vector<std::vector<double>> covar;  // p x p; empty when n <= p (no degrees of freedom)
  double sum_sq = 0;                       // sum of squared residuals at x
  int dof = 0;                             // n - p
  bool converged = false;
};

// `residuals(x)` returns the n residuals at x (n >= p). `step` is the finite-difference step.
LeastSquares least_squares(const std::function<std::vector<double>(const std::vector<double>&)>& residuals,
                           const std::vector<double>& x0, std::size_t n, double step = 1e-6);

// The two-sided 95 % quantile of Student's t with `dof` degrees of freedom (GSL's cdf).
double t_quantile_95(int dof);

}  // namespace compare_layer
}  // namespace ddlsim
