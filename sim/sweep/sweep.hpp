// Full-factorial sweeps: every combination of the [sweep] values, one prediction each, streamed.
//  * Configurations are enumerated on demand from their index (the last swept key, sorted by name,
//    varies fastest), so memory does not grow with the sweep's size.
//  * Rows reach the sink in configuration order, a window at a time.
//  * Configurations that need a forked SimGrid child (simulation.backend = simgrid, or a platform
//    file) run in child processes started by the single-threaded parent, at most `jobs` at once;
//    the others run on up to `jobs` threads. The parent never forks while it has threads.
//  * A configuration that fails keeps its row, with the reason in the `error` column.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"
#include "sweep/shard.hpp"

namespace ddlsim {
inline namespace sweep_layer {

constexpr std::size_t kMaxSweepConfigs = 1000000;  // a full factorial design grows fast
constexpr int kMaxSweepJobs = 1024;

// The configurations of a sweep, computed from their index.
class SweepDesign {
 public:
  // Throws InputError (naming the [sweep] key) when there would be more than kMaxSweepConfigs.
  explicit SweepDesign(const ScenarioInput& in);
  // A fixed list (tests, `compare`-like uses).
  explicit SweepDesign(std::vector<Settings> configs);

  // With a shard (sharded()), its rows: size() of them, config(k) its k-th.
  std::size_t size() const { return shard_.count > 1 ? shard_rows(size_, shard_) : size_; }
  Settings config(std::size_t i) const;
  // The whole sweep's size, whatever the shard.
  std::size_t full_size() const { return size_; }
  // The same sweep restricted to one shard's configurations, in the sweep's order.
  SweepDesign sharded(const Shard& s) const;

 private:
  Settings base_;
  std::vector<std::pair<std::string, std::vector<std::string>>> factors_;  // sorted by key
  std::vector<std::string> origins_;
  std::vector<Settings> list_;  // used instead of factors_ when given
  std::size_t size_ = 0;
  Shard shard_;
};

// Refuses, before anything runs, a [sweep] list none of whose values resolves when set alone into
// the first configuration (its error naming the key): every configuration would fail. A list with
// some valid values runs, and its invalid ones give rows with their error.
void check_sweep_lists(const SweepDesign& design, const ScenarioInput& in, const std::string& base_dir);

// Every configuration in memory (small sweeps, tests); throws as SweepDesign does.
std::vector<Settings> expand_sweep(const ScenarioInput& in);

struct SweepRow {
  Settings settings;
  std::optional<nlohmann::ordered_json> record;  // prediction_record of the prediction
  std::string error;                             // set when record is empty
};

using Progress = std::function<void(std::size_t done, std::size_t total)>;
using RowSink = std::function<void(std::size_t index, const SweepRow& row)>;

struct SweepOptions {
  std::string base_dir;         // resolves relative paths of the scenario
  int jobs = 1;
  Progress progress;            // may be empty
  std::size_t first = 0;        // start here (a resumed sweep)
  bool intervals = false;       // each row with its 80 % interval (predict/uncertainty.hpp)
};

// Runs configurations first..size-1 and hands each row to `sink` in order; returns how many failed.
std::size_t run_sweep(const SweepDesign& design, const SweepOptions& opts, const RowSink& sink);

// All rows in memory (small sweeps, tests).
std::vector<SweepRow> run_sweep(const std::vector<Settings>& configs, const std::string& base_dir, int jobs,
                                const Progress& progress);

// How many configurations from `start` run before their rows are written: 2 x jobs where the first
// forks (SimGrid runs last seconds, and a sweep killed mid-window loses the window's work), else
// max(256, 16 x jobs) (analytic rows are cheap; a larger window keeps the threads busy).
std::size_t sweep_window(const SweepDesign& design, std::size_t start, int jobs);

// Tidy CSV: one row per configuration; one column per scenario key, per result (with `intervals`,
// the 10th and 90th percentiles beside each figure that has them), and `error`.
std::string sweep_csv_header(bool intervals);
std::string sweep_csv_row(const SweepRow& row, bool intervals);

// A fingerprint of the sweep (its settings and lists, canonical text, and the bytes of every file a
// value names, relative to base_dir: FNV-1a 64): a resumed sweep must be the same sweep on the same
// model, calibration and platform files.
std::string sweep_fingerprint(const ScenarioInput& in, const std::string& base_dir);

}  // namespace sweep_layer
}  // namespace ddlsim
