// `ddlsim netfit MEASURED.csv --out PLATFORM.xml`: fits alpha (the ping-pong median), the software
// overhead per round of a ring (o), B and the exchange factors to netbench's measurements and
// writes a platform; warns when a ring step's latency exceeds --latency-factor x alpha. --check scores the ring allreduce out of sample:
// each measured message size is predicted from a fit of the other sizes only (leave one size out);
// with a single size measured, the check can only be in-sample and says so.
#include <fmt/format.h>

#include <iostream>
#include <set>
#include <tuple>

#include "calibration/netfit.hpp"
#include "compare/bench_output.hpp"
#include "cost/collectives.hpp"
#include "core/args.hpp"
#include "cli/commands.hpp"
#include "core/output.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "system/platform_xml.hpp"
#include "core/files.hpp"
#include "system/device.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace cli_layer {

namespace {

// The ring allreduce of `s` on a fitted network (the route netfit's platform file carries).
double ring_on(const NetFit& f, const NetSample& s) {
  CommTopology t;
  t.nodes = s.ranks;
  t.gpus_per_node = 1;
  t.inter = t.intra = fitted_route(f);
  return collective_time_s(Algorithm::Ring, t, s.bytes);
}

void print_check(const std::vector<NetSample>& samples, const NetFit& all, const std::string& csv) {
  std::set<double> sizes;
  for (const auto& s : samples)
    if (s.test == "ring") sizes.insert(s.bytes);
  const bool held_out = sizes.size() > 1;
  std::cout << (held_out ? "check: each size predicted from a fit of the other sizes (out of sample; held_out names "
                           "the size left out of that row's fit)\n"
                         : "check: one ring size measured, so this is IN-SAMPLE (measure two or more sizes)\n");
  std::cout << fmt::format("{:>6} {:>12} {:>12} {:>12} {:>12} {:>8}\n", "ranks", "bytes", "held_out", "measured_s",
                           "simulated_s", "diff");
  for (const auto& s : samples) {
    if (s.test != "ring") continue;
    NetFit f = all;
    if (held_out) {
      std::vector<NetSample> others;
      for (const auto& o : samples)
        if (o.bytes != s.bytes) others.push_back(o);
      try {
        f = fit_network(others, csv);
      } catch (const InputError&) {
        std::cout << fmt::format("{:>6} {:>12} {:>12} {:>12.6f} {:>12} (no fit without this size)\n", s.ranks, s.bytes,
                                 s.bytes, s.time_s, "-");
        continue;
      }
    }
    const double sim = ring_on(f, s);
    std::cout << fmt::format("{:>6} {:>12} {:>12} {:>12.6f} {:>12.6f} {:>+7.1f}%\n", s.ranks, s.bytes,
                             held_out ? fmt::format("{}", s.bytes) : std::string("none"), s.time_s, sim,
                             100 * (sim - s.time_s) / s.time_s);
  }
}

// --library, or the CSV's own line; the two must agree.
std::string fitted_library(const std::string& given, const std::string& in_csv, const std::string& csv) {
  if (!given.empty() && given != "mpi" && given != "gloo" && given != "nccl")
    throw InputError("--library '" + given + "': expected mpi, gloo or nccl");
  if (!given.empty() && !in_csv.empty() && given != in_csv)
    throw InputError("--library " + given + ": " + csv + " says it was measured with " + in_csv);
  return given.empty() ? in_csv : given;
}

// A per-step latency far above the idle ping-pong one is software overhead or a busy machine.
constexpr double kLatencyWarnFactor = 3;

void print_fit(const NetFit& fit) {
  std::cout << "library " << (fit.library.empty() ? "unknown" : fit.library) << "\n";
  std::cout << fmt::format("idle_latency_s {:.6g}\n", fit.idle_latency_s);
  if (fit.pingpong_reps > 0)
    std::cout << fmt::format("idle_latency_spread_s p10 {:.6g} p90 {:.6g} ({} repetitions)\n", fit.pingpong_p10_s,
                             fit.pingpong_p90_s, fit.pingpong_reps);
  std::cout << fmt::format("step_latency_s {:.6g}\nstep_overhead_s {:.6g}\n", fit.step_latency_s, fit.step_overhead_s);
  std::cout << fmt::format("latency_s {:.6g}\nbandwidth_Bps {:.6g}\nbandwidth_Mbit_s {:.4g}\nexchange_factor {:.4g}\n"
                           "duplex_factor {:.4g}\nbibw_factor {:.4g}\nsamples {}\nmethod {}\n",
                           fit.latency_s, fit.bw_Bps, fit.bw_Bps * 8e-6, fit.exchange_factor, fit.duplex_factor, fit.bibw_factor,
                           fit.samples, fit.method);
  if (fit.time_p90 > 0)
    std::cout << fmt::format("time_spread p10 {:.4g} p90 {:.4g} (the ring rows' repetitions over the fitted ring; "
                             "the platform carries them as the 80 % interval of its exchanges)\n",
                             fit.time_p10, fit.time_p90);
}

}  // namespace

