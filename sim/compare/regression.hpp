// The regression models users fit by hand to a scaling study: epoch time (or the measured metric)
// as a linear or quadratic function of nodes and batch size, one fit per model and strategy,
// ordinary least squares over every measured row (replications included), solved with Eigen.
#pragma once
#include <string>
#include <vector>

#include "compare/measurements.hpp"
#include "scenario/scenario.hpp"

namespace ddlsim {
inline namespace compare_layer {

struct RegressionFit {
  std::string group;               // "resnet50 / tf_mirrored k=1"
  std::string kind;                // "linear" or "quadratic"
  std::vector<std::string> terms;  // "1", "nodes", "batch", "nodes^2", "batch^2", "nodes*batch"
  std::vector<double> coefficients;
  std::vector<double> std_errors;  // of each coefficient: sqrt(s^2 (X^T X)^-1), s^2 = RSS / (n - k)
  double r2 = 0;
  double adjusted_r2 = 0;          // 1 - (1 - R^2) (n - 1) / (n - k)
  int n = 0;                       // rows fitted
  std::vector<double> residuals;   // measured - fitted, per row in file order
  std::string note;                // why a fit was skipped ("" when fitted)
};

// Terms come only from variables that vary within a group: x^2 needs three distinct values of x,
// nodes*batch needs both to vary. A fit needs more rows than terms; otherwise `note` says why.
std::vector<RegressionFit> fit_regressions(const MeasuredSet& set, const std::vector<Scenario>& scenarios);

}  // namespace compare_layer
}  // namespace ddlsim
