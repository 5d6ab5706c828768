// `ddlsim advise FILE.ini --vary KEY [--target METRIC=VALUE] [--range LO..HI] [--values A,B]
//  [--objective epoch_time|efficiency|gpu_hours] [--nodes-optimum] [--verify simgrid] [--format F]`
// (plan/advise.hpp says how each kind of key is searched).
#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/output.hpp"
#include "core/text.hpp"
#include "plan/advice_report.hpp"
#include "scenario/resolve.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace cli_layer {

namespace {
po::options_description advise_options() {
  po::options_description own("advise options");
  own.add_options()("vary", po::value<std::string>()->default_value(""),
                    "the key to choose (`ddlsim keys`, or model.params: a synthetic model of that size)")(
      "target", po::value<std::string>()->default_value(""),
      "METRIC=VALUE to reach, e.g. efficiency=0.8, speedup=1, epoch_time_s=600 (>= for efficiency, speedup, "
      "samples_per_s; <= for times, overheads, gpu_hours)")(
      "range", po::value<std::string>()->default_value(""), "LO..HI searched (default: the key's own range)")(
      "values", po::value<std::string>()->default_value(""), "V1,V2,...: rank these values instead of searching")(
      "objective", po::value<std::string>()->default_value("epoch_time"),
      "what ranks values: epoch_time, efficiency or gpu_hours (total time x GPUs)")(
      "nodes-optimum", po::bool_switch(), "the node count that minimises epoch time (varies cluster.nodes)")(
      "verify", po::value<std::string>()->default_value(""), "simgrid: also check the answer with the SimGrid backend")(
      "format", po::value<std::string>()->default_value("table"), "table, csv or json")(
      "output,o", po::value<std::string>()->default_value(""), "write the advice to FILE");
  return own;
}

AdviseRequest request_of(const po::variables_map& vm) {
  AdviseRequest r;
  r.key = trim(vm["vary"].as<std::string>());
  const std::string target = vm["target"].as<std::string>();
  if (!target.empty()) r.target = parse_target(target);
  const std::string range = vm["range"].as<std::string>();
  if (!range.empty() || vm["range"].defaulted() == false) r.range = parse_range(range, "--range");
  const std::string values = vm["values"].as<std::string>();
  if (!vm["values"].defaulted()) {
    r.values = split(values, ',');
    if (r.values.empty()) throw InputError("--values = '': expected V1,V2,... (at least one value)");
  }
  r.objective = parse_objective(vm["objective"].as<std::string>());
  r.nodes_optimum = vm["nodes-optimum"].as<bool>();
  const std::string verify = to_lower(vm["verify"].as<std::string>());
  if (!verify.empty() && verify != "simgrid")
    throw InputError("--verify = '" + clip(verify) + "': expected simgrid");
  r.verify_simgrid = verify == "simgrid";
  return r;
}
}  // namespace

int cmd_advise(const Args& args) {
  const ParsedArgs pa = parse_args(args, advise_options(), "advise");
  if (pa.positional.size() > 1)
    throw InputError("ddlsim advise: expected one scenario file, got " + std::to_string(pa.positional.size()));
  const Format format = parse_format(pa.vm["format"].as<std::string>());
  const AdviseRequest req = request_of(pa.vm);
  const std::string file = pa.positional.empty() ? "" : pa.positional.front();
  const ScenarioInput in = read_scenario(file, pa.overrides);
  if (!in.sweep.empty()) std::cerr << "ddlsim advise: note: the [sweep] section is ignored here\n";
  const Evaluator ev(in.settings, dir_of(file));
  ev.predict_at({});  // the scenario itself must be valid before anything is varied
  const Advice advice = advise(ev, req);
  OutputSet out;
  out.add(pa.vm["output"].as<std::string>(), render_advice(advice, format));
  out.commit();
  return 0;
}

}  // namespace cli_layer
}  // namespace ddlsim
