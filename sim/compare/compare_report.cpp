#include "compare/compare_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"

namespace ddlsim {
inline namespace compare_layer {

using nlohmann::ordered_json;

ordered_json stats_record(const ErrorStats& s) {
  ordered_json r;
  r["n"] = s.n;
  r["mape"] = s.mape;
  r["max_abs_error"] = s.max_abs;
  r["bias"] = s.bias;
  return r;
}

std::string mape_bias_cell(const ErrorStats& s) {
  return s.n == 0 ? "-" : fmt::format("{:.1f} % ({:+.1f})", 100 * s.mape, 100 * s.bias);
}

std::string stats_line(const ErrorStats& s) {
  if (s.n == 0) return "(no configurations)";
  return fmt::format("MAPE {:.2f} %  max {:.2f} %  bias {:+.2f} %  (n = {})", 100 * s.mape, 100 * s.max_abs,
                     100 * s.bias, s.n);
}

namespace {

ordered_json row_record(const Comparison& c, const ComparedConfig& r) {
  ordered_json j;
  for (const auto& v : r.measured.values) j[v.key] = v.value;
  j["count"] = r.measured.count();
  j["ranks"] = r.prediction.ranks;
  j["measured"] = r.measured.mean;
  j["measured_sd"] = r.measured.stddev;
  j["predicted"] = r.predicted;
  j["error"] = r.error;
  j["abs_error"] = std::fabs(r.error);
  j["baseline"] = r.baseline ? ordered_json(*r.baseline) : ordered_json(nullptr);
  j["baseline_error"] = r.baseline ? ordered_json(r.baseline_error) : ordered_json(nullptr);
  j["comm_overhead"] = r.prediction.comm_overhead;
  (void)c;
  return j;
}

std::string render_csv(const Comparison& c) {
  if (c.rows.empty()) return "";
  std::string out;
  const ordered_json first = row_record(c, c.rows.front());
  std::string header;
  for (const auto& [k, v] : first.items()) header += (header.empty() ? "" : ",") + csv_escape(k);
  out += header + "\n";
  for (const auto& r : c.rows) {
    std::string line;
    const ordered_json rec = row_record(c, r);  // items() must not outlive its object
    for (const auto& [k, v] : rec.items()) line += (line.empty() ? "" : ",") + csv_cell(v);
    out += line + "\n";
  }
  return out;
}

// The configuration label with only the keys whose values differ between configurations.
std::string short_label(const Comparison& c, const MeasuredConfig& m) {
  std::string s;
  for (const auto& v : m.values) {
    bool varies = false;
    for (const auto& r : c.rows) {
      const std::string* other = r.measured.find(v.key);
      varies = varies || !other || *other != v.value;
    }
    if (varies) s += (s.empty() ? "" : " ") + v.key + "=" + v.value;
  }
  return s.empty() ? m.label() : s;
}

std::string render_table(const Comparison& c) {
  std::string out = fmt::format("compare {} with {} (metric {})\n\n", c.measured_file, c.scenario_file, to_string(c.metric));
  std::size_t width = 48;  // at least; wider when a label is longer, so columns stay aligned
  for (const auto& r : c.rows) width = std::max(width, short_label(c, r.measured).size());
  out += fmt::format("{:>3}  {:<{}} {:>3} {:>12} {:>9} {:>12} {:>8} {:>12} {:>8}\n", "#", "configuration", width, "n",
                     "measured", "sd", "predicted", "error", "linear", "error");
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    const auto& r = c.rows[i];
    const std::string base = r.baseline ? fmt::format("{:>12.5g} {:>+7.2f}%", *r.baseline, 100 * r.baseline_error)
                                        : fmt::format("{:>12} {:>8}", "-", "-");
    out += fmt::format("{:>3}  {:<{}} {:>3} {:>12.5g} {:>9.3g} {:>12.5g} {:>+7.2f}% {}\n", i + 1,
                       short_label(c, r.measured), width, r.measured.count(), r.measured.mean, r.measured.stddev, r.predicted, 100 * r.error, base);
  }
  out += "\nmodel, every configuration:         " + stats_line(c.model) + "\n";
  out += "model, scaled configurations:       " + stats_line(c.model_scaled) + "\n";
  out += "linear scaling from the smallest:   " + stats_line(c.baseline_scaled) + "\n";
  return out;
}

}  // namespace

ordered_json comparison_json(const Comparison& c) {
  ordered_json j;
  j["measured_file"] = c.measured_file;
  j["scenario"] = c.scenario_file;
  j["metric"] = to_string(c.metric);
  j["model"] = stats_record(c.model);
  j["model_scaled"] = stats_record(c.model_scaled);
  j["baseline_scaled"] = stats_record(c.baseline_scaled);
  ordered_json rows = ordered_json::array();
  for (const auto& r : c.rows) rows.push_back(row_record(c, r));
  j["rows"] = rows;
  return j;
}

std::string render_comparison(const Comparison& c, Format f) {
  switch (f) {
    case Format::Table: return render_table(c);
    case Format::Csv: return render_csv(c);
    case Format::Json: return comparison_json(c).dump(2) + "\n";
  }
  return "";
}

ScatterPlot comparison_plot(const Comparison& c, const std::string& title) {
  ScatterPlot p;
  p.title = title;
  p.unit = to_string(c.metric);
  p.series = {"ddlsim", "linear scaling"};
  for (const auto& r : c.rows) {
    p.points.push_back({r.measured.mean, r.predicted, 0, r.measured.label()});
    if (r.baseline) p.points.push_back({r.measured.mean, *r.baseline, 1, r.measured.label() + " (linear)"});
  }
  return p;
}

}  // namespace compare_layer
}  // namespace ddlsim
