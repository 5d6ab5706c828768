#include "compare/batch_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "compare/compare_report.hpp"
#include "compare/csv_table.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {
inline namespace compare_layer {

std::string batch_band(int calibrated, int batch) {
  const int k = std::clamp(int(std::lround(std::log2(double(calibrated) / batch))), 1, 4);
  return k == 4 ? "x16+" : "x" + std::to_string(1 << k);
}

std::string model_family(const Model& m) {
  const auto has = [&](std::initializer_list<LayerKind> kinds) {
    return std::any_of(m.layers.begin(), m.layers.end(), [&](const Layer& l) {
      return std::find(kinds.begin(), kinds.end(), l.kind) != kinds.end();
    });
  };
  if (has({LayerKind::Attention})) return "transformer";
  if (has({LayerKind::Conv2D, LayerKind::DepthwiseConv2D})) return "convolutional";
  return "other";
}

namespace {

const std::vector<std::string>& family_names() {
  static const std::vector<std::string> names = {"convolutional", "transformer", "other"};
  return names;
}

const std::vector<std::string>& band_names() {
  static const std::vector<std::string> names = {"x2", "x4", "x8", "x16+"};
  return names;
}

constexpr const char* kBatchKey = "training.batch_per_gpu";

int batch_of(const MeasuredConfig& c) {
  for (const auto& v : c.values) {
    if (v.key != kBatchKey) continue;
    if (const auto n = parse_integer(v.value, 1, 1000000)) return int(*n);
    throw InputError(v.origin + " = '" + v.value + "': expected a batch from 1 to 1000000");
  }
  throw InputError((c.values.empty() ? std::string("a row") : c.values.front().origin) + ": the row sets no " + kBatchKey);
}

// The series' name: every key of the row but the batch.
std::string series_label(const MeasuredConfig& c) {
  std::string s;
  for (const auto& v : c.values)
    if (v.key != kBatchKey) s += (s.empty() ? "" : " ") + v.key + "=" + v.value;
  return s;
}

// Each configuration predicted from its scenario (per-GPU samples/s); the scenario must run one GPU.
struct Predicted {
  std::vector<Scenario> scenarios;
  Comparison comparison;
  double samples_per_s(std::size_t i) const { return comparison.rows[i].predicted; }
};
Predicted predicted(const MeasuredSet& set, const Settings& base, const std::string& folder) {
  Predicted p;
  p.scenarios = resolve_configs(set, base, folder);
  for (std::size_t i = 0; i < p.scenarios.size(); ++i)
    if (p.scenarios[i].system.ranks() != 1)
      throw InputError(set.configs[i].values.front().origin + ": the row runs " +
                       std::to_string(p.scenarios[i].system.ranks()) +
                       " GPUs; expected one (cluster.nodes = cluster.gpus_per_node = 1)");
  p.comparison = compare_predictions(set, p.scenarios);
  return p;
}

// One group's rows (one scenario, one role) as series.
std::vector<BatchSeries> run_group(const CsvTable& group_rows, const std::string& folder, const std::string& scenario,
                                   const std::vector<std::string>& overrides) {
  const MeasuredSet set = read_measured(group_rows, {}, "samples_per_s");
  const Settings base = read_scenario(folder + "/" + scenario, overrides).settings;
  const Predicted prior = predicted(set, base, folder);
  std::map<std::string, std::vector<std::size_t>> by_series;
  std::vector<std::string> order;
  for (std::size_t i = 0; i < set.configs.size(); ++i) {
    const std::string label = series_label(set.configs[i]);
    if (!by_series.count(label)) order.push_back(label);
    by_series[label].push_back(i);
  }
  std::vector<BatchSeries> out;
  for (const std::string& label : order) {
    std::vector<std::size_t> idx = by_series[label];
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return batch_of(set.configs[a]) > batch_of(set.configs[b]); });
    if (idx.size() < 2) continue;  // nothing to predict
    const MeasuredConfig& cal = set.configs[idx.front()];
    MeasuredSet calibrated = set;
    calibrated.configs.clear();
    for (std::size_t i : idx) {
      MeasuredConfig c = set.configs[i];
      const std::string origin = cal.values.front().origin + ": the series' largest batch";
      c.values.push_back({"compute.throughput", fmt::format("{:.17g}", cal.mean), origin});
      c.values.push_back({"compute.throughput_batch", std::to_string(batch_of(cal)), origin});
      calibrated.configs.push_back(c);
    }
    const Predicted after = predicted(calibrated, base, folder);
    BatchSeries s;
    s.label = label;
    s.family = model_family(prior.scenarios[idx.front()].model);
    s.calibrated_batch = batch_of(cal);
    s.coverage = interval_coverage(after.comparison, after.scenarios,
                                   [&](const ComparedConfig& r) { return batch_of(r.measured) != s.calibrated_batch; });
    for (std::size_t k = 0; k < idx.size(); ++k) {
      const MeasuredConfig& c = set.configs[idx[k]];
      const int b = batch_of(c);
      if (k > 0 && b == s.calibrated_batch) continue;
      s.points.push_back({b, c.mean, prior.samples_per_s(idx[k]), after.samples_per_s(k),
                          k == 0 ? "" : batch_band(s.calibrated_batch, b)});
    }
    out.push_back(s);
  }
  return out;
}

