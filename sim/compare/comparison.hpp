// Predictions beside measurements: for each measured configuration the prediction, the signed and
// absolute relative error, and the naive baseline "perfect linear scaling from the smallest
// measured configuration" (one node, or one GPU) with its error; then MAPE, maximum error and bias.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "compare/measurements.hpp"
#include "predict/prediction.hpp"
#include "scenario/resolve.hpp"
#include "scenario/scenario.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {
inline namespace compare_layer {

// Over signed relative errors e = (predicted - measured) / measured:
//   MAPE = mean |e|, max = max |e|, bias = mean e.
struct ErrorStats {
  int n = 0;
  double mape = 0;
  double max_abs = 0;
  double bias = 0;
};
ErrorStats error_stats(const std::vector<double>& signed_errors);

double relative_error(double predicted, double measured);
double metric_of(const Prediction& p, Metric m);

struct ComparedConfig {
  MeasuredConfig measured;
  Prediction prediction;
  double predicted = 0;
  double error = 0;             // signed relative error of the prediction
  std::optional<double> baseline;  // linear scaling from `reference`
  double baseline_error = 0;
  int reference = -1;           // index of the configuration scaled from (-1: none)
};

struct Comparison {
  std::string measured_file;
  std::string scenario_file;
  Metric metric = Metric::EpochTime;
  std::vector<ComparedConfig> rows;
  ErrorStats model;            // every configuration
  ErrorStats model_scaled;     // the configurations that have a baseline
  ErrorStats baseline_scaled;  // the baseline on those same configurations
};

// The scenario of every configuration: BASE settings with the configuration's keys on top (their
// origin names the CSV file, line and column, so a value the scenario cannot take is reported there).
Settings config_settings(const Settings& base, const MeasuredConfig& c);
std::vector<Scenario> resolve_configs(const MeasuredSet& set, const Settings& base, const std::string& base_dir);

// Linear-scaling baseline of each configuration: the reference is the configuration with the same
// values of every key but cluster.nodes, cluster.gpus_per_node and comm.ps_servers and the fewest ranks (fewer than
// its own). samples_per_s scales with ranks, epoch_time_s with 1 / ranks; step_time_s stays.
void add_baselines(Comparison& c, Metric metric);

Comparison compare_predictions(const MeasuredSet& set, const std::vector<Scenario>& scenarios);
// The same from predictions made elsewhere (one per configuration, in order).
Comparison compare_with(const MeasuredSet& set, const std::vector<Prediction>& predictions);

}  // namespace compare_layer
}  // namespace ddlsim
