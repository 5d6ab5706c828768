#include "system/calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/error.hpp"

namespace ddlsim {
inline namespace system_layer {

std::vector<int> Calibration::batches() const {
  std::set<int> b;
  for (const auto& r : rows) b.insert(r.batch);
  return {b.begin(), b.end()};
}

namespace {

double line_at(double b, double b0, double t0, double b1, double t1) {
  return t0 + (t1 - t0) * (b - b0) / (b1 - b0);
}

// One time at batch b from measured (batch, time) points, ascending by batch.
double time_at(const std::vector<std::pair<int, double>>& pts, int b) {
  if (pts.size() == 1) return pts[0].second * double(b) / pts[0].first;
  std::size_t hi = 1;
  while (hi + 1 < pts.size() && pts[hi].first < b) ++hi;
  const auto& [b0, t0] = pts[hi - 1];
  const auto& [b1, t1] = pts[hi];
  const double t = line_at(b, b0, t0, b1, t1);
  if (b >= b0 && b <= b1) return t;
  const auto& near = b < b0 ? pts[hi - 1] : pts[hi];
  const double floor_s = near.second * std::min(1.0, double(b) / near.first);
  return std::max(t, floor_s);
}

// "a, b, c" (at most five names, then "...").
std::string some_layer_names(const Model& model) {
  std::string out;
  for (std::size_t i = 0; i < model.layers.size() && i < 5; ++i) out += (i ? ", " : "") + model.layers[i].name;
  return model.layers.size() > 5 ? out + ", ..." : out;
}

// A row for a layer the model does not have: a stale or edited file.
void check_no_foreign_rows(const Calibration& cal, const Model& model, const std::string& origin) {
  std::set<std::string> names;
  for (const auto& l : model.layers) names.insert(l.name);
  for (const auto& r : cal.rows) {
    if (names.count(r.layer)) continue;
    const std::string where = r.line > 0 ? fmt::format("{}:{}", origin, r.line) : origin;
    throw InputError(fmt::format("{}: layer '{}' is not in model {} (expected one of its layers: {})", where,
                                 r.layer, model.name, some_layer_names(model)));
  }
}

}  // namespace

LayerTiming layer_timing_at(const Calibration& cal, const std::string& layer, int batch, const std::string& origin) {
  std::vector<const LayerTiming*> rows;
  for (const auto& r : cal.rows)
    if (r.layer == layer) rows.push_back(&r);
  if (rows.empty())
    throw InputError(fmt::format("{}: no calibration rows for layer '{}' of model {}", origin, layer, cal.model));
  std::sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->batch < b->batch; });
  auto series = [&](double LayerTiming::*f) {
    std::vector<std::pair<int, double>> pts;
    for (auto* r : rows) pts.emplace_back(r->batch, r->*f);
    return pts;
  };
  const LayerTiming* nearest = rows.front();
  for (auto* r : rows)
    if (std::abs(r->batch - batch) < std::abs(nearest->batch - batch)) nearest = r;
  LayerTiming out = *nearest;
  out.batch = batch;
  out.fwd_s = time_at(series(&LayerTiming::fwd_s), batch);
  out.bwd_s = time_at(series(&LayerTiming::bwd_s), batch);
  return out;
}

void check_calibration_matches(const Calibration& cal, const Model& model, Precision precision,
                               const std::string& origin) {
  const double flops = model.fwd_flops_per_sample();
  const bool same_flops = std::abs(cal.model_fwd_flops - flops) <= 1e-6 * std::max(1.0, flops);
  if (cal.model != model.name || cal.model_params != model.params_total() || !same_flops)
    throw InputError(fmt::format(
        "{}: calibrated for model {} ({} parameters, {:.6g} forward operations per sample), but the "
        "scenario's model is {} ({} parameters, {:.6g}); calibrate this model (ddlsim calibrate --model ...) "
        "with the same input size and classes",
        origin, cal.model, cal.model_params, cal.model_fwd_flops, model.name, model.params_total(), flops));
  if (cal.precision != to_string(precision))
    throw InputError(fmt::format("{}: calibrated at precision {}, but model.precision is {}", origin,
                                 cal.precision, to_string(precision)));
  check_no_foreign_rows(cal, model, origin);
  std::set<std::string> names;
  for (const auto& r : cal.rows) names.insert(r.layer);
  for (const auto& l : model.layers)
    if (!names.count(l.name))
      throw InputError(fmt::format("{}: no calibration rows for layer '{}' of model {}", origin, l.name, model.name));
}

}  // namespace system_layer
}  // namespace ddlsim
