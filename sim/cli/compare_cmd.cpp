// ddlsim compare MEASURED.csv --scenario BASE.ini [--map column=section.key ...]
// ddlsim compare NCCL_TESTS_OR_OSU_OUTPUT.txt --scenario BASE.ini [--op allreduce]
#include <fmt/format.h>

#include "core/args.hpp"
#include "cli/commands.hpp"
#include "cli/compare_options.hpp"
#include "core/output.hpp"
#include "compare/collective_comparison.hpp"
#include "compare/collective_fit.hpp"
#include "compare/compare_report.hpp"
#include "core/files.hpp"
#include "core/error.hpp"
#include "report/plot_svg.hpp"
#include "scenario/resolve.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace cli_layer {

po::options_description measured_options(const std::string& command) {
  po::options_description own(command + " options");
  own.add_options()("scenario,s", po::value<std::string>(), "the base scenario (INI) every row is laid over")(
      "map", po::value<std::vector<std::string>>()->composing(), "column=section.key: a CSV column that sets a key")(
      "value", po::value<std::vector<std::string>>()->composing(),
      "column:cell=value: a cell's text stands for this scenario value (strategy:fit=tf_mirrored)")(
      "metric", po::value<std::string>()->default_value(""),
      "epoch_time_s, step_time_s or samples_per_s; COLUMN=NAME for a column named otherwise (img_s=samples_per_s)")(
      "overlay", po::value<std::vector<std::string>>()->composing(), "scenario-format file applied over the base");
  return own;
}

MeasuredInput read_measured_input(const ParsedArgs& pa, const std::string& command) {
  if (pa.positional.size() != 1) throw InputError("ddlsim " + command + ": expected one measured CSV file");
  if (!pa.vm.count("scenario")) throw InputError("ddlsim " + command + ": --scenario BASE.ini is required");
  auto list = [&](const char* name) {
    return pa.vm.count(name) ? pa.vm[name].as<std::vector<std::string>>() : std::vector<std::string>{};
  };
  MeasuredInput in;
  in.scenario_file = pa.vm["scenario"].as<std::string>();
  const ScenarioInput base = read_scenario(in.scenario_file, list("overlay"), pa.overrides);
  in.base = base.settings;
  in.set = read_measured(read_csv_file(pa.positional.front()), list("map"), pa.vm["metric"].as<std::string>(),
                        list("value"));
  in.scenarios = resolve_configs(in.set, in.base, dir_of(in.scenario_file));
  return in;
}

namespace {

// nccl-tests or OSU output: the measured collective beside its prediction on the scenario.
int compare_bench_output(const ParsedArgs& pa, const std::string& text, Format format) {
  if (!pa.vm.count("scenario")) throw InputError("ddlsim compare: --scenario BASE.ini is required");
  const std::string& file = pa.positional.front();
  const BenchOutput measured = parse_bench_output(text, file);
  std::optional<Collective> op = measured.op;
  if (pa.vm.count("op")) op = parse_collective(pa.vm["op"].as<std::string>(), "--op");
  if (!op) throw InputError(file + ": neither the text nor the file name says which collective it measured; give --op");
  const std::string scenario_file = pa.vm["scenario"].as<std::string>();
  const auto overlays = pa.vm.count("overlay") ? pa.vm["overlay"].as<std::vector<std::string>>() : std::vector<std::string>{};
  ScenarioInput in = read_scenario(scenario_file, overlays, pa.overrides);
  // nccl-tests' "#  Rank" lines say the nodes and GPUs a node it ran on: the scenario takes them
  // unless the command line gives its own (then they must agree, below).
  const auto given = [&](const char* key) { return in.settings.at(key).origin == "command line"; };
  if (measured.tool == "nccl-tests" && measured.ranks > 0 && !given("cluster.nodes") && !given("cluster.gpus_per_node")) {
    const CollectiveLog log = read_collective_log(text, file, op);
    const std::string origin = file + " (its #  Rank lines)";
    in.settings["cluster.nodes"] = Setting{std::to_string(log.nodes), origin, false};
    in.settings["cluster.gpus_per_node"] = Setting{std::to_string(log.gpus_per_node), origin, false};
  }
  Scenario sc = resolve_scenario(in.settings, dir_of(scenario_file));
  // The library's own choice per size, as the benchmark measured it.
  sc.execution.algorithm = benchmark_algorithm(sc, !in.settings.at("comm.algorithm").value.empty(), *op);
  if (measured.ranks > 0 && measured.ranks != sc.system.ranks())
    throw InputError(fmt::format("{}: nccl-tests measured {} ranks; the scenario has {} ({} nodes x {} GPUs): set "
                                 "cluster.nodes and cluster.gpus_per_node to match",
                                 file, measured.ranks, sc.system.ranks(), sc.system.nodes, sc.system.cluster.gpus_per_node));
  write_output(pa.vm["output"].as<std::string>(),
               render_collective_comparison(compare_collective(measured, sc, *op), format));
  return 0;
}

}  // namespace

int cmd_compare(const Args& args) {
  po::options_description own = measured_options("compare");
  own.add_options()("op", po::value<std::string>(), "the collective of nccl-tests or OSU output (else from its text)")(
      "format", po::value<std::string>()->default_value("table"), "table, csv or json")(
      "output,o", po::value<std::string>()->default_value(""), "write the report to FILE")(
      "plot", po::value<std::string>()->default_value(""), "write the predicted-vs-measured plot (SVG) to FILE");
  const ParsedArgs pa = parse_args(args, own, "compare");
  const Format format = parse_format(pa.vm["format"].as<std::string>());
  if (pa.positional.size() == 1) {
    const std::string text = read_text_file(pa.positional.front(), "CSV file (or nccl-tests / OSU output)");
    if (is_bench_output(text)) return compare_bench_output(pa, text, format);
  }
  const MeasuredInput in = read_measured_input(pa, "compare");
  Comparison c = compare_predictions(in.set, in.scenarios);
  c.scenario_file = display_path(in.scenario_file);
  c.measured_file = display_path(c.measured_file);
  const std::string report = render_comparison(c, format);
  const std::string plot = pa.vm["plot"].as<std::string>();
  OutputSet out;
  if (!plot.empty()) out.add(plot, render_scatter_svg(comparison_plot(c, "ddlsim vs " + c.measured_file)));
  out.add(pa.vm["output"].as<std::string>(), report);
  out.commit();
  return 0;
}

}  // namespace cli_layer
}  // namespace ddlsim
