#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/args.hpp"
#include "core/error.hpp"
#include "core/output.hpp"
#include "predict/prediction.hpp"
#include "report/kernel_profile.hpp"
#include "report/report.hpp"
#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace cli_layer {

namespace {

// The roofline prices the kernels the harness runs (kernels/kernel_plan.hpp: eager PyTorch, the math
// attention path, no channels-first transposes) on the scenario's device with its roofline constants.
std::string kernel_profile(const Scenario& sc, Format format, int top) {
  const auto& cal = sc.system.compute.calibration;
  if (!cal)
    throw InputError("ddlsim profile --kernels: compares the roofline with a calibration file; set "
                     "compute.calibration = FILE (made by `ddlsim calibrate`)");
  ComputeTuning t = sc.system.compute;
  t.calibration = nullptr;
  t.fused_attention = false;
  t.nchw = false;
  t.pointwise_fusion = false;
  FrameworkSpec fw = sc.execution.fw;
  fw.mode = FrameworkMode::Eager;
  const Execution& e = sc.execution;
  const auto priced = roofline_kernel_times(sc.model, sc.system.device, e.precision, e.batch_per_gpu, t, fw);
  const KernelProfileContext c{sc.model.name, sc.system.device.name, cal->device, to_string(e.precision),
                               e.batch_per_gpu};
  return render_kernel_profile(compare_kernels(priced, *cal, e.batch_per_gpu, sc.system.compute.calibration_origin), c,
                               format, top);
}

}  // namespace

int cmd_profile(const Args& args) {
  po::options_description own("profile options");
  own.add_options()("format", po::value<std::string>()->default_value("table"), "table, csv or json")(
      "top", po::value<int>()->default_value(0), "only the N slowest layers (0: every layer, in model order)")(
      "output,o", po::value<std::string>()->default_value(""), "write the profile to FILE")(
      "kernels", po::bool_switch(), "each kernel: the roofline's time beside the calibration file's");
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
  out.add(pa.vm["output"].as<std::string>(), pa.vm["kernels"].as<bool>()
                                                 ? kernel_profile(sc, format, top)
                                                 : render_compute_profile(sc.model, device_compute_profile(sc), c,
                                                                          format, top));
  out.commit();
  return 0;
}

}  // namespace cli_layer
}  // namespace ddlsim
