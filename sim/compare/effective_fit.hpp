// Effective parameters that make the simulator match measured runs: link bandwidth and latency
// per link class (inter-node, intra-node) and the compute speed of the device, shared by every
// configuration, found by least squares on the relative errors of the configuration means:
//   minimise sum_i ((predicted_i(theta) - measured_i) / measured_i)^2.
// Each parameter is first searched alone in log space (a 49-point scan over four decades either
// side of the start, then golden section; in turn, until none moves by 1e-7 relative): a start
// that does not depend on a local method. Then all identifiable parameters are refined jointly
// in log10 space by GSL's trust-region least squares (compare/least_squares.hpp), whose
// covariance s^2 (J^T J)^-1 gives each parameter a standard error (in log10), a 95 % interval
// (Student's t with n - p degrees of freedom, back-transformed: asymmetric in the value) and the
// correlations between parameters. The interval assumes the model is right and the relative
// errors independent and alike.
#pragma once
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "compare/comparison.hpp"

namespace ddlsim {
inline namespace compare_layer {

struct FitParameter {
  std::string name;    // inter_bw, inter_latency, intra_bw, intra_latency, compute
  std::string key;     // scenario key the overlay sets (cluster.inter_bw_GBps ...)
  double before = 0;   // in the key's unit
  double after = 0;
  bool identifiable = true;  // false: changing it does not change any prediction
  std::string note;
  bool has_interval = false; // a standard error could be estimated (identifiable, n > p)
  double se_log10 = 0;       // standard error of log10(after)
  double ci_lo = 0, ci_hi = 0;  // 95 % interval, in the key's unit
  std::string warning;       // the value is outside its physical range (set by fit_effective)
};

struct EffectiveFit {
  std::vector<FitParameter> params;
  std::vector<std::vector<double>> correlation;
  int dof = 0;
  ErrorStats before;
  ErrorStats after;
  std::vector<Prediction> predictions;  // with the fitted parameters, one per configuration
};

// One parameter shared by every configuration, read and written in the unit of its key. `set`
// writes a value into a fresh copy of a configuration's base system (it may look at that system,
// e.g. change only multi-GPU ones, or scale the base's own value): nothing is remembered between
// calls. A parameter is a property of the system: the fit copies each base's model and strategy
// once, and only the system for each evaluation.
struct SharedParameter {
  std::string name;
  std::string key;
  std::function<double(const Scenario&)> get;   // its value in a base scenario: the fit's start
  std::function<void(System&, double)> set;
  double lo = 0, hi = HUGE_VAL;                 // allowed range: the key's declared bounds (scenario/keys.cpp);
                                                // the search spans four decades either side of the start within it
  std::string held_because;                     // non-empty: kept at its start, this the reason the report gives
};
// The parameter behind a `--params` name; throws InputError for an unknown one.
SharedParameter shared_parameter(const std::string& name, const std::vector<Scenario>& scenarios);

// Fit and score are separate steps:
//   fitted = fit_parameters(train rows, their base scenarios, parameters)
//   scenarios = apply_parameters(any rows' base scenarios, parameters, fitted)
//   compare_predictions(those rows, scenarios)       (comparison.hpp: the score)
// Scoring the rows a fit was made on gives an in-sample figure; say so where it is reported.
struct FittedParameters {
  std::vector<FitParameter> params;  // one per parameter, in order
  ErrorStats before;                 // on the training rows, at the starting values
  ErrorStats after;                  // on the training rows, at the fitted values
  std::vector<std::vector<double>> correlation;  // between parameters (NaN where not estimated)
  int dof = 0;                       // configurations - identifiable parameters
};

FittedParameters fit_parameters(const MeasuredSet& train, const std::vector<Scenario>& bases,
                                const std::vector<SharedParameter>& params);

// What a fit matches, in general: one measured value a configuration and the model's prediction of
// it from the configuration's scenario (bases[i] with the parameters set).
struct FitTarget {
  std::vector<double> measured;
  std::function<double(std::size_t i, const Scenario& s)> predicted;
  // Keep a parameter the runs do not determine (no 95 % interval, or one wider than a factor
  // kDeterminedRatio) at its starting value and fit the others again, least determined first.
  bool keep_undetermined = false;
};
constexpr double kDeterminedRatio = 4;  // an interval within a factor 2 either way of the value
inline constexpr const char* kUndeterminedNote =
    "not determined by these runs (95 % interval wider than a factor 4, or none); kept as it was";
// A measured set's metric, predicted by the step model (what fit_parameters above matches).
FitTarget step_target(const MeasuredSet& set);
FittedParameters fit_parameters(const FitTarget& target, const std::vector<Scenario>& bases,
                                const std::vector<SharedParameter>& params);

// The fitted values for reports, each bandwidth checked against its link's line rate in `any`
// (FitParameter::warning); no predictions.
EffectiveFit effective_of(const FittedParameters& fitted, const Scenario& any);

// Every base scenario with the fitted values set (identifiable or not: a value that moved nothing is its start).
std::vector<Scenario> apply_parameters(const std::vector<Scenario>& bases, const std::vector<SharedParameter>& params,
                                       const FittedParameters& fitted);

// `ddlsim fit`: fits the named parameters on every configuration and reports the predictions with
// them (an in-sample score). A fitted bandwidth above its link's line rate (system/platform.hpp)
// gets a warning: the data want something the model's other parts do not give them. Throws InputError for an unknown name, or for `compute` when the
// configurations disagree on compute.throughput (a CSV column sets it) so one shared value cannot
// be written.
EffectiveFit fit_effective(const MeasuredSet& set, const std::vector<Scenario>& scenarios,
                           const std::vector<std::string>& names);

// The fitted values as a scenario-format overlay for `simulate --overlay` / `compare --overlay`.
std::string overlay_text(const EffectiveFit& fit, const std::string& measured_file, const std::string& scenario_file);

}  // namespace compare_layer
}  // namespace ddlsim
