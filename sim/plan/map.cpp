#include "plan/map.hpp"

#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"
#include "plan/advise.hpp"
#include "report/plot_svg.hpp"
#include "report/report.hpp"

namespace ddlsim {
inline namespace plan_layer {

MapAxis parse_map_axis(const std::string& text, const std::string& origin) {
  const auto eq = text.find('=');
  if (eq == std::string::npos)
    throw InputError(origin + " = '" + clip(text) + "': expected KEY=LO..HI, e.g. cluster.inter_bw_GBps=0.1..100");
  MapAxis a;
  a.key = find_plan_key(trim(text.substr(0, eq)), origin);
  if (a.key.kind == KeyKind::Choice)
    throw InputError(origin + " = '" + clip(text) + "': " + a.key.name + " is a choice of names; a map needs a numeric key");
  std::tie(a.lo, a.hi) = parse_range(trim(text.substr(eq + 1)), origin + " " + a.key.name);
  check_range(a.key, a.lo, a.hi, origin + " " + a.key.name);
  a.log = false;
  return a;
}

std::pair<int, int> parse_points(const std::string& text) {
  const auto size = parse_size(text, 1000);
  if (!size || size->first < 2 || size->second < 2)
    throw InputError("--points = '" + clip(text) + "': expected NXxNY, each from 2 to 1000 (e.g. 20x20)");
  return *size;
}

std::vector<double> axis_points(const MapAxis& a) {
  std::vector<double> out;
  for (int i = 0; i < a.points; ++i) {
    const double f = double(i) / (a.points - 1);
    double v = a.log ? a.lo * std::pow(a.hi / a.lo, f) : a.lo + (a.hi - a.lo) * f;
    if (a.key.kind == KeyKind::Integer) v = std::round(v);
    if (out.empty() || v != out.back()) out.push_back(v);
  }
  return out;
}

namespace {

std::string point_text(const PlanKey& k, double v) {
  return k.kind == KeyKind::Integer ? std::to_string(std::llround(v)) : format_number(v);
}

// The zoo's models a map marks (one per family and size) at the scenario's input size and classes (those that cannot be built there are
// left out), with their parameter counts.
std::vector<ZooMark> zoo_marks(const Scenario& sc) {
  std::vector<ZooMark> out;
  const ModelOptions opts{sc.model.input.h, sc.model.input.w, sc.model.input.c, sc.model.classes};
  for (const auto& name : zoo_map_model_names()) {
    try {
      out.push_back({name, double(build_zoo_model(name, opts).params_total())});
    } catch (const InputError&) {
    }
  }
  return out;
}

}  // namespace

MapGrid compute_map(const Evaluator& ev, const MapAxis& x, const MapAxis& y, const Metric& z) {
  if (x.key.name == y.key.name) throw InputError("--y " + y.key.name + ": the same key as --x; a map needs two keys");
  for (const MapAxis* a : {&x, &y})
    if (a->log && a->lo <= 0)
      throw InputError("--log: " + a->key.name + " = " + format_number(a->lo) + ".." + format_number(a->hi) +
                       ": a log scale needs a positive range");
  MapGrid g{x, y, z, axis_points(x), axis_points(y), {}, {}, {}, "", 0};
  for (const auto* pts : {&g.xs, &g.ys})
    if (pts->size() < 2) {
      const MapAxis& a = pts == &g.xs ? x : y;
      throw InputError(std::string(pts == &g.xs ? "--x " : "--y ") + a.key.name + " = " + format_number(a.lo) + ".." +
                       format_number(a.hi) + ": fewer than two distinct " +
                       (a.key.kind == KeyKind::Integer ? "integers" : "values") + " in the range; widen it");
    }
  g.values.assign(g.xs.size() * g.ys.size(), std::numeric_limits<double>::quiet_NaN());
  g.errors.assign(g.values.size(), "");
  const bool interval = is_interval_metric(z.name);  // --z efficiency_p10: each point with its interval
  for (std::size_t iy = 0; iy < g.ys.size(); ++iy)
    for (std::size_t ix = 0; ix < g.xs.size(); ++ix) {
      const Outcome o = ev.try_at({{x.key.name, point_text(x.key, g.xs[ix])}, {y.key.name, point_text(y.key, g.ys[iy])}},
                                  interval);
      const std::size_t i = iy * g.xs.size() + ix;
      if (o.prediction) g.values[i] = metric_value(*o.prediction, z.name);
      else g.errors[i] = o.error, ++g.failed;
    }
  if (g.failed == g.values.size()) throw InputError("ddlsim map: no point of the grid could be predicted: " + g.errors.front());
  if (x.key.name == kModelParamsKey || y.key.name == kModelParamsKey) {
    g.model_note = ev.model_params_note();
    if (x.key.name == kModelParamsKey) g.marks = zoo_marks(ev.base_scenario());
  }
  return g;
}

std::string map_csv(const MapGrid& g) {
  std::string out = csv_escape(g.x.key.name) + "," + csv_escape(g.y.key.name) + "," + g.z.name + ",error\n";
  for (std::size_t iy = 0; iy < g.ys.size(); ++iy)
    for (std::size_t ix = 0; ix < g.xs.size(); ++ix) {
      const std::size_t i = iy * g.xs.size() + ix;
      out += point_text(g.x.key, g.xs[ix]) + "," + point_text(g.y.key, g.ys[iy]) + "," +
             (g.errors[i].empty() ? format_number(g.values[i]) : "") + "," + csv_escape(g.errors[i]) + "\n";
    }
  return out;
}

std::string map_summary(const MapGrid& g) {
  double lo = INFINITY, hi = -INFINITY;
  std::size_t ilo = 0, ihi = 0;
  for (std::size_t i = 0; i < g.values.size(); ++i) {
    if (!g.errors[i].empty()) continue;
    if (g.values[i] < lo) lo = g.values[i], ilo = i;
    if (g.values[i] > hi) hi = g.values[i], ihi = i;
  }
  auto where = [&](std::size_t i) {
    return fmt::format("{} = {:.5g}, {} = {:.5g}", g.x.key.name, g.xs[i % g.xs.size()], g.y.key.name,
                       g.ys[i / g.xs.size()]);
  };
  std::string out = fmt::format("map: {} over {} ({} .. {}, {}) x {} ({} .. {}, {}): {} x {} points\n", g.z.name,
                                g.x.key.name, format_number(g.x.lo), format_number(g.x.hi), g.x.log ? "log" : "linear",
                                g.y.key.name, format_number(g.y.lo), format_number(g.y.hi), g.y.log ? "log" : "linear",
                                g.xs.size(), g.ys.size());
  out += fmt::format("least {} = {:.6g} at {}\n", g.z.name, lo, where(ilo));
  out += fmt::format("greatest {} = {:.6g} at {}\n", g.z.name, hi, where(ihi));
  if (g.failed) out += fmt::format("{} points could not be predicted (error column of the CSV)\n", g.failed);
  if (!g.model_note.empty()) out += g.model_note + "\n";
  if (!g.marks.empty()) {
    out += "zoo models marked at their parameter counts:";
    for (const auto& m : g.marks) out += fmt::format(" {} {:.4g}", m.model, m.params);
    out += "\n";
  }
  return out;
}

std::string map_svg(const MapGrid& g, const std::string& title) {
  HeatMap h;
  h.title = title;
  h.x_label = g.x.key.name + (g.x.key.unit.empty() ? "" : " (" + g.x.key.unit + ")");
  h.y_label = g.y.key.name + (g.y.key.unit.empty() ? "" : " (" + g.y.key.unit + ")");
  h.z_label = g.z.name;
  h.xs = g.xs;
  h.ys = g.ys;
  h.x_log = g.x.log;
  h.y_log = g.y.log;
  h.values = g.values;
  for (const auto& m : g.marks) h.x_marks.emplace_back(m.model, m.params);
  return render_heatmap_svg(h);
}

}  // namespace plan_layer
}  // namespace ddlsim
