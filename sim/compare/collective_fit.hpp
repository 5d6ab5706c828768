// nccl-tests logs as measurements to fit and to score (`ddlsim fit LOG... --scenario BASE.ini`):
// each log's "#  Rank" lines give its ranks and hosts, hence its nodes and GPUs a node; every size
// of every log is one configuration, predicted by predict_collective on the base scenario resolved
// with those counts, with the library's own choice per size (what the benchmark measured).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "compare/bench_output.hpp"
#include "compare/effective_fit.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {
inline namespace compare_layer {

struct CollectiveLog {
  BenchOutput out;
  Collective op = Collective::Allreduce;
  int nodes = 0, gpus_per_node = 0;
};
// `op` (--op) is the collective whatever the log says; `unsaid` only where the log's text and file
// name do not say. Throws InputError naming the file when the collective is not known, or the log
// lists no ranks, or its ranks do not spread evenly over its hosts.
CollectiveLog read_collective_log(const std::string& text, const std::string& file, std::optional<Collective> op,
                                  std::optional<Collective> unsaid = std::nullopt);

// Every size of every log, in order.
struct CollectivePoints {
  std::vector<Scenario> bases;       // the base scenario at the log's nodes and GPUs a node
  std::vector<Collective> ops;
  std::vector<Bytes> bytes;
  std::vector<double> measured_s;
  std::vector<int> nodes;
  std::vector<int> gpus_per_thread;  // nccl-tests' -g (benchmark_time_s)
  std::vector<std::string> origins;  // "file:line"
};
CollectivePoints collective_points(const std::vector<CollectiveLog>& logs, const Settings& base,
                                   const std::string& base_dir);
FitTarget collective_target(const CollectivePoints& points);
// The points of logs on at most (or, `larger`, more than) `max_nodes` nodes.
CollectivePoints points_where(const CollectivePoints& all, int max_nodes, bool larger);

// Size bands: < 1 MiB (latency-bound), 1-64 MiB (where gradient buckets live), >= 64 MiB.
const std::vector<std::string>& size_band_names();
int size_band(Bytes bytes);

struct BandScore {
  std::string band;                           // a size band, or "all"
  ErrorStats a_priori, calibrated, baseline;  // baseline: where one is given (its n says how many)
};

// Per band and over all ("all" last): the points predicted on their own scenarios (a priori) and
// on `calibrated` (one per point), and `baseline` (one per point, NaN where none).
std::vector<BandScore> score_bands(const CollectivePoints& points, const std::vector<Scenario>& calibrated,
                                   const std::vector<double>& baseline);
// Bands pooled over several sets of points (n-weighted MAPE and bias, the largest |error|).
std::vector<BandScore> pool_bands(const std::vector<std::vector<BandScore>>& sets);

// `ddlsim fit LOG...`: the link parameters fitted on the logs of at most `train_max_nodes` nodes
// (0: every log), scored per band on those points (in-sample) and, with `train_max_nodes`, on the
// larger logs beside the baseline "as measured at the largest fitted node count" (the same
// operation and size's time there; points without one are left out of the baseline's n).
// What the fit leaves of the measured time: measured / fitted time over the fitted sizes of 1 MiB
// and more (where gradient buckets are; every size when fewer than three are), its 10th and 90th
// percentiles (linear between order statistics). The overlay carries them as comm.time_p10 and
// comm.time_p90: the 80 % interval of a prediction on the fitted links (predict/uncertainty.hpp).
struct TimeSpread {
  double p10 = 1, p90 = 1;
  int n = 0;
  bool every_size = false;  // fewer than three sizes of 1 MiB and more: every size
};

struct CollectiveFit {
  EffectiveFit eff;
  std::optional<TimeSpread> time_spread;  // none with fewer than three sizes
  std::string fitted_on;             // "every log", or "logs on at most N nodes"
  std::vector<BandScore> in_sample;  // the three bands, then "all"
  int largest_fitted = 0;            // node count
  std::vector<int> scored_nodes;     // empty without train_max_nodes
  std::vector<BandScore> scale_out;
};
// The overlay `ddlsim fit LOG... --overlay-out` writes: the fitted links and the time's spread.
std::string collective_overlay_text(const CollectiveFit& f, const std::string& measured_files,
                                    const std::string& scenario_file);

// What `fit` fits by default: the links' bandwidths and latencies, and where NCCL's socket
// transport carries the traffic between nodes, its threads' rate (tcp_thread).
std::vector<std::string> default_collective_parameters(const CollectivePoints& points);

// `names`: inter_bw, inter_latency, intra_bw, intra_latency, tcp_thread. Throws InputError for
// `compute` (the logs measure no compute) and when either side of the split has no log.
CollectiveFit fit_collectives(const CollectivePoints& points, const std::vector<std::string>& names,
                              int train_max_nodes);

}  // namespace compare_layer
}  // namespace ddlsim
