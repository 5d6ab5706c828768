// `ddlsim netbench`: starts build/ddlsim_netbench (calibration/mpi/netbench_main.cpp, an MPI
// program kept out of ddlsim so that ddlsim never needs MPI) through mpirun or srun, one rank per
// host, and leaves its table on stdout and its CSV in --csv. The program writes the CSV to a
// temporary file beside it, which becomes --csv only when the run succeeds: a failed or killed run
// leaves an earlier CSV as it was. With --library gloo the ranks run
// calibration/torch/gloo_netbench.py (torch.distributed's gloo, the same tests and CSV) under the
// same launchers. The CSV's first line names the library (`# library: mpi`), which netfit records.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "core/args.hpp"
#include "cli/commands.hpp"
#include "core/output.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace cli_layer {

namespace {

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

constexpr long kMaxBytes = 1L << 30;        // one message: at most 1 GiB (MPI counts are ints)
constexpr long kMaxBufferBytes = 4L << 30;  // window x largest size: the send and receive buffers
constexpr int kMaxIters = 10000, kMaxWindow = 1024, kMaxReps = 1000000;
const char* const kTests[] = {"pingpong", "bw", "bibw", "exchange", "shift", "ring", "allreduce", "nccl"};
// The gloo script: in ddlsim's data (core/files.hpp data_dir: installed, or the sources).
std::string gloo_script() { return data_dir() + "/calibration/torch/gloo_netbench.py"; }

// "64K" -> 65536: a positive integer with an optional K, M or G suffix (powers of 1024), at most
// 1G; 0 when it is not one.
long byte_size(const std::string& item) { return long(parse_byte_size(item, kMaxBytes).value_or(0)); }

// --sizes / --lat-sizes: the byte counts, comma-separated, for ddlsim_netbench.
std::string byte_sizes(const std::string& option, const std::string& text, long& largest) {
  std::string out;
  for (const auto& item : split(text, ',')) {
    const long v = byte_size(item);
    if (v == 0)
      throw InputError(fmt::format("--{} '{}': '{}' is not a size; expected sizes in bytes from 1 to 1G, each an "
                                   "integer with an optional K, M or G suffix, separated by commas (e.g. 64K,1M)",
                                   option, clip(text), clip(item)));
    largest = std::max(largest, v);
    out += (out.empty() ? "" : ",") + std::to_string(v);
  }
  return out;
}

int bounded(const po::variables_map& vm, const char* option, int hi) {
  const int v = vm[option].as<int>();
  if (v < 1 || v > hi) throw InputError(fmt::format("--{} {}: expected an integer from 1 to {}", option, v, hi));
  return v;
}

// --tests: known names, comma-separated; returned without spaces.
std::string test_names(const std::string& text) {
  std::string out;
  for (const auto& t : split(text, ',')) {
    if (std::find(std::begin(kTests), std::end(kTests), t) == std::end(kTests))
      throw InputError(fmt::format("--tests '{}': unknown test '{}' (expected some of pingpong, bw, bibw, "
                                   "exchange, shift, ring, allreduce, nccl, comma-separated)", clip(text), clip(t)));
    out += (out.empty() ? "" : ",") + t;
  }
  return out;
}

// ddlsim_netbench's own options, checked here so that bad input stops before the launcher starts.
std::string netbench_args(const po::variables_map& vm, const std::string& csv) {
  long largest = 0;
  const std::string sizes = byte_sizes("sizes", vm["sizes"].as<std::string>(), largest);
  const std::string lat_sizes = byte_sizes("lat-sizes", vm["lat-sizes"].as<std::string>(), largest);
  const int iters = bounded(vm, "iters", kMaxIters), window = bounded(vm, "window", kMaxWindow);
  const int reps = bounded(vm, "reps", kMaxReps);
  if (largest * window > kMaxBufferBytes)
    throw InputError(fmt::format("--window {} with messages of up to {} bytes: expected window x largest size "
                                 "at most 4G (the buffers each rank allocates)", window, largest));
  return " --sizes " + sizes + " --lat-sizes " + lat_sizes + " --iters " + std::to_string(iters) + " --reps " +
         std::to_string(reps) + " --window " +
         std::to_string(window) + " --tests " + quote(test_names(vm["tests"].as<std::string>())) + " --csv " + quote(csv);
}

// std::system's status in words.
std::string how_it_ended(int status) {
  if (status == -1) return "could not be started";
  if (WIFSIGNALED(status)) return fmt::format("was killed by signal {}", WTERMSIG(status));
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : status;
  return fmt::format("exited with code {}{}", code, code == 127 ? " (command not found)" : "");
}

// The launcher's failures are nearly always setup: hosts, ranks, the MPI installation.
void check_launcher_status(int status, const std::string& launcher) {
  if (status == 0) return;
  throw InputError(fmt::format("ddlsim netbench: {} {}; check --hosts and --np (every host reachable, "
                               "ddlsim_netbench at the same path on each), --launcher and --rsh-agent",
                               launcher, how_it_ended(status)));
}

// The program each rank runs: ddlsim_netbench (MPI, or its NCCL build) or, for gloo, the python
// script with the rendezvous address (--master-addr, else MASTER_ADDR) that torch.distributed needs.
std::string rank_program(const po::variables_map& vm, const std::string& library, bool nccl) {
  if (library == "gloo") {
    if (nccl) throw InputError("--nccl with --library gloo: NCCL is measured by the MPI program (--library mpi)");
    if (vm["tests"].as<std::string>().find("nccl") != std::string::npos)
      throw InputError("--tests nccl with --library gloo: the gloo script has no nccl test");
    std::string addr = vm["master-addr"].as<std::string>();
    if (addr.empty() && std::getenv("MASTER_ADDR")) addr = std::getenv("MASTER_ADDR");
    if (addr.empty())
      throw InputError("--library gloo: no rendezvous address: pass --master-addr (the first host's address on the "
                       "measured network) or set MASTER_ADDR");
    const std::string python = vm["python"].as<std::string>();
    if (::access(python.c_str(), X_OK) != 0)
      throw InputError("--python " + python + ": not an executable (Debian: python3-torch installs /usr/bin/python3)");
    const std::string script = gloo_script();
    if (::access(script.c_str(), R_OK) != 0)
      throw InputError("--library gloo: " + script + " is missing (ddlsim's data: installed, or its sources)");
    return quote(python) + " " + quote(script) + " --master-addr " + quote(addr) + " --master-port " +
           std::to_string(bounded(vm, "master-port", 65535));
  }
  if (library != "mpi") throw InputError("--library '" + clip(library) + "': expected mpi or gloo");
  const std::string exe = executable_dir() + (nccl ? "/ddlsim_netbench_nccl" : "/ddlsim_netbench");
  if (::access(exe.c_str(), X_OK) != 0)
    throw InputError("ddlsim netbench: " + exe + " does not exist: this ddlsim was built without " +
                     (nccl ? std::string("CUDA and NCCL (nvcc and nccl.h were not found when it was configured)")
                           : std::string("MPI (install libopenmpi-dev openmpi-bin and rebuild)")));
  return quote(exe);
}

}  // namespace

