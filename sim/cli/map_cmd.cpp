// `ddlsim map FILE.ini --x KEY=LO..HI --y KEY=LO..HI --z RESULT [--points 20x20] [--log x,y]
//  [--csv FILE] [--svg FILE]`: one result over a grid of two keys (plan/map.hpp).
#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/output.hpp"
#include "core/text.hpp"
#include "plan/map.hpp"
#include "scenario/resolve.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace cli_layer {

namespace {
po::options_description map_options() {
  po::options_description own("map options");
  own.add_options()("x", po::value<std::string>()->default_value(""),
                    "KEY=LO..HI across (e.g. model.params=1e6..1e9: a synthetic model of that size)")(
      "y", po::value<std::string>()->default_value(""), "KEY=LO..HI up (e.g. cluster.inter_bw_GBps=0.1..100)")(
      "z", po::value<std::string>()->default_value("comm_overhead"), "the result mapped (any numeric result, gpu_hours)")(
      "points", po::value<std::string>()->default_value("20x20"), "grid points, NXxNY")(
      "log", po::value<std::string>()->default_value(""), "axes on a log scale: x, y or x,y")(
      "csv", po::value<std::string>()->default_value(""), "write the grid as CSV to FILE (default: stdout, "
                                                           "unless --svg is given)")(
      "svg", po::value<std::string>()->default_value(""), "write the heat map with contour lines to FILE.svg");
  return own;
}

void apply_log(const std::string& text, MapAxis& x, MapAxis& y) {
  if (trim(text).empty()) return;
  for (const auto& axis : split(to_lower(text), ',')) {
    if (axis == "x") x.log = true;
    else if (axis == "y") y.log = true;
    else throw InputError("--log = '" + clip(text) + "': expected x, y or x,y");
  }
}
}  // namespace

int cmd_map(const Args& args) {
  const ParsedArgs pa = parse_args(args, map_options(), "map");
  if (pa.positional.size() > 1)
    throw InputError("ddlsim map: expected one scenario file, got " + std::to_string(pa.positional.size()));
  const std::string xs = pa.vm["x"].as<std::string>(), ys = pa.vm["y"].as<std::string>();
  if (xs.empty() || ys.empty()) throw InputError("ddlsim map: expected --x KEY=LO..HI and --y KEY=LO..HI");
  MapAxis x = parse_map_axis(xs, "--x"), y = parse_map_axis(ys, "--y");
  std::tie(x.points, y.points) = parse_points(pa.vm["points"].as<std::string>());
  apply_log(pa.vm["log"].as<std::string>(), x, y);
  const Metric z = find_metric(pa.vm["z"].as<std::string>(), "--z");
  const std::string file = pa.positional.empty() ? "" : pa.positional.front();
  const ScenarioInput in = read_scenario(file, pa.overrides);
  if (!in.sweep.empty()) std::cerr << "ddlsim map: note: the [sweep] section is ignored here\n";
  const Evaluator ev(in.settings, dir_of(file));
  ev.predict_at({});  // the scenario itself must be valid
  const MapGrid grid = compute_map(ev, x, y, z);
  const std::string csv = pa.vm["csv"].as<std::string>(), svg = pa.vm["svg"].as<std::string>();
  OutputSet out;
  if (!svg.empty()) out.add(svg, map_svg(grid, z.name + (file.empty() ? "" : " (" + file + ")")));
  if (!csv.empty()) out.add(csv, map_csv(grid));
  if (csv.empty() && svg.empty()) out.add("", map_csv(grid));
  else if (csv != "-") out.add("", map_summary(grid));
  out.commit();
  return 0;
}

}  // namespace cli_layer
}  // namespace ddlsim
