// Measured runs placed beside a sweep's predictions: each measured configuration (compare's reading
// of a measured CSV: --map, --value, --metric, replications grouped) is matched to the one sweep row
// whose scenario-key cells equal its values.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "compare/measurements.hpp"
#include "study/sweep_results.hpp"

namespace ddlsim {
inline namespace study_layer {

struct MatchedRun {
  MeasuredConfig measured;
  std::optional<std::size_t> row;  // the sweep row; empty when the sweep has no such configuration
  double predicted = 0;            // the sweep's value of the measured metric
};

struct MeasuredMatch {
  std::string file;
  Metric metric = Metric::EpochTime;
  std::vector<MatchedRun> runs;  // in the measured file's order
};

// Throws InputError when a mapped key is not a column of the sweep CSV, or when a measured
// configuration matches more than one sweep row (it names the measured lines and asks for --map).
MeasuredMatch match_measured(const MeasuredSet& set, const SweepResults& sweep);

}  // namespace study_layer
}  // namespace ddlsim
