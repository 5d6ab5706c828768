// `ddlsim collective [FILE.ini] --op allreduce -b 8 -e 128M -f 2 --format nccl`: one collective
// over a range of sizes on the scenario's platform (defaults: the built-in default scenario).
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.hpp"
#include "core/args.hpp"
#include "core/error.hpp"
#include "core/output.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"
#include "predict/collective_prediction.hpp"
#include "report/collective_report.hpp"
#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace cli_layer {

namespace {

constexpr long long kMaxCollectiveBytes = 1LL << 36;  // 64 GiB, nccl-tests' range and more
constexpr std::size_t kMaxSizes = 1000;

Bytes size_option(const std::string& option, const std::string& text) {
  if (const auto v = parse_byte_size(text, kMaxCollectiveBytes)) return double(*v);
  throw InputError(fmt::format("--{} '{}': expected a size in bytes from 1 to 64G, with an optional K, M or G "
                               "suffix (powers of 1024){}", option, clip(text),
                               option == "sizes" ? ", in a list separated by commas (8,64K,1M)" : ""));
}

// --sizes LIST, or nccl-tests' -b MIN -e MAX -f FACTOR (each size FACTOR times the last).
std::vector<Bytes> sizes_of(const po::variables_map& vm) {
  if (vm.count("sizes")) {
    const std::string text = vm["sizes"].as<std::string>();
    const std::vector<std::string> items = split(text, ',');
    if (items.size() > kMaxSizes)
      throw InputError(fmt::format("--sizes: {} sizes; expected at most {}", items.size(), kMaxSizes));
    std::vector<Bytes> out;
    for (const std::string& item : items) out.push_back(size_option("sizes", item));
    return out;
  }
  const Bytes lo = size_option("min-bytes", vm["min-bytes"].as<std::string>());
  const Bytes hi = size_option("max-bytes", vm["max-bytes"].as<std::string>());
  const auto factor = parse_integer(vm["step-factor"].as<std::string>(), 2, 1024);
  if (!factor)
    throw InputError("--step-factor '" + clip(vm["step-factor"].as<std::string>()) + "': expected an integer from 2 to 1024");
  if (hi < lo) throw InputError("--max-bytes is below --min-bytes");
  std::vector<Bytes> out;
  for (Bytes n = lo; n <= hi; n *= double(*factor)) out.push_back(n);
  return out;
}

}  // namespace

int cmd_collective(const Args& args) {
  po::options_description own("collective options");
  own.add_options()("op", po::value<std::string>()->default_value("allreduce"),
                    "allreduce, reduce_scatter, allgather, broadcast, reduce or alltoall")(
      "algorithm", po::value<std::string>(),
      "algorithm (default: the scenario's comm.algorithm for allreduce when it sets one, else auto: the "
      "library's own choice, what nccl-tests and OSU measure)")(
      "sizes", po::value<std::string>(), "sizes in bytes, comma-separated (K, M, G: powers of 1024)")(
      "min-bytes,b", po::value<std::string>()->default_value("8"), "smallest size (nccl-tests -b)")(
      "max-bytes,e", po::value<std::string>()->default_value("128M"), "largest size (nccl-tests -e)")(
      "step-factor,f", po::value<std::string>()->default_value("2"), "each size this times the last (nccl-tests -f)")(
      "format", po::value<std::string>()->default_value("nccl"), "nccl, osu, table, csv or json")(
      "output,o", po::value<std::string>()->default_value(""), "write the report to FILE");
  const ParsedArgs pa = parse_args(args, own, "collective");
  if (pa.positional.size() > 1)
    throw InputError("ddlsim collective: expected at most one scenario file, got " + std::to_string(pa.positional.size()));
  const Collective op = parse_collective(pa.vm["op"].as<std::string>(), "--op");
  const CollectiveFormat format = parse_collective_format(pa.vm["format"].as<std::string>());
  const std::vector<Bytes> sizes = sizes_of(pa.vm);
  const std::string file = pa.positional.empty() ? "" : pa.positional.front();
  const ScenarioInput in = read_scenario(file, {}, pa.overrides);
  Scenario sc = resolve_scenario(in.settings, dir_of(file));
  const bool scenario_sets_one = !in.settings.at("comm.algorithm").value.empty();
  if (pa.vm.count("algorithm")) {
    sc.execution.algorithm = parse_algorithm(pa.vm["algorithm"].as<std::string>(), "--algorithm");
    const std::string misfit = algorithm_misfit(sc.execution.algorithm, sc.execution.library, sc.system);
    if (!misfit.empty()) throw InputError("--algorithm = '" + pa.vm["algorithm"].as<std::string>() + "': " + misfit);
  } else {
    sc.execution.algorithm = benchmark_algorithm(sc, scenario_sets_one, op);
  }
  if (sc.system.ranks() == 1)
    std::cerr << "ddlsim collective: note: the scenario has one rank, so nothing is exchanged; set --cluster.nodes "
                 "(and --cluster.gpus_per_node)\n";
  OutputSet out;
  out.add(pa.vm["output"].as<std::string>(), render_collective(predict_collective(sc, op, sizes), format));
  out.commit();
  return 0;
}

}  // namespace cli_layer
}  // namespace ddlsim
