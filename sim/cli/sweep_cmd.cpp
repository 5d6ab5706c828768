#include <cstdio>
#include <iostream>
#include <thread>
#include <unistd.h>

#include "core/args.hpp"
#include "cli/commands.hpp"
#include "core/output.hpp"
#include "core/error.hpp"
#include "scenario/resolve.hpp"
#include "sweep/sweep.hpp"
#include "simgrid/platform_reader.hpp"

namespace po = boost::program_options;

namespace ddlsim {

namespace {
// A one-line progress bar on stderr, only when stderr is a terminal.
Progress terminal_progress() {
  if (!::isatty(STDERR_FILENO)) return nullptr;
  return [](std::size_t done, std::size_t total) {
    const int width = 30;
    const int filled = int(width * done / total);
    std::fprintf(stderr, "\r[%s%s] %zu/%zu configurations", std::string(filled, '#').c_str(),
                 std::string(width - filled, '.').c_str(), done, total);
    if (done == total) std::fprintf(stderr, "\n");
  };
}
}  // namespace

int cmd_sweep(const Args& args) {
  po::options_description own("sweep options");
  own.add_options()("jobs,j", po::value<int>()->default_value(int(std::max(1u, std::thread::hardware_concurrency()))),
                    "configurations run in parallel")(
      "output,o", po::value<std::string>()->default_value(""), "write the CSV to FILE");
  const ParsedArgs pa = parse_args(args, own, "sweep");
  if (pa.positional.size() != 1) throw InputError("ddlsim sweep: expected one scenario file");
  const int jobs = pa.vm["jobs"].as<int>();
  if (jobs < 1 || jobs > kMaxSweepJobs)
    throw InputError("ddlsim sweep: --jobs = " + std::to_string(jobs) + ": expected an integer from 1 to " +
                     std::to_string(kMaxSweepJobs));
  const std::string file = pa.positional.front();
  const ScenarioInput in = read_scenario(file, pa.overrides);
  if (in.sweep.empty())
    throw InputError(file + ": the [sweep] section is empty; list values as `section.key = v1, v2`");
  for (const auto& [key, values] : in.sweep)
    if (in.settings.at(key).origin == "command line")
      throw InputError("command line: --" + key + " is swept by " + in.sweep_origin.at(key) +
                       "; expected either the sweep or one value (change the list with --sweep." + key + "=V1,V2)");
  const auto results = run_sweep(expand_sweep(in), dir_of(file), jobs, terminal_progress(), read_platform_file);
  write_output(pa.vm["output"].as<std::string>(), render_sweep_csv(results));
  std::size_t failed = 0;
  for (const auto& r : results)
    if (!r.prediction) ++failed;
  if (failed == 0) return 0;
  std::cerr << "ddlsim sweep: " << failed << " of " << results.size()
            << " configurations failed; their rows say why (error column)\n";
  for (const auto& r : results)
    if (!r.prediction) {
      std::cerr << "  first failure: " << r.error << "\n";
      break;
    }
  return 2;
}

}  // namespace ddlsim
