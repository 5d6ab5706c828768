#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

#include "core/args.hpp"
#include "cli/commands.hpp"
#include "core/output.hpp"
#include "core/error.hpp"
#include "predict/rests_on.hpp"
#include "report/report.hpp"
#include "report/trace.hpp"
#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace cli_layer {

int cmd_simulate(const Args& args) {
  po::options_description own("simulate options");
  own.add_options()("format", po::value<std::string>()->default_value("table"), "table, csv or json")(
      "output,o", po::value<std::string>()->default_value(""), "write the report to FILE")(
      "trace", po::value<std::string>()->default_value(""), "write a Chrome trace-event timeline to FILE.json")(
      "explain-uncertainty", "the table also gives each uncertain input's values, step times and source")(
      "overlay", po::value<std::vector<std::string>>()->composing(),
      "scenario-format file of keys applied over FILE (e.g. from `ddlsim fit`); repeatable");
  const ParsedArgs pa = parse_args(args, own, "simulate");
  if (pa.positional.size() > 1) throw InputError("ddlsim simulate: expected one scenario file, got " +
                                                 std::to_string(pa.positional.size()));
  const Format format = parse_format(pa.vm["format"].as<std::string>());
  const std::string file = pa.positional.empty() ? "" : pa.positional.front();
  const std::vector<std::string> overlays =
      pa.vm.count("overlay") ? pa.vm["overlay"].as<std::vector<std::string>>() : std::vector<std::string>{};
  const ScenarioInput in = read_scenario(file, overlays, pa.overrides);
  // Said to a person at a terminal (a script reads the prediction alone).
  if (file.empty() && ::isatty(STDERR_FILENO))
    std::cerr << "ddlsim simulate: note: no scenario file given: the built-in defaults (`ddlsim keys` lists them; "
                 "scenarios/default.ini is a file to start from)\n";
  if (!in.sweep.empty())
    std::cerr << "ddlsim simulate: note: the [sweep] section is ignored here; run `ddlsim sweep " << file << "`\n";
  const Scenario sc = resolve_scenario(in.settings, dir_of(file));
  Prediction p = predict(sc);
  if (format == Format::Table) p.rests_on = rests_on(sc);
  p.uncertainty = prediction_uncertainty(sc, p);
  if (!p.fits_in_memory)
    std::cerr << fmt::format("ddlsim simulate: warning: the step needs about {:.1f} GiB per GPU and the device has "
                             "{:.1f} GiB; it would not fit (docs/model.md: memory; compute.memory_gib sets the capacity)\n",
                             p.memory_per_gpu_bytes / kGiB, p.device_memory_bytes / kGiB);
  OutputSet out;
  out.add(pa.vm["output"].as<std::string>(), render_prediction(p, format, pa.vm.count("explain-uncertainty") > 0));
  const std::string trace = pa.vm["trace"].as<std::string>();
  if (!trace.empty()) out.add(trace, chrome_trace_json(p));
  out.commit();
  return 0;
}

}  // namespace cli_layer
}  // namespace ddlsim
