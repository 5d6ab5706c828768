#include "compare/comparison.hpp"

#include "scenario/resolve.hpp"

#include <algorithm>
#include <cmath>

namespace ddlsim {
inline namespace compare_layer {

ErrorStats error_stats(const std::vector<double>& signed_errors) {
  ErrorStats s;
  s.n = int(signed_errors.size());
  if (s.n == 0) return s;
  for (double e : signed_errors) {
    s.mape += std::fabs(e);
    s.bias += e;
    s.max_abs = std::max(s.max_abs, std::fabs(e));
  }
  s.mape /= s.n;
  s.bias /= s.n;
  return s;
}

double relative_error(double predicted, double measured) { return (predicted - measured) / measured; }

double metric_of(const Prediction& p, Metric m) {
  switch (m) {
    case Metric::EpochTime: return p.epoch_time_s;
    case Metric::StepTime: return p.step_time_s;
    case Metric::SamplesPerSecond: return p.samples_per_s;
  }
  return 0;
}

Settings config_settings(const Settings& base, const MeasuredConfig& c) {
  Settings s = base;
  for (const auto& v : c.values) s[v.key] = Setting{v.value, v.origin, false};
  return s;
}

std::vector<Scenario> resolve_configs(const MeasuredSet& set, const Settings& base, const std::string& base_dir) {
  std::vector<Scenario> out;
  out.reserve(set.configs.size());
  for (const auto& c : set.configs) out.push_back(resolve_scenario(config_settings(base, c), base_dir));
  return out;
}

namespace {

// Keys that grow with the cluster: the node and GPU counts, and the parameter servers (one per
// node, or one per GPU) a strategy places on them.
bool is_scale_key(const std::string& k) {
  return k == "cluster.nodes" || k == "cluster.gpus_per_node" || k == "comm.ps_servers";
}

bool same_but_scale(const MeasuredConfig& a, const MeasuredConfig& b) {
  if (a.values.size() != b.values.size()) return false;
  for (std::size_t i = 0; i < a.values.size(); ++i)
    if (!is_scale_key(a.values[i].key) && a.values[i].value != b.values[i].value) return false;
  return true;
}

double scaled(double ref, int ref_ranks, int ranks, Metric m) {
  switch (m) {
    case Metric::SamplesPerSecond: return ref * ranks / ref_ranks;
    case Metric::EpochTime: return ref * ref_ranks / ranks;
    case Metric::StepTime: return ref;
  }
  return ref;
}

void add_stats(Comparison& c) {
  std::vector<double> all, model_scaled, base_scaled;
  for (const auto& r : c.rows) {
    all.push_back(r.error);
    if (!r.baseline) continue;
    model_scaled.push_back(r.error);
    base_scaled.push_back(r.baseline_error);
  }
  c.model = error_stats(all);
  c.model_scaled = error_stats(model_scaled);
  c.baseline_scaled = error_stats(base_scaled);
}

}  // namespace

void add_baselines(Comparison& c, Metric metric) {
  for (auto& r : c.rows) {
    int best = -1;
    for (std::size_t j = 0; j < c.rows.size(); ++j) {
      const auto& o = c.rows[j];
      if (o.prediction.ranks >= r.prediction.ranks || !same_but_scale(o.measured, r.measured)) continue;
      if (best < 0 || o.prediction.ranks < c.rows[best].prediction.ranks) best = int(j);
    }
    if (best < 0) continue;
    const auto& ref = c.rows[best];
    r.reference = best;
    r.baseline = scaled(ref.measured.mean, ref.prediction.ranks, r.prediction.ranks, metric);
    r.baseline_error = relative_error(*r.baseline, r.measured.mean);
  }
  add_stats(c);
}

Comparison compare_with(const MeasuredSet& set, const std::vector<Prediction>& predictions) {
  Comparison c;
  c.measured_file = set.file;
  c.metric = set.metric;
  for (std::size_t i = 0; i < set.configs.size(); ++i) {
    ComparedConfig r;
    r.measured = set.configs[i];
    r.prediction = predictions.at(i);
    r.predicted = metric_of(r.prediction, set.metric);
    r.error = relative_error(r.predicted, r.measured.mean);
    c.rows.push_back(std::move(r));
  }
  add_baselines(c, set.metric);
  return c;
}

Comparison compare_predictions(const MeasuredSet& set, const std::vector<Scenario>& scenarios) {
  std::vector<Prediction> predictions;
  predictions.reserve(scenarios.size());
  for (const auto& sc : scenarios) predictions.push_back(predict(sc));
  return compare_with(set, predictions);
}

}  // namespace compare_layer
}  // namespace ddlsim
