// `ddlsim netbench`: starts build/ddlsim_netbench (calibration/mpi/netbench_main.cpp, an MPI
// program kept out of ddlsim so that ddlsim never needs MPI) through mpirun or srun, one rank per
// host, and leaves its table on stdout and its CSV in --csv.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"

namespace po = boost::program_options;

namespace ddlsim {

namespace {

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string exe_dir() {
  char buf[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  const std::string p = n > 0 ? std::string(buf, std::size_t(n)) : "./ddlsim";
  return p.substr(0, p.find_last_of('/'));
}

}  // namespace

int cmd_netbench(const Args& args) {
  po::options_description own("netbench options");
  own.add_options()("np", po::value<int>()->default_value(2), "ranks (one per host)")(
      "hosts", po::value<std::string>()->default_value(""), "comma-separated hosts for mpirun -H")(
      "rsh-agent", po::value<std::string>()->default_value(""), "OpenMPI rsh agent (e.g. calibration/netns_rsh_agent.sh)")(
      "launcher", po::value<std::string>()->default_value("mpirun"), "mpirun or srun")(
      "sizes", po::value<std::string>()->default_value("64K,1M,4M"), "message sizes (bytes; K, M suffixes)")(
      "lat-sizes", po::value<std::string>()->default_value("8,1K,16K"), "ping-pong sizes")(
      "iters", po::value<int>()->default_value(3), "repetitions per size (the fastest counts)")(
      "window", po::value<int>()->default_value(4), "messages in flight for bw and bibw")(
      "tests", po::value<std::string>()->default_value("pingpong,bw,bibw,exchange,shift,ring,allreduce"), "which tests")(
      "csv", po::value<std::string>()->required(), "CSV file to write (for ddlsim netfit)")(
      "nccl", po::bool_switch(), "run build/ddlsim_netbench_nccl (built with CUDA and NCCL); add nccl to --tests");
  // Everything after `--` goes to the launcher as written (e.g. -- --mca btl tcp,self).
  const auto dashdash = std::find(args.begin(), args.end(), std::string("--"));
  const Args mine(args.begin(), dashdash);
  std::string launcher_extra;
  for (auto it = dashdash == args.end() ? args.end() : dashdash + 1; it != args.end(); ++it)
    launcher_extra += " " + quote(*it);
  const ParsedArgs pa = parse_args(mine, own, "netbench");
  if (!pa.overrides.empty() || !pa.positional.empty())
    throw InputError("ddlsim netbench: unexpected argument '" +
                     (pa.overrides.empty() ? pa.positional.front() : pa.overrides.front()) +
                     "' (launcher arguments go after `--`)");
  const auto& vm = pa.vm;
  const int np = vm["np"].as<int>();
  if (np < 2) throw InputError("--np " + std::to_string(np) + ": expected at least 2 ranks");
  const bool nccl = vm["nccl"].as<bool>();
  const std::string exe = exe_dir() + (nccl ? "/ddlsim_netbench_nccl" : "/ddlsim_netbench");
  if (::access(exe.c_str(), X_OK) != 0)
    throw InputError("ddlsim netbench: " + exe + " does not exist: this ddlsim was built without " +
                     (nccl ? std::string("CUDA and NCCL (nvcc and nccl.h were not found when it was configured)")
                           : std::string("MPI (install libopenmpi-dev openmpi-bin and rebuild)")));
  const std::string launcher = vm["launcher"].as<std::string>();
  std::string cmd;
  if (launcher == "mpirun") {
    cmd = "mpirun";
    if (::geteuid() == 0) cmd += " --allow-run-as-root";
    cmd += " -np " + std::to_string(np);
    if (!vm["hosts"].as<std::string>().empty()) cmd += " -H " + quote(vm["hosts"].as<std::string>());
    if (!vm["rsh-agent"].as<std::string>().empty())
      cmd += " --mca plm_rsh_agent " + quote(vm["rsh-agent"].as<std::string>());
  } else if (launcher == "srun") {
    cmd = "srun -n " + std::to_string(np);
  } else {
    throw InputError("--launcher '" + launcher + "': expected mpirun or srun");
  }
  cmd += launcher_extra;
  cmd += " " + quote(exe) + " --sizes " + quote(vm["sizes"].as<std::string>()) + " --lat-sizes " +
         quote(vm["lat-sizes"].as<std::string>()) + " --iters " + std::to_string(vm["iters"].as<int>()) +
         " --window " + std::to_string(vm["window"].as<int>()) + " --tests " + quote(vm["tests"].as<std::string>()) +
         " --csv " + quote(vm["csv"].as<std::string>());
  std::cerr << "ddlsim netbench: " << cmd << "\n";
  std::cout.flush();
  const int status = std::system(cmd.c_str());
  if (status != 0) {
    std::cerr << "ddlsim netbench: the MPI run failed (status " << status << ")\n";
    return 1;
  }
  return 0;
}

}  // namespace ddlsim
