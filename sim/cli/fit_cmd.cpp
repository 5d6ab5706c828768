// ddlsim fit MEASURED.csv --scenario BASE.ini [--params inter_bw,inter_latency,compute]
//   [--overlay-out FILE.ini] [--format table|csv|json] [--output FILE] [--strict]
#include <fmt/format.h>

#include <cmath>

#include "cli/commands.hpp"
#include "cli/compare_options.hpp"
#include "core/output.hpp"
#include "compare/compare_report.hpp"
#include "compare/effective_fit.hpp"
#include "compare/bench_output.hpp"
#include "compare/regression.hpp"
#include "core/files.hpp"
#include "core/error.hpp"
#include "core/text.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace cli_layer {

namespace {

using nlohmann::ordered_json;

ordered_json regression_json(const RegressionFit& f) {
  ordered_json j;
  j["group"] = f.group;
  j["kind"] = f.kind;
  j["n"] = f.n;
  if (!f.note.empty()) {
    j["note"] = f.note;
    return j;
  }
  ordered_json c, se;
  for (std::size_t i = 0; i < f.terms.size(); ++i) {
    c[f.terms[i]] = f.coefficients[i];
    se[f.terms[i]] = f.std_errors[i];
  }
  j["coefficients"] = c;
  j["std_errors"] = se;
  j["r2"] = f.r2;
  j["adjusted_r2"] = f.adjusted_r2;
  j["residuals"] = f.residuals;
  return j;
}

}  // namespace

nlohmann::ordered_json effective_json(const EffectiveFit& eff) {
  ordered_json j;
  ordered_json params = ordered_json::array();
  for (const auto& p : eff.params) {
    ordered_json e = {{"name", p.name}, {"key", p.key}, {"before", p.before}, {"after", p.after},
                      {"identifiable", p.identifiable}, {"note", p.note}};
    if (p.has_interval) {
      e["se_log10"] = p.se_log10;
      e["ci95_low"] = p.ci_lo;
      e["ci95_high"] = p.ci_hi;
    }
    if (!p.warning.empty()) e["warning"] = p.warning;
    params.push_back(e);
  }
  j["effective"] = params;
  j["degrees_of_freedom"] = eff.dof;
  ordered_json corr = ordered_json::array();
  for (const auto& row : eff.correlation) {
    ordered_json r = ordered_json::array();
    for (double v : row) r.push_back(std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr));
    corr.push_back(r);
  }
  j["correlation"] = corr;
  j["error_before"] = stats_record(eff.before);
  j["error_after"] = stats_record(eff.after);
  return j;
}

namespace {

std::string render_fit_json(const std::vector<RegressionFit>& regs, const EffectiveFit& eff) {
  ordered_json j;
  ordered_json r = ordered_json::array();
  for (const auto& f : regs) r.push_back(regression_json(f));
  j["regressions"] = r;
  j.update(effective_json(eff));
  return j.dump(2) + "\n";
}

// Correlations between the fitted parameters (latency and bandwidth trade off against each other).
std::string render_correlation(const EffectiveFit& eff) {
  std::string out;
  for (std::size_t a = 0; a < eff.params.size(); ++a)
    for (std::size_t b = a + 1; b < eff.params.size(); ++b) {
      const double r = eff.correlation.empty() ? NAN : eff.correlation[a][b];
      if (std::isfinite(r))
        out += fmt::format("  correlation {} / {}: {:+.3f}\n", eff.params[a].name, eff.params[b].name, r);
    }
  return out;
}

// One row per regression coefficient and per effective parameter.
std::string render_fit_csv(const std::vector<RegressionFit>& regs, const EffectiveFit& eff) {
  std::string out = "kind,group,term,value,std_error,ci95_low,ci95_high,r2,adjusted_r2,note\n";
  for (const auto& f : regs)
    for (std::size_t i = 0; i < f.coefficients.size(); ++i)
      out += fmt::format("{},{},{},{},{},,,{},{},\n", f.kind, csv_escape(f.group), f.terms[i],
                         format_number(f.coefficients[i]), format_number(f.std_errors[i]), format_number(f.r2),
                         format_number(f.adjusted_r2));
  for (const auto& p : eff.params)
    out += fmt::format("effective,,{},{},{},{},{},,,{}\n", p.key, format_number(p.after),
                       p.has_interval ? format_number(p.se_log10) + " (log10)" : "",
                       p.has_interval ? format_number(p.ci_lo) : "", p.has_interval ? format_number(p.ci_hi) : "",
                       csv_escape(p.warning.empty() ? p.note : p.warning));
  return out;
}

}  // namespace

std::string render_effective(const EffectiveFit& eff) {
  std::string out;
  for (const auto& p : eff.params) {
    const std::string ci = p.has_interval ? fmt::format("95 % [{:.4g}, {:.4g}]", p.ci_lo, p.ci_hi) : "no interval";
    out += fmt::format("  {:<14} {:<26} {:>12.6g} -> {:<12.6g} {:<28} {}\n", p.name, p.key, p.before, p.after, ci,
                       p.note.empty() ? "" : "(" + p.note + ")");
    if (!p.warning.empty()) out += "    warning: " + p.warning + "\n";
  }
  out += fmt::format("  ({} degrees of freedom; intervals assume the model right and the relative errors "
                     "independent and alike)\n", eff.dof);
  return out + render_correlation(eff);
}

