// ddlsim fit LOG... --scenario BASE.ini [--train-max-nodes N] [--params ...] [--overlay-out FILE.ini]
// nccl-tests logs, one per node count: the links' effective parameters fitted to every size, and,
// with --train-max-nodes, how well the small runs predict the large ones (compare/collective_fit.hpp).
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/compare_options.hpp"
#include "compare/collective_fit.hpp"
#include "compare/compare_report.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/output.hpp"
#include "core/text.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {
inline namespace cli_layer {

namespace {

using nlohmann::ordered_json;

std::string band_table(const std::vector<BandScore>& bands, bool baseline, int largest) {
  std::string out = fmt::format("  {:<10} {:>5}  {:<18} {:<18}", "band", "n", "a priori", "fitted");
  if (baseline) out += fmt::format(" {:<18} {:>5}", fmt::format("as at {} node(s)", largest), "n");
  out += "\n";
  for (const BandScore& b : bands) {
    out += fmt::format("  {:<10} {:>5}  {:<18} {:<18}", b.band, b.a_priori.n, mape_bias_cell(b.a_priori), mape_bias_cell(b.calibrated));
    if (baseline) out += fmt::format(" {:<18} {:>5}", mape_bias_cell(b.baseline), b.baseline.n);
    out += "\n";
  }
  return out;
}

ordered_json bands_json(const std::vector<BandScore>& bands, bool baseline) {
  ordered_json a = ordered_json::array();
  for (const BandScore& b : bands) {
    ordered_json j = {{"band", b.band}, {"a_priori", stats_record(b.a_priori)}, {"fitted", stats_record(b.calibrated)}};
    if (baseline) j["baseline"] = stats_record(b.baseline);
    a.push_back(j);
  }
  return a;
}

std::string render(const CollectiveFit& f, const std::vector<CollectiveLog>& logs, Format format) {
  if (format == Format::Json) {
    ordered_json j = effective_json(f.eff);
    j["fitted_on"] = f.fitted_on;
    j["in_sample"] = bands_json(f.in_sample, false);
    if (f.time_spread)
      j["time_spread"] = {{"p10", f.time_spread->p10}, {"p90", f.time_spread->p90}, {"n", f.time_spread->n},
                          {"sizes", f.time_spread->every_size ? "every size" : "1 MiB and more"}};
    if (!f.scored_nodes.empty()) {
      j["largest_fitted_nodes"] = f.largest_fitted;
      j["scored_nodes"] = f.scored_nodes;
      j["scale_out"] = bands_json(f.scale_out, true);
    }
    return j.dump(2) + "\n";
  }
  if (format == Format::Csv) {
    std::string out = "set,band,n,a_priori_mape,a_priori_bias,fitted_mape,fitted_bias,baseline_n,baseline_mape,baseline_bias\n";
    const auto rows = [&](const char* set, const std::vector<BandScore>& bands) {
      for (const BandScore& b : bands)
        out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", set, b.band, b.a_priori.n, format_number(b.a_priori.mape),
                           format_number(b.a_priori.bias), format_number(b.calibrated.mape),
                           format_number(b.calibrated.bias), b.baseline.n,
                           b.baseline.n ? format_number(b.baseline.mape) : "", b.baseline.n ? format_number(b.baseline.bias) : "");
    };
    rows("fitted", f.in_sample);
    rows("scale_out", f.scale_out);
    return out;
  }
  std::string out = fmt::format("Effective link parameters fitted to nccl-tests logs ({}):\n", f.fitted_on);
  for (const CollectiveLog& l : logs)
    out += fmt::format("  {}: {}, {} node(s) x {} GPU(s), {} sizes\n", l.out.file, to_string(l.op), l.nodes,
                       l.gpus_per_node, l.out.points.size());
  for (const CollectiveLog& l : logs)
    if (l.out.gpus_per_thread > 1)
      out += fmt::format("  note: {} ran {} GPUs from each thread (nccl-tests -g {}): each size is fitted as at least {} "
                         "issues of {:.3g} us, which a job with a process a GPU does not pay; a host slower to issue "
                         "fits a higher latency\n",
                         l.out.file, l.out.gpus_per_thread, l.out.gpus_per_thread, l.out.gpus_per_thread,
                         kNcclTestsIssuePerGpu_s * 1e6);
  out += "\n" + render_effective(f.eff);
  out += "\nTime per size band, the points fitted: MAPE (bias, mean signed error, %)\n";
  out += band_table(f.in_sample, false, 0);
  if (f.time_spread)
    out += fmt::format("\nWhat the fit leaves: measured / fitted time over the {} fitted sizes{}: 10th percentile "
                       "{:.4g}, 90th {:.4g}\n(--overlay-out writes them as comm.time_p10 and comm.time_p90: the 80 % "
                       "interval of predictions on these links)\n",
                       f.time_spread->n, f.time_spread->every_size ? "" : " of 1 MiB and more", f.time_spread->p10,
                       f.time_spread->p90);
  if (!f.scored_nodes.empty()) {
    std::string nodes;
    for (int n : f.scored_nodes) nodes += (nodes.empty() ? "" : ", ") + std::to_string(n);
    out += fmt::format("\nScale-out: fitted on {}, scored on {} node(s), beside the time as measured at {} node(s)\n",
                       f.fitted_on, nodes, f.largest_fitted);
    out += band_table(f.scale_out, true, f.largest_fitted);
  }
  return out;
}

}  // namespace

int fit_collective_logs(const ParsedArgs& pa, Format format) {
  if (!pa.vm.count("scenario")) throw InputError("ddlsim fit: --scenario BASE.ini is required");
  std::optional<Collective> op;
  if (pa.vm.count("op")) op = parse_collective(pa.vm["op"].as<std::string>(), "--op");
  std::vector<CollectiveLog> logs;
  for (const std::string& file : pa.positional) {
    const std::string text = read_text_file(file, "nccl-tests log");
    if (!is_bench_output(text))
      throw InputError(file + ": not nccl-tests output; fit takes either one CSV of runs or nccl-tests logs");
    logs.push_back(read_collective_log(text, file, op));
  }
  const int train_max = pa.vm["train-max-nodes"].as<int>();
  if (train_max < 0 || train_max > 100000)
    throw InputError(fmt::format("--train-max-nodes {}: expected 0 (fit on every log) to 100000", train_max));
  const std::string scenario_file = pa.vm["scenario"].as<std::string>();
  const auto overlays = pa.vm.count("overlay") ? pa.vm["overlay"].as<std::vector<std::string>>() : std::vector<std::string>{};
  const ScenarioInput in = read_scenario(scenario_file, overlays, pa.overrides);
  const CollectivePoints pts = collective_points(logs, in.settings, dir_of(scenario_file));
  const std::vector<std::string> names =
      pa.vm["params"].defaulted() ? default_collective_parameters(pts) : split(pa.vm["params"].as<std::string>(), ',');
  const CollectiveFit f = fit_collectives(pts, names, train_max);
  if (pa.vm["strict"].as<bool>()) check_strict(f.eff);
  std::string files;
  for (const auto& l : logs) files += (files.empty() ? "" : ", ") + l.out.file;
  OutputSet out;
  const std::string overlay = pa.vm["overlay-out"].as<std::string>();
  if (!overlay.empty()) out.add(overlay, collective_overlay_text(f, files, scenario_file));
  out.add(pa.vm["output"].as<std::string>(), render(f, logs, format));
  out.commit();
  return 0;
}

}  // namespace cli_layer
}  // namespace ddlsim