int cmd_netbench(const Args& args) {
  po::options_description own("netbench options");
  own.add_options()("np", po::value<int>()->default_value(2), "ranks (one per host)")(
      "hosts", po::value<std::string>()->default_value(""), "comma-separated hosts for mpirun -H")(
      "rsh-agent", po::value<std::string>()->default_value(""), "OpenMPI rsh agent (e.g. calibration/netns_rsh_agent.sh)")(
      "launcher", po::value<std::string>()->default_value("mpirun"), "mpirun or srun")(
      "sizes", po::value<std::string>()->default_value("64K,1M,4M"), "message sizes (bytes; K, M, G suffixes; at most 1G)")(
      "lat-sizes", po::value<std::string>()->default_value("8,1K,16K"), "ping-pong sizes")(
      "iters", po::value<int>()->default_value(3), "repetitions per size (the fastest counts), 1 to 10000")(
      "reps", po::value<int>()->default_value(1000),
      "ping-pong round trips per size, each timed (median and spread; fewer above 64K), 1 to 1000000")(
      "window", po::value<int>()->default_value(4), "messages in flight for bw and bibw, 1 to 1024")(
      "tests", po::value<std::string>()->default_value("pingpong,bw,bibw,exchange,shift,ring,allreduce"), "which tests")(
      "csv", po::value<std::string>()->required(), "CSV file to write (for ddlsim netfit)")(
      "nccl", po::bool_switch(), "run build/ddlsim_netbench_nccl (built with CUDA and NCCL); add nccl to --tests")(
      "library", po::value<std::string>()->default_value("mpi"), "mpi (Open MPI) or gloo (torch.distributed)")(
      "master-addr", po::value<std::string>()->default_value(""), "gloo: rank 0's address (default: MASTER_ADDR)")(
      "master-port", po::value<int>()->default_value(29500), "gloo: rendezvous port")(
      "python", po::value<std::string>()->default_value("/usr/bin/python3"), "gloo: interpreter with torch");
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
  const std::string csv = vm["csv"].as<std::string>();
  const std::string partial = (csv == "-" ? std::string("/tmp/ddlsim-netbench") : csv) + ".partial-" +
                              std::to_string(::getpid());
  const std::string bench_args = netbench_args(vm, partial);
  const std::string library = vm["library"].as<std::string>();
  const std::string program = rank_program(vm, library, vm["nccl"].as<bool>());
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
    throw InputError("--launcher '" + clip(launcher) + "': expected mpirun or srun");
  }
  cmd += launcher_extra;
  cmd += " " + program + bench_args;
  std::cerr << "ddlsim netbench: " << cmd << "\n";
  std::cout.flush();
  const int status = std::system(cmd.c_str());
  std::string text;
  try {
    check_launcher_status(status, launcher);
    if (::access(partial.c_str(), F_OK) != 0)
      throw InputError("ddlsim netbench: the run ended but left no CSV at " + partial +
                       " (rank 0 writes it; on another host, --csv must name a folder shared with this one)");
    text = read_text_file(partial, "netbench CSV");
  } catch (...) {
    std::remove(partial.c_str());
    throw;
  }
  std::remove(partial.c_str());
  write_output(csv, "# library: " + library + "\n" + text);
  return 0;
}

}  // namespace cli_layer
}  // namespace ddlsim
