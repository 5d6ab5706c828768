// How often the 80 % interval of a prediction (predict/uncertainty.hpp) holds the measured value:
// the share of rows inside it, and the median relative half-width (p90 - p10) / 2 / point.
#pragma once
#include <functional>
#include <vector>

#include "compare/comparison.hpp"
#include "scenario/scenario.hpp"

namespace ddlsim {
inline namespace compare_layer {

struct Coverage {
  int n = 0;        // rows scored
  int inside = 0;   // rows whose measured mean lies in [p10, p90]
  std::vector<double> half_widths;  // each row's relative half-width
  double share() const;             // inside / n (NaN without rows)
  double median_half_width() const; // NaN without rows
  void add(const Coverage& other);  // another group's rows, pooled
};

// The interval of each compared row (its prediction from scs[i]); `multi_gpu_only` skips the rows
// of one rank (a 1-GPU calibration reproduces them by construction).
Coverage interval_coverage(const Comparison& c, const std::vector<Scenario>& scs, bool multi_gpu_only);
// The same over the rows `counts` takes.
Coverage interval_coverage(const Comparison& c, const std::vector<Scenario>& scs,
                           const std::function<bool(const ComparedConfig&)>& counts);

}  // namespace compare_layer
}  // namespace ddlsim
