// ddlsim fit MEASURED.csv --scenario BASE.ini [--params inter_bw,inter_latency,compute]
//   [--overlay-out FILE.ini] [--format table|json] [--output FILE]
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/compare_options.hpp"
#include "core/output.hpp"
#include "compare/compare_report.hpp"
#include "compare/effective_fit.hpp"
#include "compare/regression.hpp"
#include "core/error.hpp"
#include "core/text.hpp"

namespace po = boost::program_options;

namespace ddlsim {

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
  ordered_json c;
  for (std::size_t i = 0; i < f.terms.size(); ++i) c[f.terms[i]] = f.coefficients[i];
  j["coefficients"] = c;
  j["r2"] = f.r2;
  j["residuals"] = f.residuals;
  return j;
}

std::string render_fit_json(const std::vector<RegressionFit>& regs, const EffectiveFit& eff) {
  ordered_json j;
  ordered_json r = ordered_json::array();
  for (const auto& f : regs) r.push_back(regression_json(f));
  j["regressions"] = r;
  ordered_json params = ordered_json::array();
  for (const auto& p : eff.params)
    params.push_back({{"name", p.name}, {"key", p.key}, {"before", p.before}, {"after", p.after},
                      {"identifiable", p.identifiable}, {"note", p.note}});
  j["effective"] = params;
  j["error_before"] = stats_record(eff.before);
  j["error_after"] = stats_record(eff.after);
  return j.dump(2) + "\n";
}

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
    out += fmt::format("R^2 = {:.4f}  n = {}  max |residual| = {:.4g}\n      {} = {}\n", f.r2, f.n, max_res, metric, eq);
  }
  out += "\nEffective parameters (least squares on relative errors of the configuration means)\n\n";
  for (const auto& p : eff.params)
    out += fmt::format("  {:<14} {:<26} {:>12.6g} -> {:<12.6g} {}\n", p.name, p.key, p.before, p.after,
                       p.note.empty() ? "" : "(" + p.note + ")");
  out += "\n  before: " + stats_line(eff.before) + "\n  after:  " + stats_line(eff.after) + "\n";
  return out;
}

}  // namespace

int cmd_fit(const Args& args) {
  po::options_description own = measured_options("fit");
  own.add_options()("params", po::value<std::string>()->default_value("inter_bw,inter_latency,compute"),
                    "comma-separated: inter_bw, inter_latency, intra_bw, intra_latency, compute")(
      "overlay-out", po::value<std::string>()->default_value(""), "write the fitted values as an overlay INI")(
      "format", po::value<std::string>()->default_value("table"), "table or json")(
      "output,o", po::value<std::string>()->default_value(""), "write the report to FILE");
  const ParsedArgs pa = parse_args(args, own, "fit");
  const Format format = parse_format(pa.vm["format"].as<std::string>());
  if (format == Format::Csv) throw InputError("ddlsim fit: --format csv is not offered; use table or json");
  const std::vector<std::string> names = split(pa.vm["params"].as<std::string>(), ',');
  const MeasuredInput in = read_measured_input(pa, "fit");
  const std::vector<RegressionFit> regs = fit_regressions(in.set, in.scenarios);
  const EffectiveFit eff = fit_effective(in.set, in.scenarios, names);
  const std::string report = format == Format::Json ? render_fit_json(regs, eff)
                                                    : render_fit_table(regs, eff, to_string(in.set.metric));
  const std::string overlay = pa.vm["overlay-out"].as<std::string>();
  OutputSet out;
  if (!overlay.empty()) out.add(overlay, overlay_text(eff, in.set.file, in.scenario_file));
  out.add(pa.vm["output"].as<std::string>(), report);
  out.commit();
  return 0;
}

}  // namespace ddlsim
