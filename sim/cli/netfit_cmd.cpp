// `ddlsim netfit MEASURED.csv --out PLATFORM.xml`: fits alpha, B and the exchange factor to
// netbench's measurements and writes a platform; --check compares the simulator's ring allreduce
// on that platform with every measured `ring` row.
#include <fmt/format.h>

#include <iostream>

#include "calibration/netfit.hpp"
#include "cost/collectives.hpp"
#include "core/args.hpp"
#include "cli/commands.hpp"
#include "core/output.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "simgrid/platform_reader.hpp"
#include "system/device.hpp"

namespace po = boost::program_options;

namespace ddlsim {

namespace {

void print_check(const std::vector<NetSample>& samples, const std::string& platform) {
  const ClusterDescription c = read_platform_file(platform);
  std::cout << fmt::format("{:>6} {:>12} {:>12} {:>12} {:>8}\n", "ranks", "bytes", "measured_s", "simulated_s", "diff");
  for (const auto& s : samples) {
    if (s.test != "ring") continue;
    CommTopology t;
    t.nodes = s.ranks;
    t.gpus_per_node = 1;
    t.inter = c.inter_route();
    t.intra = c.intra_route();
    const double sim = collective_time_s(Algorithm::Ring, t, s.bytes);
    std::cout << fmt::format("{:>6} {:>12} {:>12.6f} {:>12.6f} {:>+7.1f}%\n", s.ranks, s.bytes, s.time_s, sim,
                             100 * (sim - s.time_s) / s.time_s);
  }
}

}  // namespace

int cmd_netfit(const Args& args) {
  po::options_description own("netfit options");
  own.add_options()("out,o", po::value<std::string>()->required(), "platform XML to write")(
      "nodes", po::value<int>()->default_value(0), "nodes in the platform (default: the most ranks measured, >= 2)")(
      "device", po::value<std::string>()->default_value("rtx4090"), "GPU model of each node (ddlsim keys: compute.device)")(
      "check", po::bool_switch(), "compare the simulated ring allreduce with the measured ring rows");
  const ParsedArgs pa = parse_args(args, own, "netfit");
  if (pa.positional.size() != 1) throw InputError("ddlsim netfit: expected one netbench CSV file");
  const std::string csv = pa.positional.front();
  const auto samples = parse_netbench_csv(read_text_file(csv, "netbench CSV file"), csv);
  const NetFit fit = fit_network(samples, csv);
  int nodes = pa.vm["nodes"].as<int>();
  if (nodes <= 0) {
    nodes = 2;
    for (const auto& s : samples) nodes = std::max(nodes, s.ranks);
  }
  const std::string device = pa.vm["device"].as<std::string>();
  find_device(device, "--device");
  const std::string out = pa.vm["out"].as<std::string>();
  write_output(out, fitted_platform_xml(fit, nodes, device, csv));
  std::cout << fmt::format("idle_latency_s {:.6g}\nstep_latency_s {:.6g}\n", fit.idle_latency_s, fit.step_latency_s);
  std::cout << fmt::format("latency_s {:.6g}\nbandwidth_Bps {:.6g}\nbandwidth_Mbit_s {:.4g}\nexchange_factor {:.4g}\n"
                           "duplex_factor {:.4g}\nbibw_factor {:.4g}\nsamples {}\nmethod {}\n",
                           fit.latency_s, fit.bw_Bps, fit.bw_Bps * 8e-6, fit.exchange_factor, fit.duplex_factor, fit.bibw_factor,
                           fit.samples, fit.method);
  if (pa.vm["check"].as<bool>() && out != "-" && !out.empty()) print_check(samples, out);
  return 0;
}

}  // namespace ddlsim
