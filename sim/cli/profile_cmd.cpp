#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/args.hpp"
#include "core/error.hpp"
#include "core/output.hpp"
#include "predict/prediction.hpp"
#include "report/report.hpp"
#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace cli_layer {

int cmd_profile(const Args& args) {
  po::options_description own("profile options");
  own.add_options()("format", po::value<std::string>()->default_value("table"), "table, csv or json")(
      "top", po::value<int>()->default_value(0), "only the N slowest layers (0: every layer, in model order)")(
      "output,o", po::value<std::string>()->default_value(""), "write the profile to FILE");
  const ParsedArgs pa = parse_args(args, own, "profile");
  if (pa.positional.size() > 1)
    throw InputError("ddlsim profile: expected one scenario file, got " + std::to_string(pa.positional.size()));
  const Format format = parse_format(pa.vm["format"].as<std::string>());
  const int top = pa.vm["top"].as<int>();
  if (top < 0) throw InputError(fmt::format("ddlsim profile: --top {}: expected a count >= 0", top));
  const std::string file = pa.positional.empty() ? "" : pa.positional.front();
  const ScenarioInput in = read_scenario(file, {}, pa.overrides);
  const Scenario sc = resolve_scenario(in.settings, dir_of(file));
  // A calibration's times are of the device it measured, whatever the platform's GPU.
  const auto& cal = sc.system.compute.calibration;
  const ProfileContext c{cal ? cal->device : sc.system.device.name, to_string(sc.execution.precision),
                         sc.execution.batch_per_gpu, cal != nullptr};
  OutputSet out;
  out.add(pa.vm["output"].as<std::string>(),
          render_compute_profile(sc.model, device_compute_profile(sc), c, format, top));
  out.commit();
  return 0;
}

}  // namespace cli_layer
}  // namespace ddlsim
