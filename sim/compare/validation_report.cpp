#include "compare/validation_report.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "compare/compare_report.hpp"

namespace ddlsim {
inline namespace compare_layer {

using nlohmann::ordered_json;

namespace {

std::string value(const MeasuredConfig& c, const char* key) {
  const std::string* v = c.find(key);
  return v ? *v : "";
}

ordered_json coverage_json(const Coverage& c) {
  ordered_json j;
  j["n"] = c.n;
  j["inside"] = c.inside;
  j["share"] = c.n ? ordered_json(c.share()) : ordered_json(nullptr);
  j["median_half_width"] = c.n ? ordered_json(c.median_half_width()) : ordered_json(nullptr);
  return j;
}

// "41 % of 186 (median half-width 1.9 %)", or "-" without rows.
std::string coverage_cell(const Coverage& c) {
  return c.n ? fmt::format("{:.0f} % of {} (median half-width {:.1f} %)", 100 * c.share(), c.n,
                           100 * c.median_half_width())
             : std::string("-");
}

std::string gpus(const MeasuredConfig& c) {
  const std::string n = value(c, "cluster.nodes"), g = value(c, "cluster.gpus_per_node");
  return fmt::format("{}x{}", n.empty() ? "1" : n, g.empty() ? "1" : g);
}

// The roofline's prediction of row i of the group: its 1-GPU rows, in order; null for the others.
const ComparedConfig* roofline_of(const GroupResult& g, std::size_t i) {
  std::size_t k = 0;
  for (std::size_t r = 0; r < i; ++r)
    if (g.comparison.rows[r].prediction.nodes * g.comparison.rows[r].prediction.gpus_per_node == 1) ++k;
  const Prediction& p = g.comparison.rows[i].prediction;
  if (p.nodes * p.gpus_per_node != 1 || k >= g.roofline.rows.size()) return nullptr;
  return &g.roofline.rows[k];
}

// Row i of the group: the in-sample prediction, then the a-priori and leave-one-model-out ones,
// and for a 1-GPU row the roofline's alone.
ordered_json row_json(const GroupResult& g, std::size_t i) {
  const ComparedConfig& r = g.comparison.rows[i];
  ordered_json j;
  j["group"] = g.group.name;
  j["model"] = value(r.measured, "model.name");
  j["framework"] = value(r.measured, "training.framework");
  j["nodes"] = r.prediction.nodes;
  j["gpus_per_node"] = r.prediction.gpus_per_node;
  j["batch_per_gpu"] = r.prediction.batch_per_gpu;
  j["data"] = value(r.measured, "input.format");
  j["measured_samples_per_s"] = r.measured.mean;
  j["predicted_samples_per_s"] = r.predicted;
  j["error"] = r.error;
  j["linear_samples_per_s"] = r.baseline ? ordered_json(*r.baseline) : ordered_json(nullptr);
  j["linear_error"] = r.baseline ? ordered_json(r.baseline_error) : ordered_json(nullptr);
  j["apriori_samples_per_s"] = g.a_priori.rows[i].predicted;
  j["apriori_error"] = g.a_priori.rows[i].error;
  j["loo_samples_per_s"] = g.leave_one_out.rows[i].predicted;
  j["loo_error"] = g.leave_one_out.rows[i].error;
  const ComparedConfig* roof = roofline_of(g, i);
  j["roofline_samples_per_s"] = roof ? ordered_json(roof->predicted) : ordered_json(nullptr);
  j["roofline_error"] = roof ? ordered_json(roof->error) : ordered_json(nullptr);
  j["comm_overhead"] = r.prediction.comm_overhead;
  j["input_wait_s"] = r.prediction.input_wait_s;
  return j;
}

ordered_json group_json(const GroupResult& g) {
  ordered_json j;
  j["group"] = g.group.name;
  j["scenario"] = g.group.scenario;
  j["fitted_parameter"] = g.fitted.name;
  j["fitted_meaning"] = g.group.why;
  j["fitted_before"] = g.fitted.before;
  j["fitted_after"] = g.fitted.after;
  j["model_synthetic"] = stats_record(g.model_synthetic);
  j["linear_synthetic"] = stats_record(g.baseline_synthetic);
  j["model_real"] = stats_record(g.model_real);
  j["linear_real"] = stats_record(g.baseline_real);
  j["apriori_synthetic"] = stats_record(g.apriori.synthetic);
  j["apriori_real"] = stats_record(g.apriori.real);
  j["loo_synthetic"] = stats_record(g.loo.synthetic);
  j["loo_real"] = stats_record(g.loo.real);
  j["roofline_one_gpu"] = stats_record(g.roofline.model);
  j["interval_coverage_calibrated"] = coverage_json(g.coverage_calibrated);
  j["interval_coverage_roofline"] = coverage_json(g.coverage_roofline);
  return j;
}

std::string render_json(const ValidationResult& v) {
  ordered_json j;
  j["folder"] = v.folder;
  j["model_synthetic"] = stats_record(v.model_synthetic);
  j["linear_synthetic"] = stats_record(v.baseline_synthetic);
  j["model_real"] = stats_record(v.model_real);
  j["linear_real"] = stats_record(v.baseline_real);
  j["apriori_synthetic"] = stats_record(v.apriori.synthetic);
  j["apriori_real"] = stats_record(v.apriori.real);
  j["loo_synthetic"] = stats_record(v.loo.synthetic);
  j["loo_real"] = stats_record(v.loo.real);
  j["apriori_all"] = stats_record(v.apriori_all);
  j["loo_all"] = stats_record(v.loo_all);
  j["model_all"] = stats_record(v.model_all);
  j["linear_all"] = stats_record(v.baseline_all);
  j["roofline_one_gpu"] = stats_record(v.roofline);
  j["interval_coverage_calibrated"] = coverage_json(v.coverage_calibrated);
  j["interval_coverage_roofline"] = coverage_json(v.coverage_roofline);
  ordered_json groups = ordered_json::array(), rows = ordered_json::array();
  for (const auto& g : v.groups) {
    groups.push_back(group_json(g));
    for (std::size_t i = 0; i < g.comparison.rows.size(); ++i) rows.push_back(row_json(g, i));
  }
  j["groups"] = groups;
  j["rows"] = rows;
  return j.dump(2) + "\n";
}

std::string render_csv(const ValidationResult& v) {
  std::string out;
  bool header = true;
  for (const auto& g : v.groups)
    for (std::size_t i = 0; i < g.comparison.rows.size(); ++i) {
      const ordered_json j = row_json(g, i);
      std::string h, line;
      for (const auto& [k, x] : j.items()) {
        h += (h.empty() ? "" : ",") + k;
        line += (line.empty() ? "" : ",") + csv_cell(x);
      }
      if (header) out += h + "\n";
      header = false;
      out += line + "\n";
    }
  return out;
}

std::string pct(double e) { return fmt::format("{:+.1f}%", 100 * e); }

// The 1-GPU rows from datasheet peaks alone: what a user without a measurement is told.
std::string render_roofline(const ValidationResult& v) {
  std::string out = "\nRoofline alone (datasheet peaks, no 1-GPU measurement): the 1-GPU rows, synthetic and real data\n";
  out += fmt::format("   {:<17} {:>5} {:>8} {:>8} {:>8}\n", "group", "rows", "MAPE", "bias", "worst");
  auto row = [](const std::string& name, const ErrorStats& s) {
    return s.n ? fmt::format("   {:<17} {:>5} {:>6.1f} % {:>+6.1f} % {:>6.1f} %\n", name, s.n, 100 * s.mape, 100 * s.bias,
                             100 * s.max_abs)
               : fmt::format("   {:<17} {:>5} {:>8} {:>8} {:>8}\n", name, 0, "-", "-", "-");
  };
  for (const auto& g : v.groups) out += row(g.group.name, g.roofline.model);
  return out + row("all", v.roofline);
}

// How often the 80 % interval (predict/uncertainty.hpp) holds the measured throughput.
std::string render_coverage(const ValidationResult& v) {
  std::string out = "\n80 % intervals: the share of rows inside (multi-GPU rows calibrated from the 1-GPU one | every row "
                    "from the roofline)\n";
  for (const auto& g : v.groups)
    out += fmt::format("   {:<17} {:<42} | {}\n", g.group.name, coverage_cell(g.coverage_calibrated),
                       coverage_cell(g.coverage_roofline));
  return out + fmt::format("   {:<17} {:<42} | {}\n", "all", coverage_cell(v.coverage_calibrated),
                           coverage_cell(v.coverage_roofline));
}

std::string render_table(const ValidationResult& v) {
  std::string out = fmt::format("Validation: {} ({})\n", v.title, v.folder);
  for (const auto& g : v.groups) {
    out += fmt::format("\n== {} ({})\n", g.group.name, g.group.scenario);
    if (!g.fitted.name.empty())
      out += fmt::format("   fitted on this group's synthetic rows (their errors are in-sample): {} = {:.4g} "
                         "(start {:.4g}): {}\n", g.fitted.name, g.fitted.after, g.fitted.before, g.group.why);
    std::size_t w = 13;  // the model column: as wide as the group's longest name
    for (const auto& r : g.comparison.rows) w = std::max(w, value(r.measured, "model.name").size());
    out += fmt::format("   {:<{}} {:<27} {:>5} {:>5} {:<9} {:>9} {:>9} {:>7} {:>9} {:>7}\n", "model", w, "framework",
                       "gpus", "batch", "data", "measured", "ddlsim", "error", "linear", "error");
    for (const auto& r : g.comparison.rows) {
      out += fmt::format("   {:<{}} {:<27} {:>5} {:>5} {:<9} {:>9.1f} {:>9.1f} {:>7} {:>9} {:>7}\n",
                         value(r.measured, "model.name"), w, value(r.measured, "training.framework"), gpus(r.measured),
                         r.prediction.batch_per_gpu, value(r.measured, "input.format"), r.measured.mean, r.predicted,
                         pct(r.error), r.baseline ? fmt::format("{:.1f}", *r.baseline) : "-",
                         r.baseline ? pct(r.baseline_error) : "-");
    }
  }
  out += "\nMAPE of the multi-GPU rows (bias: the mean signed error of the throughput, + when ddlsim is too fast;\n"
         "ddlsim | linear scaling from the 1-GPU row):\n";
  out += fmt::format("   {:<17} {:>33} {:>33}\n", "group", "synthetic data", "real data");
  auto cell = [](const ErrorStats& m, const ErrorStats& b) {
    return m.n ? fmt::format("{:5.1f} % ({:+5.1f}) | {:5.1f} % ({:+5.1f}) ({:2})", 100 * m.mape, 100 * m.bias,
                             100 * b.mape, 100 * b.bias, m.n)
               : std::string("-");
  };
  for (const auto& g : v.groups)
    out += fmt::format("   {:<17} {:>33} {:>33}\n", g.group.name, cell(g.model_synthetic, g.baseline_synthetic),
                       cell(g.model_real, g.baseline_real));
  out += fmt::format("   {:<17} {:>33} {:>33}\n", "all", cell(v.model_synthetic, v.baseline_synthetic),
                     cell(v.model_real, v.baseline_real));
  out += "\nOut of sample: MAPE of the multi-GPU rows, synthetic data | real data\n";
  out += fmt::format("   {:<17} {:>19} {:>22} {:>19} {:>19}\n", "group", "a priori (no fit)", "leave-one-model-out",
                     "in-sample fit", "linear scaling");
  auto two = [](const ErrorStats& s, const ErrorStats& r) {
    const auto one = [](const ErrorStats& x) { return x.n ? fmt::format("{:5.1f}", 100 * x.mape) : std::string("    -"); };
    return one(s) + " | " + one(r);
  };
  auto line = [&](const std::string& name, const SplitStats& a, const SplitStats& l, const ErrorStats& ms,
                  const ErrorStats& mr, const ErrorStats& bs, const ErrorStats& br) {
    return fmt::format("   {:<17} {:>19} {:>22} {:>19} {:>19}\n", name, two(a.synthetic, a.real),
                       two(l.synthetic, l.real), two(ms, mr), two(bs, br));
  };
  for (const auto& g : v.groups)
    out += line(g.group.name, g.apriori, g.loo, g.model_synthetic, g.model_real, g.baseline_synthetic, g.baseline_real);
  out += line("all", v.apriori, v.loo, v.model_synthetic, v.model_real, v.baseline_synthetic, v.baseline_real);
  out += fmt::format("   every multi-GPU row, synthetic and real data ({}): a priori {:.1f} %, leave-one-model-out "
                     "{:.1f} %, in-sample {:.1f} %, linear scaling {:.1f} %\n",
                     v.apriori_all.n, 100 * v.apriori_all.mape, 100 * v.loo_all.mape, 100 * v.model_all.mape,
                     100 * v.baseline_all.mape);
  return out + render_roofline(v) + render_coverage(v);
}

std::string markdown_group_row(const std::string& name, const std::string& fitted, const ErrorStats& ms,
                               const ErrorStats& bs, const ErrorStats& mr, const ErrorStats& br) {
  return fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", name, fitted, mape_bias_cell(ms), mape_bias_cell(bs), ms.n,
                     mape_bias_cell(mr), mape_bias_cell(br), mr.n);
}

}  // namespace

std::string render_validation_markdown(const ValidationResult& v) {
  std::string out = "# Training throughput against published runs\n\n";
  out += "Generated by `ddlsim validate --set all --format markdown` (" + v.title + ") from the runs bundled in\n"
         "`scenarios/validation/` (each set's README and CSV give their sources); a test holds this page to the\n"
         "program's output. The multi-GPU rows' throughput, compute calibrated from each group's 1-GPU row:\n"
         "MAPE (bias, the mean signed error, both %; positive: ddlsim too fast), beside linear scaling from the\n"
         "1-GPU row. Where a group fits one parameter on its synthetic rows, its errors are in-sample; the\n"
         "second table has them out of sample.\n\n## Every group\n\n";
  out += "| group | fitted on its synthetic rows | synthetic data: ddlsim | linear scaling | n | real data: ddlsim | "
         "linear scaling | n |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& g : v.groups)
    out += markdown_group_row(g.group.name,
                              g.fitted.name.empty() ? "-" : fmt::format("{} = {:.4g}", g.fitted.name, g.fitted.after),
                              g.model_synthetic, g.baseline_synthetic, g.model_real, g.baseline_real);
  out += markdown_group_row("all", "-", v.model_synthetic, v.baseline_synthetic, v.model_real, v.baseline_real);
  out += "\n## Out of sample\n\nMAPE of the multi-GPU rows, synthetic | real data. A priori: nothing fitted; "
         "leave-one-model-out: the\ngroup's parameter fitted without the row's model.\n\n"
         "| group | a priori | leave-one-model-out | in-sample | linear scaling |\n|---|---|---|---|---|\n";
  const auto two = [](const ErrorStats& s, const ErrorStats& r) {
    const auto one = [](const ErrorStats& x) { return x.n ? fmt::format("{:.1f} %", 100 * x.mape) : std::string("-"); };
    return one(s) + " \\| " + one(r);
  };
  for (const auto& g : v.groups)
    out += fmt::format("| {} | {} | {} | {} | {} |\n", g.group.name, two(g.apriori.synthetic, g.apriori.real),
                       two(g.loo.synthetic, g.loo.real), two(g.model_synthetic, g.model_real),
                       two(g.baseline_synthetic, g.baseline_real));
  out += fmt::format("| all | {} | {} | {} | {} |\n", two(v.apriori.synthetic, v.apriori.real),
                     two(v.loo.synthetic, v.loo.real), two(v.model_synthetic, v.model_real),
                     two(v.baseline_synthetic, v.baseline_real));
  out += fmt::format("\nEvery multi-GPU row, synthetic and real data ({}): a priori {}, leave-one-model-out {}, "
                     "in-sample {},\nlinear scaling {}.\n",
                     v.apriori_all.n, mape_bias_cell(v.apriori_all), mape_bias_cell(v.loo_all), mape_bias_cell(v.model_all),
                     mape_bias_cell(v.baseline_all));
  out += "\n## The roofline alone\n\nThe 1-GPU rows from datasheet peaks, with no measurement: what a user "
         "without a 1-GPU run is told.\n\n| group | rows | MAPE (bias) | worst |\n|---|---|---|---|\n";
  const auto roof = [](const std::string& name, const ErrorStats& s) {
    return fmt::format("| {} | {} | {} | {} |\n", name, s.n, mape_bias_cell(s),
                       s.n ? fmt::format("{:.1f} %", 100 * s.max_abs) : std::string("-"));
  };
  for (const auto& g : v.groups) out += roof(g.group.name, g.roofline.model);
  out += roof("all", v.roofline);
  out += "\n## How often the interval holds the measurement\n\nThe share of rows whose measured throughput lies "
         "inside the prediction's 80 % interval\n(`simulate` reports it; docs/design.md, \"How sure a prediction "
         "is\"), and the median relative half-width,\n(p90 - p10) / 2 / point: the multi-GPU rows with compute "
         "calibrated from the group's 1-GPU row\n(nothing fitted), and every row from the roofline alone. An "
         "honest 80 % interval holds about 80 %.\n\n| group | calibrated | roofline |\n|---|---|---|\n";
  for (const auto& g : v.groups)
    out += fmt::format("| {} | {} | {} |\n", g.group.name, coverage_cell(g.coverage_calibrated),
                       coverage_cell(g.coverage_roofline));
  return out + fmt::format("| all | {} | {} |\n", coverage_cell(v.coverage_calibrated),
                           coverage_cell(v.coverage_roofline));
}

std::string render_validation(const ValidationResult& v, Format f) {
  switch (f) {
    case Format::Table: return render_table(v);
    case Format::Csv: return render_csv(v);
    case Format::Json: return render_json(v);
  }
  return "";
}

ScatterPlot validation_plot(const ValidationResult& v) {
  ScatterPlot p;
  p.title = v.title + ": predicted vs measured (multi-GPU)";
  p.unit = "images/s";
  p.series = {"ddlsim, synthetic data", "linear scaling", "ddlsim, real data"};
  p.filled = {true, false, true};
  for (const auto& g : v.groups)
    for (const auto& r : g.comparison.rows) {
      if (!r.baseline) continue;
      const std::string label = g.group.name + " " + r.measured.label();
      const std::string* data = r.measured.find("input.format");
      p.points.push_back({r.measured.mean, r.predicted, data && *data == "synthetic" ? 0 : 2, label});
      p.points.push_back({r.measured.mean, *r.baseline, 1, label + " (linear)"});
    }
  return p;
}

}  // namespace compare_layer
}  // namespace ddlsim
