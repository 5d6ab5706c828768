#include "study/study_figures.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"
#include "predict/uncertainty.hpp"

namespace ddlsim {
inline namespace study_layer {

namespace {
// "key=value ..." of row i over `keys` (keys without their section); `none` without keys.
std::string label_of(const SweepResults& sw, std::size_t i, const std::vector<std::string>& keys, const char* none) {
  std::string s;
  for (const auto& k : keys) s += (s.empty() ? "" : " ") + short_key(k) + "=" + trim(sw.cell(i, k));
  return s.empty() ? none : s;
}
}  // namespace

ReportLayout report_layout(const SweepResults& sw, const LayoutRequest& req) {
  const auto swept = [&](const std::string& k) { return std::find(sw.factors.begin(), sw.factors.end(), k) != sw.factors.end(); };
  const auto refuse = [&](const std::string& option, const std::string& k) {
    std::string varied;
    for (const auto& f : sw.factors) varied += (varied.empty() ? "" : ", ") + f;
    throw InputError(option + " " + clip(k) + ": not a key this sweep varies (it varies: " +
                     (varied.empty() ? "none but the ranks" : varied) + ")");
  };
  ReportLayout l;
  if (req.facets) {
    for (const auto& k : *req.facets) {
      if (!swept(k)) refuse("--facets", k);
      if (std::find(l.facets.begin(), l.facets.end(), k) == l.facets.end()) l.facets.push_back(k);
    }
  } else {
    for (const char* k : {"model.name", "model.file", "cluster.platform", "compute.device"})
      if (swept(k)) l.facets.push_back(k);
  }
  if (!req.colour.empty()) {
    if (!swept(req.colour)) refuse("--colour", req.colour);
    if (std::find(l.facets.begin(), l.facets.end(), req.colour) != l.facets.end())
      throw InputError("--colour " + req.colour + ": it is drawn as panels (--facets); colour another key");
    l.colour = req.colour;
  }
  l.log = lookup<LogAxis>({{"auto", LogAxis::Auto}, {"y", LogAxis::Log}, {"none", LogAxis::Linear}}, req.log, "--log");
  return l;
}

std::string panel_words(const ReportLayout& l) {
  std::string s;
  for (const auto& k : l.facets) s += (s.empty() ? "" : " x ") + k;
  return s;
}

std::string panel_label(const SweepResults& sw, std::size_t row, const ReportLayout& l) {
  return label_of(sw, row, l.facets, "");
}

namespace {

// The rows of each combination of factors (a line), in order of first appearance, each sorted by
// ranks; the lines grouped into panels by the slow factors' values. Within a panel, a line's colour
// follows the value of the series factor with the most values and its dash the next one's.
struct Lines {
  std::vector<std::string> panels;        // panel titles, in order of first appearance
  std::vector<std::string> labels;        // per line: the other factors' values
  std::vector<std::size_t> panel;         // per line
  std::vector<int> colour, dash;          // per line
  std::vector<std::vector<std::size_t>> rows;
  std::string panel_words;                // "model.name x cluster.platform"
  LogAxis log = LogAxis::Auto;
};

Lines lines_of(const SweepResults& sw, const ReportLayout& layout) {
  const std::vector<std::string>& slow = layout.facets;
  std::vector<std::string> series;
  for (const auto& f : sw.factors)
    if (std::find(slow.begin(), slow.end(), f) == slow.end()) series.push_back(f);
  // Each series factor's values, in order of first appearance; the factor with the most colours.
  std::map<std::string, std::map<std::string, int>> value_index;
  for (auto i : sw.ok)
    for (const auto& f : series) value_index[f].emplace(trim(sw.cell(i, f)), int(value_index[f].size()));
  std::stable_sort(series.begin(), series.end(), [&](const auto& a, const auto& b) {
    if ((a == layout.colour) != (b == layout.colour)) return a == layout.colour;
    return value_index[a].size() > value_index[b].size();
  });
  Lines l;
  l.panel_words = panel_words(layout);
  l.log = layout.log;
  std::map<std::string, std::size_t> panel_of, line_of;
  for (auto i : sw.ok) {
    const std::string p = label_of(sw, i, slow, ""), label = label_of(sw, i, series, "all configurations");
    const auto [pit, new_panel] = panel_of.emplace(p, l.panels.size());
    if (new_panel) l.panels.push_back(p);
    const auto [it, fresh] = line_of.emplace(p + "\n" + label, l.labels.size());
    if (fresh) {
      l.labels.push_back(label);
      l.panel.push_back(pit->second);
      l.colour.push_back(series.empty() ? 1 : 1 + value_index[series[0]].at(trim(sw.cell(i, series[0]))));
      l.dash.push_back(series.size() < 2 ? 1 : 1 + value_index[series[1]].at(trim(sw.cell(i, series[1]))) % 5);
      l.rows.emplace_back();
    }
    l.rows[it->second].push_back(i);
  }
  for (auto& rows : l.rows)
    std::stable_sort(rows.begin(), rows.end(),
                     [&](auto a, auto b) { return sw.number(a, "ranks") < sw.number(b, "ranks"); });
  return l;
}

struct Quantity {
  std::string name, title, ylabel, column;
  double scale = 1;
};

// The 80 % interval's columns of a quantity (`sweep --intervals`), and whether its ends are those
// columns times the ranks (speed-up: efficiency x ranks); none for a quantity without one.
struct IntervalColumns {
  std::string p10, p90;
  bool times_ranks = false;
};
std::optional<IntervalColumns> interval_columns(const SweepResults& sw, const std::string& column) {
  const bool speedup = column == "speedup";
  const std::string of = speedup ? "efficiency" : column;
  if (!interval_of(Uncertainty{}, of)) return std::nullopt;
  IntervalColumns c{percentile_field(of, false), percentile_field(of, true), speedup};
  if (!sw.has_column(c.p10) || !sw.has_column(c.p90)) return std::nullopt;
  return c;
}

// Line k's 80 % interval, shaded in its colour; the legend names the first line's only.
CurveSeries band(const SweepResults& sw, const Lines& l, std::size_t k, const Quantity& q, const IntervalColumns& c,
                 bool first) {
  CurveSeries s{first ? "80 % interval (shaded)" : "", SeriesStyle::Band, l.colour[k], {}, l.dash[k]};
  for (auto i : l.rows[k]) {
    const double ranks = sw.number(i, "ranks"), per = c.times_ranks ? ranks : 1;
    CurvePoint p{ranks, q.scale * sw.number(i, q.column), 0};
    p.lo = q.scale * per * sw.number(i, c.p10);
    p.hi = q.scale * per * sw.number(i, c.p90);
    s.points.push_back(p);
  }
  return s;
}

const std::string kRanksLabel = "Ranks (GPUs: nodes x GPUs per node)";

CurveSeries predicted(const SweepResults& sw, const Lines& l, std::size_t k, const Quantity& q) {
  CurveSeries s{l.labels[k], SeriesStyle::Line, l.colour[k], {}, l.dash[k]};
  for (auto i : l.rows[k]) s.points.push_back({sw.number(i, "ranks"), q.scale * sw.number(i, q.column), 0});
  return s;
}

// The measured runs on line k, as error bars (mean +- standard deviation).
CurveSeries measured_on(const SweepResults& sw, const Lines& l, std::size_t k, const MeasuredMatch& m, double scale) {
  CurveSeries s{l.labels[k] + " (measured)", SeriesStyle::ErrorBars, l.colour[k], {}, l.dash[k]};
  for (const auto& run : m.runs)
    if (run.row && std::find(l.rows[k].begin(), l.rows[k].end(), *run.row) != l.rows[k].end())
      s.points.push_back({sw.number(*run.row, "ranks"), scale * run.measured.mean, scale * run.measured.stddev});
  std::sort(s.points.begin(), s.points.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
  return s;
}

CurveSeries reference(const SweepResults& sw, const std::string& title, bool linear, double scale) {
  double lo = 1e300, hi = 0;
  for (auto i : sw.ok) {
    lo = std::min(lo, sw.number(i, "ranks"));
    hi = std::max(hi, sw.number(i, "ranks"));
  }
  return {title, SeriesStyle::Reference, 0, {{lo, linear ? lo : scale, 0}, {hi, linear ? hi : scale, 0}}};
}

std::string cap_note(std::size_t shown, std::size_t total, const char* what) {
  if (shown >= total) return "";
  return " Only the first " + std::to_string(shown) + " of " + std::to_string(total) + " " + what + " are drawn.";
}

FigureSource line_source(const SweepResults& sw, const Lines& l, const Quantity& q, const MeasuredMatch* m,
                         const CurveSeries* ref) {
  LineFigure f{q.name, q.title, kRanksLabel, q.ylabel, {}, l.log};
  for (const auto& title : l.panels) f.panels.push_back({title, {}});
  const std::size_t shown = std::min(l.labels.size(), kMaxPlottedLines);
  const std::optional<IntervalColumns> interval = interval_columns(sw, q.column);
  for (std::size_t k = 0; k < shown; ++k) {
    auto& series = f.panels[l.panel[k]].series;
    if (interval) series.push_back(band(sw, l, k, q, *interval, series.empty()));
    series.push_back(predicted(sw, l, k, q));
    if (m && to_string(m->metric) == q.column) {
      CurveSeries s = measured_on(sw, l, k, *m, q.scale);
      if (!s.points.empty()) series.push_back(s);
    }
  }
  f.panels.erase(std::remove_if(f.panels.begin(), f.panels.end(), [](const LinePanel& p) { return p.series.empty(); }),
                 f.panels.end());
  if (ref)
    for (auto& p : f.panels) p.series.push_back(*ref);
  FigureSource src = line_figure_source(f);
  src.caption = q.title + ", predicted" + (f.panels.size() > 1 ? ", one panel per " + l.panel_words : "") +
                ", one line per combination of the other swept factors" +
                (interval ? ", each with its 80 % interval shaded" : "") +
                (m && to_string(m->metric) == q.column ? "; measured runs as their mean with +- one standard deviation." : ".") +
                cap_note(shown, l.labels.size(), "combinations");
  return src;
}

std::string bar_label(const SweepResults& sw, std::size_t i) {
  std::string s;
  for (const auto& f : sw.factors) s += trim(sw.cell(i, f)) + " / ";
  return s + "ranks " + trim(sw.cell(i, "ranks"));
}

// The rows that ran, grouped by combination of factors (as the lines are) and by ranks within one.
std::vector<std::size_t> bar_order(const Lines& l) {
  std::vector<std::size_t> order;
  for (const auto& rows : l.rows) order.insert(order.end(), rows.begin(), rows.end());
  return order;
}

FigureSource bars_source(const SweepResults& sw, const Lines& l) {
  std::string x = "Configuration (";
  for (const auto& f : sw.factors) x += f + " / ";
  StackedBars b{"step_breakdown", "Where the time of a training step goes", x + "ranks)", "Time per step (ms)", step_parts(), {}, {}};
  const std::vector<std::size_t> order = bar_order(l);
  const std::size_t shown = std::min(order.size(), kMaxPlottedBars);
  for (std::size_t k = 0; k < shown; ++k) {
    b.labels.push_back(bar_label(sw, order[k]));
    std::vector<double> v = step_breakdown(sw, order[k]);
    for (auto& x : v) x *= 1e3;
    b.values.push_back(v);
  }
  FigureSource src = bar_figure_source(b);
  src.caption = "Predicted time of one training step per configuration, split into compute, host contention, "
                "host dispatch wait, interference, exposed (not overlapped) communication, input wait and "
                "straggler wait; the bar's height is step_time_s." + cap_note(shown, sw.ok.size(), "configurations");
  return src;
}

}  // namespace

const std::vector<std::string>& step_parts() {
  static const std::vector<std::string> parts = {"compute",      "host contention",       "host dispatch wait",
                                                 "interference", "exposed communication", "input wait",
                                                 "straggler wait"};
  return parts;
}

std::vector<double> step_breakdown(const SweepResults& sw, std::size_t i) {
  // host_wait_s came later: a sweep CSV written before it has none.
  const double host_wait = sw.has_column("host_wait_s") ? sw.number(i, "host_wait_s") : 0;
  return {sw.number(i, "compute_time_s") - sw.number(i, "contention_s") - host_wait, sw.number(i, "contention_s"),
          host_wait, sw.number(i, "interference_s"), sw.number(i, "exposed_comm_s"), sw.number(i, "input_wait_s"),
          sw.number(i, "straggler_wait_s")};
}

std::vector<FigureSource> study_figures(const SweepResults& sw, const MeasuredMatch* m, const ReportLayout& layout) {
  const Lines l = lines_of(sw, layout);
  const CurveSeries ideal = reference(sw, "ideal (linear)", true, 1);
  const CurveSeries full = reference(sw, "ideal (100 %)", false, 100);
  std::vector<FigureSource> figs = {
      line_source(sw, l, {"epoch_time", "Epoch time against ranks", "Epoch time (s)", "epoch_time_s"}, m, nullptr),
      line_source(sw, l, {"speedup", "Speed-up over one GPU against ranks", "Speed-up (x one GPU)", "speedup"}, m, &ideal),
      line_source(sw, l, {"efficiency", "Scaling efficiency against ranks", "Scaling efficiency (%)", "efficiency", 100}, m,
                  &full)};
  if (m && m->metric == Metric::StepTime)
    figs.push_back(line_source(sw, l, {"step_time", "Step time against ranks", "Step time (ms)", "step_time_s", 1e3}, m, nullptr));
  if (m && m->metric == Metric::SamplesPerSecond)
    figs.push_back(line_source(sw, l, {"throughput", "Throughput against ranks", "Throughput (samples/s)", "samples_per_s"}, m,
                               nullptr));
  figs.push_back(bars_source(sw, l));
  return figs;
}

}  // namespace study_layer
}  // namespace ddlsim