void check_strict(const EffectiveFit& eff) {
  for (const auto& p : eff.params) {
    if (!p.warning.empty()) throw InputError("fit --strict: " + p.key + " = " + p.warning);
    if (p.note.rfind("at the edge", 0) == 0)
      throw InputError(fmt::format("fit --strict: {} = {:.6g} is {}: the data do not pin it down", p.key, p.after,
                                   p.note));
  }
}

namespace {

std::string render_fit_table(const std::vector<RegressionFit>& regs, const EffectiveFit& eff, const std::string& metric) {
  std::string out = fmt::format("Regression models of {} (least squares over every row)\n\n", metric);
  for (const auto& f : regs) {
    out += fmt::format("  {:<40} {:<9} ", f.group, f.kind);
    if (!f.note.empty()) {
      out += "(" + f.note + ")\n";
      continue;
    }
    std::string eq;
    for (std::size_t i = 0; i < f.terms.size(); ++i)
      eq += fmt::format("{}{:.6g}{}", i == 0 ? "" : " + ", f.coefficients[i], f.terms[i] == "1" ? "" : " " + f.terms[i]);
    double max_res = 0;
    for (double r : f.residuals) max_res = std::max(max_res, std::fabs(r));
    std::string se;
    for (std::size_t i = 0; i < f.terms.size(); ++i) se += fmt::format("{}{} {:.3g}", i ? ", " : "", f.terms[i], f.std_errors[i]);
    out += fmt::format("R^2 = {:.4f}  adjusted {:.4f}  n = {}  max |residual| = {:.4g}\n      {} = {}\n"
                       "      standard errors: {}\n", f.r2, f.adjusted_r2, f.n, max_res, metric, eq, se);
  }
  out += "\nEffective parameters (least squares on relative errors of the configuration means)\n\n";
  out += render_effective(eff);
  out += "\n  before: " + stats_line(eff.before) + "\n  after:  " + stats_line(eff.after) + "\n";
  return out;
}

}  // namespace

int cmd_fit(const Args& args) {
  po::options_description own = measured_options("fit");
  own.add_options()("params", po::value<std::string>()->default_value("inter_bw,inter_latency,compute"),
                    "comma-separated: inter_bw, inter_latency, intra_bw, intra_latency, tcp_thread, compute (nccl-tests "
                    "logs: the four links', and tcp_thread where NCCL runs over TCP sockets)")(
      "overlay-out", po::value<std::string>()->default_value(""), "write the fitted values as an overlay INI")(
      "format", po::value<std::string>()->default_value("table"), "table, csv or json")(
      "strict", po::bool_switch(),
      "exit 2, writing nothing, when a fitted value is outside its physical range or at the edge of its search range")(
      "output,o", po::value<std::string>()->default_value(""), "write the report to FILE");
  own.add_options()("op", po::value<std::string>(), "nccl-tests logs: the collective (else from their text)")(
      "train-max-nodes", po::value<int>()->default_value(0),
      "nccl-tests logs: fit on those of at most N nodes, score the larger ones (0: fit on every log)");
  const ParsedArgs pa = parse_args(args, own, "fit");
  const Format format = parse_format(pa.vm["format"].as<std::string>());
  if (!pa.positional.empty() && is_bench_output(read_text_file(pa.positional.front(), "measured file")))
    return fit_collective_logs(pa, format);
  for (const char* only_logs : {"op", "train-max-nodes"})
    if (!pa.positional.empty() && pa.vm.count(only_logs) && !pa.vm[only_logs].defaulted())
      throw InputError(std::string("ddlsim fit: --") + only_logs + " is for nccl-tests logs; " + pa.positional.front() +
                       " is a CSV of runs");
  const std::vector<std::string> names = split(pa.vm["params"].as<std::string>(), ',');
  const MeasuredInput in = read_measured_input(pa, "fit");
  const std::vector<RegressionFit> regs = fit_regressions(in.set, in.scenarios);
  const EffectiveFit eff = fit_effective(in.set, in.scenarios, names);
  if (pa.vm["strict"].as<bool>()) check_strict(eff);
  const std::string report = format == Format::Json  ? render_fit_json(regs, eff)
                             : format == Format::Csv ? render_fit_csv(regs, eff)
                                                     : render_fit_table(regs, eff, to_string(in.set.metric));
  const std::string overlay = pa.vm["overlay-out"].as<std::string>();
  OutputSet out;
  if (!overlay.empty()) out.add(overlay, overlay_text(eff, in.set.file, in.scenario_file));
  out.add(pa.vm["output"].as<std::string>(), report);
  out.commit();
  return 0;
}

}  // namespace cli_layer
}  // namespace ddlsim
