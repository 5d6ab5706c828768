#include "report/report.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

#include "core/error.hpp"
#include "core/text.hpp"

namespace ddlsim {
inline namespace report_layer {

using nlohmann::ordered_json;

Format parse_format(const std::string& text) {
  const std::string t = to_lower(text);
  if (t == "table") return Format::Table;
  if (t == "csv") return Format::Csv;
  if (t == "json") return Format::Json;
  throw InputError("--format = '" + clip(text) + "': expected table, csv or json");
}

namespace {
void check_finite(const ordered_json& rec) {
  for (const auto& [k, v] : rec.items())
    if (v.is_number_float() && !std::isfinite(v.get<double>()))
      throw std::runtime_error("result field " + k + " is not a finite number");
}

// The 80 % interval's ends of result `field`, beside it, where the prediction carries one.
void add_interval(ordered_json& r, const Prediction& p, const std::string& field) {
  if (!p.uncertainty) return;
  const Band& b = *interval_of(*p.uncertainty, field);
  r[percentile_field(field, false)] = b.p10;
  r[percentile_field(field, true)] = b.p90;
}
}  // namespace

ordered_json prediction_record(const Prediction& p) {
  ordered_json r;
  r["model"] = p.model;
  r["framework"] = p.framework;
  r["library"] = p.library;
  r["algorithm"] = p.algorithm;
  r["algorithm_run"] = p.algorithm_run;
  r["precision"] = p.precision;
  r["platform"] = p.platform;
  r["device"] = p.device;
  r["backend"] = p.backend;
  r["params_total"] = p.params_total;
  r["params_trainable"] = p.params_trainable;
  r["gradient_bytes"] = p.gradient_bytes;
  r["ranks"] = p.ranks;
  r["nodes"] = p.nodes;
  r["gpus_per_node"] = p.gpus_per_node;
  r["batch_per_gpu"] = p.batch_per_gpu;
  r["global_batch"] = p.global_batch;
  r["sync_period"] = p.sync_period;
  r["buckets"] = p.buckets;
  r["steps_per_epoch"] = p.steps_per_epoch;
  r["syncs_per_epoch"] = p.syncs_per_epoch;
  r["step_time_s"] = p.step_time_s;
  add_interval(r, p, "step_time_s");
  r["compute_time_s"] = p.compute_time_s;
  r["comm_time_s"] = p.comm_time_s;
  r["exposed_comm_s"] = p.exposed_comm_s;
  add_interval(r, p, "exposed_comm_s");
  r["input_time_s"] = p.input_time_s;
  r["input_wait_s"] = p.input_wait_s;
  r["straggler_wait_s"] = p.straggler_wait_s;
  r["epoch_time_s"] = p.epoch_time_s;
  add_interval(r, p, "epoch_time_s");
  r["total_time_s"] = p.total_time_s;
  r["samples_per_s"] = p.samples_per_s;
  add_interval(r, p, "samples_per_s");
  r["single_gpu_epoch_s"] = p.single_gpu_epoch_s;
  r["speedup"] = p.speedup;
  r["efficiency"] = p.efficiency;
  add_interval(r, p, "efficiency");
  r["comm_overhead"] = p.comm_overhead;
  r["optimizer"] = p.optimizer;
  r["sharding"] = p.sharding;
  r["activation_memory_bytes"] = p.activation_memory_bytes;
  r["memory_per_gpu_bytes"] = p.memory_per_gpu_bytes;
  r["device_memory_bytes"] = p.device_memory_bytes;
  r["fits_in_memory"] = p.fits_in_memory;
  r["interference_s"] = p.interference_s;
  r["interference"] = p.interference;
  r["per_call_s"] = p.per_call_s;
  r["staging_GBps"] = p.staging_GBps;
  r["host_contention"] = p.host_contention;
  r["contention_s"] = p.contention_s;
  r["host_wait_s"] = p.host_wait_s;
  r["framework_mode"] = p.framework_mode;
  r["framework_s"] = p.framework_s;
  r["negotiation_s"] = p.negotiation_s;
  check_finite(r);
  return r;
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_cell(const ordered_json& v) {
  if (v.is_string()) return csv_escape(v.get<std::string>());
  if (v.is_number_float()) return format_number(v.get<double>());
  if (v.is_null()) return "";
  return v.dump();
}

namespace {

// Byte counts also in MiB or GiB, for reading at a glance.
std::string pretty_value(const std::string& key, const ordered_json& v) {
  if (!v.is_number()) return v.is_string() ? v.get<std::string>() : v.dump();
  const double x = v.get<double>();
  std::string text = v.is_number_float() ? fmt::format("{:.6g}", x) : v.dump();
  const bool bytes = key.size() > 6 && key.compare(key.size() - 6, 6, "_bytes") == 0;
  if (bytes && x >= kGiB) text += fmt::format(" ({:.2f} GiB)", x / kGiB);
  else if (bytes && x >= kMiB) text += fmt::format(" ({:.1f} MiB)", x / kMiB);
  return text;
}

// Where a step goes: compute and each loss, in seconds and as a share of the step.
std::string render_breakdown(const Prediction& p) {
  const struct { const char* name; Seconds s; } parts[] = {
      {"compute", p.compute_time_s - p.contention_s - p.host_wait_s}, {"host contention", p.contention_s},
      {"host dispatch wait", p.host_wait_s},
      {"framework overhead", p.framework_s}, {"interference", p.interference_s},
      {"exposed communication", p.exposed_comm_s}, {"input wait", p.input_wait_s},
      {"stragglers", p.straggler_wait_s}};
  std::string out = "\nwhere a step goes (mean per step)\n";
  for (const auto& part : parts)
    out += fmt::format("  {:<22} {:>12.6g} s {:>6.1f} %\n", part.name, part.s, 100 * part.s / p.step_time_s);
  return out;
}

// The defaults the prediction took where the scenario said nothing (predict/rests_on.hpp).
std::string render_rests_on(const Prediction& p) {
  if (p.rests_on.empty()) return "";
  std::string out = "\nwhat it rests on that the scenario did not say (set the key, or measure it)\n";
  for (const RestsOn& r : p.rests_on) out += fmt::format("  {:<26} {}\n", r.key, r.what);
  return out;
}

// The 80 % intervals and what makes them (predict/uncertainty.hpp); with `explain`, each input's
// values, its source and how to measure it.
std::string render_uncertainty(const Prediction& p, bool explain) {
  if (!p.uncertainty) return "";
  const Uncertainty& u = *p.uncertainty;
  // Three significant digits, without an exponent from 0.001 to 999,999.
  const auto sig3 = [](double x) {
    const int mag = x != 0 ? int(std::floor(std::log10(std::fabs(x)))) : 0;
    return mag >= 6 || mag < -3 ? fmt::format("{:.3g}", x) : fmt::format("{:.{}f}", x, std::max(0, 2 - mag));
  };
  const auto line = [&](const char* name, double v, const Band& b, const char* unit) {
    return fmt::format("  {:<22} {:.4g}{} ({}-{})\n", name, v, unit, sig3(b.p10), sig3(b.p90));
  };
  std::string out = "\nhow sure (80 % interval: what the scenario does not know, below)\n";
  out += line("step time", p.step_time_s, u.step_time_s, " s");
  out += line("epoch time", p.epoch_time_s, u.epoch_time_s, " s");
  out += line("samples/s", p.samples_per_s, u.samples_per_s, "");
  out += line("efficiency", p.efficiency, u.efficiency, "");
  out += line("exposed communication", p.exposed_comm_s, u.exposed_comm_s, " s");
  if (u.inputs.empty()) return out + "  (no input it rests on has a known spread: the interval is the point)\n";
  out += "share of the step time's interval, largest first\n";
  for (const UncertaintyShare& s : u.inputs) {
    out += fmt::format("  {:<22} {:>5.1f} %  {:.3g} to {:.3g} {}; measure: {}\n", s.name, 100 * s.share, s.lo, s.hi,
                       s.unit, s.measure);
    if (explain)
      out += fmt::format("  {:<22} step {:.4g} s to {:.4g} s (analytic); source: {}\n", "", s.step_time_lo_s,
                         s.step_time_hi_s, s.source);
  }
  return out;
}

std::string render_table(const Prediction& p, bool explain) {
  std::string out;
  const ordered_json rec = prediction_record(p);
  for (const auto& [k, v] : rec.items()) out += fmt::format("{:<24} {}\n", k, pretty_value(k, v));
  return out + render_breakdown(p) + render_uncertainty(p, explain) + render_rests_on(p);
}

}  // namespace

std::string render_prediction(const Prediction& p, Format f, bool explain_uncertainty) {
  const ordered_json rec = prediction_record(p);
  switch (f) {
    case Format::Json: return rec.dump(2) + "\n";
    case Format::Csv: {
      std::string head, row;
      for (const auto& [k, v] : rec.items()) {
        head += (head.empty() ? "" : ",") + k;
        row += (row.empty() ? "" : ",") + csv_cell(v);
      }
      return head + "\n" + row + "\n";
    }
    case Format::Table: return render_table(p, explain_uncertainty);
  }
  return "";
}

}  // namespace report_layer
}  // namespace ddlsim
