#include <fmt/format.h>

#include "core/args.hpp"
#include "cli/commands.hpp"
#include "core/output.hpp"
#include "core/text.hpp"
#include "core/error.hpp"
#include "report/report.hpp"
#include "scenario/settings.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace cli_layer {

int cmd_models(const Args& args) {
  po::options_description own("models options");
  own.add_options()("format", po::value<std::string>()->default_value("table"), "table, csv or json")(
      "input-size", po::value<int>(), "input height and width")("channels", po::value<int>(), "input channels")(
      "classes", po::value<int>(), "output classes")("file", po::value<std::string>(), "a model file instead");
  const ParsedArgs pa = parse_args(args, own, "models");
  if (!pa.overrides.empty()) throw InputError("ddlsim models: unexpected option " + pa.overrides.front());
  const Format format = parse_format(pa.vm["format"].as<std::string>());
  if (pa.positional.size() > 1)
    throw InputError("ddlsim models: expected one model name, got '" + pa.positional[1] + "' after '" +
                     pa.positional[0] + "'");
  // A path (a '/' or the .model suffix) is a model file, as in `calibrate --model`.
  const bool positional_file = !pa.positional.empty() && (pa.positional[0].find('/') != std::string::npos ||
                                                          pa.positional[0].find(".model") != std::string::npos);
  if (pa.vm.count("file") || positional_file) {
    if (pa.vm.count("file") && !pa.positional.empty())
      throw InputError("ddlsim models: expected a model name or --file, not both");
    const std::string file = positional_file ? pa.positional[0] : pa.vm["file"].as<std::string>();
    for (const char* opt : {"input-size", "channels", "classes"})
      if (pa.vm.count(opt))
        throw InputError(std::string("ddlsim models: --") + opt + " applies to zoo models; a model file gives its own");
    write_output("", render_model(load_model_file(file), format));
    return 0;
  }
  if (pa.positional.empty()) {
    write_output("", render_model_list(format));
    return 0;
  }
  const std::string& name = pa.positional.front();
  if (!is_zoo_model(name))
    throw InputError("ddlsim models: unknown model '" + clip(name) + "'; `ddlsim models` lists them" +
                     did_you_mean(name, zoo_model_names()));
  ModelOptions o = default_model_options(name);
  auto positive = [&](const char* opt, int& target) {
    if (!pa.vm.count(opt)) return;
    const int v = pa.vm[opt].as<int>();
    if (v < 1) throw InputError(fmt::format("ddlsim models: --{} = {}: expected a positive integer", opt, v));
    target = v;
  };
  positive("input-size", o.input_h);
  positive("input-size", o.input_w);
  positive("channels", o.input_c);
  positive("classes", o.classes);
  write_output("", render_model(build_zoo_model(name, o), format));
  return 0;
}

int cmd_keys(const Args& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h"))
    throw HelpRequested("usage: ddlsim keys\n\nEvery scenario key, its default and its meaning.\n");
  if (!args.empty()) throw InputError("ddlsim keys: takes no arguments");
  std::string out;
  for (const auto& k : scenario_keys())
    out += fmt::format("{:<28} {:<10} {}\n", k.key, k.default_value.empty() ? "(derived)" : k.default_value, k.help);
  out += "\n[sweep] takes any key above with comma-separated values: training.batch_per_gpu = 32, 64, 100\n";
  write_output("", out);
  return 0;
}

}  // namespace cli_layer
}  // namespace ddlsim
