// Full-factorial sweeps: every combination of the [sweep] values, one prediction each.
// A configuration that fails keeps its row, with the reason in the `error` column.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "predict/prediction.hpp"
#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {

constexpr std::size_t kMaxSweepConfigs = 1000000;  // a full factorial design grows fast
constexpr int kMaxSweepJobs = 1024;

// The configurations, in order: the last swept key (sorted by name) varies fastest.
// Throws InputError when there would be more than kMaxSweepConfigs.
std::vector<Settings> expand_sweep(const ScenarioInput& in);

struct SweepResult {
  Settings settings;
  std::optional<Prediction> prediction;
  std::string error;  // set when prediction is empty
};

using Progress = std::function<void(std::size_t done, std::size_t total)>;

// Runs every configuration on up to `jobs` threads; results keep the configurations' order.
std::vector<SweepResult> run_sweep(const std::vector<Settings>& configs, const std::string& base_dir,
                                   int jobs, const Progress& progress, const PlatformReader& read_platform);

// Tidy CSV: one row per configuration; one column per scenario key, per result, and `error`.
std::string render_sweep_csv(const std::vector<SweepResult>& results);

}  // namespace ddlsim