std::vector<BatchBand> pool(const std::vector<const BatchSeries*>& series) {
  std::vector<BatchBand> out;
  for (const std::string& band : band_names()) {
    std::vector<double> prior, cal, base;
    for (const BatchSeries* s : series)
      for (const BatchPoint& p : s->points) {
        if (p.band != band) continue;
        prior.push_back(relative_error(p.a_priori, p.measured));
        cal.push_back(relative_error(p.calibrated, p.measured));
        base.push_back(relative_error(s->points.front().measured, p.measured));
      }
    out.push_back({band, error_stats(prior), error_stats(cal), error_stats(base)});
  }
  return out;
}

std::string cell(const CsvTable& t, const CsvRow& r, const char* column) {
  return trim(r.cells[std::size_t(t.column(column))]);
}

}  // namespace

BatchValidation run_batch_validation(const std::string& folder, const std::vector<std::string>& overrides) {
  const CsvTable all = read_csv_file(folder + "/runs.csv");
  for (const char* c : {"group", "role", "scenario", "source"})
    if (all.column(c) < 0) throw InputError(all.file + ":1: missing column '" + std::string(c) + "'");
  std::vector<std::string> groups;
  std::map<std::string, CsvTable> rows;
  std::map<std::string, std::pair<std::string, std::string>> meta;  // group -> role, scenario
  for (const CsvRow& r : all.rows) {
    const std::string g = cell(all, r, "group"), role = cell(all, r, "role"), scenario = cell(all, r, "scenario");
    if (role != "dev" && role != "held_out")
      throw InputError(all.where(r, all.column("role")) + ": role = '" + role + "': expected dev or held_out");
    if (!rows.count(g)) {
      groups.push_back(g);
      rows[g] = all;
      rows[g].rows.clear();
      meta[g] = {role, scenario};
    } else if (meta[g] != std::make_pair(role, scenario)) {
      throw InputError(all.where(r, all.column("group")) + ": group '" + g + "' has another role or scenario on an earlier row");
    }
    rows[g].rows.push_back(r);
  }
  BatchValidation v;
  std::vector<const BatchSeries*> dev, held;
  for (const std::string& g : groups) {
    for (BatchSeries& s : run_group(rows[g], folder, meta[g].second, overrides)) {
      s.group = g;
      s.role = meta[g].first;
      s.source = cell(all, rows[g].rows.front(), "source");
      v.series.push_back(s);
    }
  }
  for (const BatchSeries& s : v.series) {
    (s.role == "dev" ? dev : held).push_back(&s);
    (s.role == "dev" ? v.dev_coverage : v.held_out_coverage).add(s.coverage);
  }
  v.dev = pool(dev);
  v.held_out = pool(held);
  const auto by_family = [](const std::vector<const BatchSeries*>& series) {
    std::vector<FamilyBands> out;
    for (const std::string& f : family_names()) {
      std::vector<const BatchSeries*> of;
      for (const BatchSeries* s : series)
        if (s->family == f) of.push_back(s);
      if (!of.empty()) out.push_back({f, pool(of)});
    }
    return out;
  };
  v.dev_families = by_family(dev);
  v.held_out_families = by_family(held);
  return v;
}

namespace {

std::string bands_md(const std::vector<BatchBand>& bands) {
  std::string t = "| batch smaller by | n | a priori (roofline) | calibrated at the largest batch | as measured at the "
                  "largest batch |\n|---|---|---|---|---|\n";
  for (const BatchBand& b : bands)
    t += fmt::format("| {} | {} | {} | {} | {} |\n", b.band, b.calibrated.n, mape_bias_cell(b.a_priori),
                     mape_bias_cell(b.calibrated), mape_bias_cell(b.baseline));
  return t;
}

// The same bands per model family, the bands no row falls in left out.
std::string families_md(const std::vector<FamilyBands>& families) {
  std::string t = "\nPer model family:\n\n| family | batch smaller by | n | a priori (roofline) | calibrated at "
                  "the largest batch | as measured at the largest batch |\n|---|---|---|---|---|---|\n";
  for (const FamilyBands& f : families)
    for (const BatchBand& b : f.bands)
      if (b.calibrated.n > 0)
        t += fmt::format("| {} | {} | {} | {} | {} | {} |\n", f.family, b.band, b.calibrated.n,
                         mape_bias_cell(b.a_priori), mape_bias_cell(b.calibrated), mape_bias_cell(b.baseline));
  return t;
}

std::string coverage_md(const Coverage& c) {
  if (c.n == 0) return "";
  return fmt::format("\nThe calibrated predictions' 80 % interval holds {} of the {} smaller batches ({:.0f} %), median "
                     "half-width {:.1f} %.\n",
                     c.inside, c.n, 100 * c.share(), 100 * c.median_half_width());
}

std::string signed_pct(double predicted, double measured) {
  return fmt::format("{:+.1f} %", 100 * relative_error(predicted, measured));
}

}  // namespace