int cmd_netfit(const Args& args) {
  po::options_description own("netfit options");
  own.add_options()("out,o", po::value<std::string>()->required(), "platform XML to write")(
      "nodes", po::value<int>()->default_value(0), "nodes in the platform (default: the most ranks measured, >= 2)")(
      "device", po::value<std::string>()->default_value("rtx4090"), "GPU model of each node (ddlsim keys: compute.device)")(
      "check", po::bool_switch(), "compare the simulated ring allreduce with the measured ring rows")(
      "library", po::value<std::string>()->default_value(""),
      "library that measured the CSV (mpi, gloo, nccl); default: its `# library:` line")(
      "merge", po::value<std::string>()->default_value(""),
      "a platform file netfit wrote for another library: keep its per-library factors in the new file")(
      "latency-factor", po::value<double>()->default_value(kLatencyWarnFactor),
      "warn when the latency per ring step exceeds this many times the idle ping-pong latency (1 to 1e6)");
  const ParsedArgs pa = parse_args(args, own, "netfit");
  if (pa.positional.size() != 1) throw InputError("ddlsim netfit: expected one netbench CSV file");
  const std::string csv = pa.positional.front();
  const double latency_factor = pa.vm["latency-factor"].as<double>();
  if (!(latency_factor >= 1 && latency_factor <= 1e6))
    throw InputError(fmt::format("--latency-factor {}: expected a factor from 1 to 1e6", latency_factor));
  const std::string text = read_text_file(csv, "netbench CSV file");
  if (is_bench_output(text))
    throw InputError(csv + ": nccl-tests or OSU output, not netbench's CSV: `ddlsim fit " + csv +
                     " --scenario BASE.ini --overlay-out LINKS.ini` fits the links to it (docs/calibration.md, "
                     "\"Collectives: nccl-tests logs\")");
  const auto samples = parse_netbench_csv(text, csv);
  NetFit fit = fit_network(samples, csv);
  fit.library = fitted_library(pa.vm["library"].as<std::string>(), netbench_library(text, csv), csv);
  std::tie(fit.time_p10, fit.time_p90) = ring_spread(samples, [&](const NetSample& s) { return ring_on(fit, s); });
  int nodes = pa.vm["nodes"].as<int>();
  if (nodes < 0 || nodes > kMaxGeneratedNodes)
    throw InputError(fmt::format("--nodes {}: expected 1 to {} nodes (the file routes every pair of them), or 0 for "
                                 "the most ranks measured", nodes, kMaxGeneratedNodes));
  if (nodes == 0) {
    nodes = 2;
    for (const auto& s : samples) nodes = std::max(nodes, s.ranks);
    if (nodes > kMaxGeneratedNodes)
      throw InputError(fmt::format("{}: rows of up to {} ranks; the fitted platform holds at most {} nodes: give "
                                   "--nodes", csv, nodes, kMaxGeneratedNodes));
  }
  const std::string device = pa.vm["device"].as<std::string>();
  find_device(device, "--device");
  const std::string out = pa.vm["out"].as<std::string>();
  std::string xml = fitted_platform_xml(fit, nodes, device, csv);
  const std::string merge = pa.vm["merge"].as<std::string>();
  if (!merge.empty()) {
    if (fit.library.empty())
      throw InputError("--merge " + merge + ": " + csv + " does not say which library measured it; give --library");
    xml = merge_library_factors(xml, read_text_file(merge, "platform file"), fit.library, merge);
  }
  write_output(out, xml);
  print_fit(fit);
  const std::string warning = latency_warning(fit, latency_factor);
  if (!warning.empty()) std::cerr << "ddlsim netfit: warning: " << terminal_safe(warning) << "\n";
  if (pa.vm["check"].as<bool>()) print_check(samples, fit, csv);
  return 0;
}

}  // namespace cli_layer
}  // namespace ddlsim
