// `ddlsim validate`: the bundled tf_cnn_benchmarks 2017 set (scenarios/validation/). Protocol:
//  1. each row is laid over its platform group's scenario file;
//  2. compute is calibrated from the 1-GPU row of the same group, model, batch and data
//     (compute.throughput = that row's images/s, at that batch);
//  3. one shared parameter per platform group, named below, is fitted by least squares on the
//     group's synthetic-data rows (fit_parameters), then set in every row (apply_parameters);
//     nothing is tuned per row. The synthetic rows' figures are therefore in-sample; the real-data
//     rows' are not (they only share the fitted value);
//  4. every multi-GPU row is predicted from the platform and the strategy, beside the linear-scaling
//     baseline (1-GPU throughput x GPUs), three ways:
//       a priori             nothing fitted (compute calibrated from the 1-GPU row only);
//       leave-one-model-out  the group's parameter fitted on its synthetic rows of the OTHER models;
//       in-sample            fitted on the group's synthetic rows, scored on them too.
//     Only the first two say how ddlsim does on data it has not seen.
#pragma once
#include <string>
#include <vector>

#include "compare/comparison.hpp"
#include "compare/coverage.hpp"
#include "compare/effective_fit.hpp"

namespace ddlsim {
inline namespace compare_layer {

struct ValidationGroup {
  std::string name;      // the `group` column
  std::string scenario;  // file in the validation folder
  std::string parameter; // the one fitted parameter (see validation.cpp), "" for none
  std::string why;       // what it stands for physically
};

// A set of published measurements: a CSV in compare's format (with a `group` column) and one
// scenario file per group, in the validation folder.
struct ValidationSet {
  std::string name;   // `validate --set NAME`
  std::string title;
  std::string csv;    // relative to the folder
  std::vector<ValidationGroup> groups;
};

// tf2017: TensorFlow's 2017 benchmark page (one fitted parameter per group);
// published: NVIDIA DeepLearningExamples, Lambda and an Azure Horovod study, 2020-2024 (nothing
// fitted: every figure a priori).
const std::vector<ValidationSet>& validation_sets();
// `validate --set all`: every set's groups in one run, its totals over every row.
inline constexpr const char* kAllValidationSets = "all";
const ValidationSet& find_validation_set(const std::string& name, const std::string& key);

// Multi-GPU rows' errors, split by data.
struct SplitStats {
  ErrorStats synthetic, real;
};

struct GroupResult {
  ValidationGroup group;
  Comparison comparison;       // every row of the group, with the parameter fitted in-sample
  Comparison a_priori;         // every row, nothing fitted
  Comparison leave_one_out;    // every row, the parameter fitted without the row's model
  FitParameter fitted;         // name "" when the group fits nothing
  ErrorStats model_synthetic;  // multi-GPU rows, synthetic data (in-sample)
  ErrorStats baseline_synthetic;
  ErrorStats model_real;       // multi-GPU rows, real data
  ErrorStats baseline_real;
  SplitStats apriori, loo;     // the same rows, a priori and leave-one-model-out
  Comparison roofline;         // the 1-GPU rows from the roofline alone (no calibration)
  // How often the 80 % interval holds the measured value (compare/coverage.hpp): the multi-GPU
  // rows calibrated from the 1-GPU ones (nothing fitted), and every row from the roofline alone.
  Coverage coverage_calibrated, coverage_roofline;
};

struct ValidationResult {
  std::string folder;
  std::string title;
  std::vector<GroupResult> groups;
  ErrorStats model_synthetic, baseline_synthetic, model_real, baseline_real;  // over every group
  SplitStats apriori, loo;
  // Every multi-GPU row, synthetic and real data together: a priori, leave-one-model-out,
  // in-sample and linear scaling.
  ErrorStats apriori_all, loo_all, model_all, baseline_all;
  ErrorStats roofline;         // every group's 1-GPU rows, roofline alone
  Coverage coverage_calibrated, coverage_roofline;  // every group's rows pooled
};

// Runs the set in `folder` (scenarios/validation of the source tree by default); `overrides`
// (--section.key=value) apply to every group's scenario, e.g. to switch a mechanism off.
ValidationResult run_validation(const std::string& folder,
                                const std::string& set = "tf2017", const std::vector<std::string>& overrides = {});
std::string default_validation_folder();

}  // namespace compare_layer
}  // namespace ddlsim