std::string render_batch_validation(const BatchValidation& v, Format f) {
  if (f == Format::Json) {
    nlohmann::ordered_json j;
    const auto bands = [](const std::vector<BatchBand>& bs) {
      nlohmann::ordered_json a = nlohmann::ordered_json::array();
      for (const BatchBand& b : bs)
        a.push_back({{"band", b.band}, {"a_priori", stats_record(b.a_priori)}, {"calibrated", stats_record(b.calibrated)},
                     {"baseline", stats_record(b.baseline)}});
      return a;
    };
    j["series"] = nlohmann::ordered_json::array();
    for (const BatchSeries& s : v.series) {
      nlohmann::ordered_json pts = nlohmann::ordered_json::array();
      for (const BatchPoint& p : s.points)
        pts.push_back({{"batch", p.batch}, {"band", p.band}, {"measured_samples_per_s", p.measured},
                       {"a_priori_samples_per_s", p.a_priori}, {"calibrated_samples_per_s", p.calibrated}});
      j["series"].push_back({{"group", s.group}, {"role", s.role}, {"family", s.family}, {"series", s.label},
                             {"source", s.source}, {"calibrated_batch", s.calibrated_batch}, {"points", pts}});
    }
    const auto coverage = [](const Coverage& c) {
      return nlohmann::ordered_json{{"n", c.n}, {"inside", c.inside},
                                    {"median_half_width", c.n ? c.median_half_width() : 0.0}};
    };
    const auto families = [&](const std::vector<FamilyBands>& fs) {
      nlohmann::ordered_json a = nlohmann::ordered_json::array();
      for (const FamilyBands& f : fs) a.push_back({{"family", f.family}, {"bands", bands(f.bands)}});
      return a;
    };
    j["dev"] = bands(v.dev);
    j["held_out"] = bands(v.held_out);
    j["dev_families"] = families(v.dev_families);
    j["held_out_families"] = families(v.held_out_families);
    j["dev_interval_coverage"] = coverage(v.dev_coverage);
    j["held_out_interval_coverage"] = coverage(v.held_out_coverage);
    return j.dump(2) + "\n";
  }
  std::string out =
      "# Throughput at the batch nobody measured\n\n"
      "Generated by `ddlsim validate --set batch` from the published single-GPU training throughputs in\n"
      "`scenarios/validation/batch/` (runs.csv, its README for the sources); a test holds this page to the\n"
      "program's output. Each series (one model, GPU, precision and framework at several per-GPU batches) is\n"
      "calibrated at its largest batch (`compute.throughput` and `compute.throughput_batch` from that row)\n"
      "and its smaller batches predicted. Per factor of batch change: throughput MAPE (bias, the mean signed\n"
      "error, both %; negative: ddlsim too slow), beside the roofline alone and the throughput a GPU\n"
      "measured at the largest batch; then how often the calibrated prediction's 80 % interval holds the\n"
      "measurement (the interval widens with the octaves between the asked batch and the calibrated one, at\n"
      "the development series' own rate: predict/uncertainty.hpp kBatchOctaveLogTimeP10/P90).\n";
  out += "\n## Development sources, pooled\n\n" + bands_md(v.dev) + families_md(v.dev_families) +
         coverage_md(v.dev_coverage);
  out += "\n## Held-out source, pooled (set aside before its numbers were looked at)\n\n" + bands_md(v.held_out) +
         families_md(v.held_out_families) + coverage_md(v.held_out_coverage);
  for (const BatchSeries& s : v.series) {
    out += fmt::format("\n## {} ({}, {})\n\n`{}`; calibrated at batch {}; source: {}\n\n", s.group,
                       s.role == "dev" ? "development" : "held out", s.family, s.label, s.calibrated_batch, s.source);
    out += "| batch | measured samples/s | a priori | error | calibrated | error |\n|---|---|---|---|---|---|\n";
    for (const BatchPoint& p : s.points)
      out += fmt::format("| {}{} | {:.4g} | {:.4g} | {} | {:.4g} | {} |\n", p.batch, p.band.empty() ? " (calibration)" : "",
                         p.measured, p.a_priori, signed_pct(p.a_priori, p.measured), p.calibrated,
                         p.band.empty() ? "-" : signed_pct(p.calibrated, p.measured));
  }
  return out;
}

}  // namespace compare_layer
}  // namespace ddlsim
