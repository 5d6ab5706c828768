// `ddlsim platform generate|show`: write a SimGrid platform for a two-level cluster, or summarise
// a platform file (hosts, nodes, links, the route between two ranks).
#include <algorithm>
#include <fmt/format.h>

#include "core/args.hpp"
#include "cli/commands.hpp"
#include "core/output.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "engine/platform_reader.hpp"
#include "system/platform_xml.hpp"
#include "system/device.hpp"
#include "system/platform.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace cli_layer {

namespace {

int bounded(const po::variables_map& vm, const char* name, int max) {
  const int v = vm[name].as<int>();
  if (v < 1 || v > max)
    throw InputError(fmt::format("ddlsim platform generate: --{} = {}: expected an integer from 1 to {}", name, v, max));
  return v;
}

int generate(const Args& args) {
  po::options_description own("platform generate options");
  own.add_options()("nodes", po::value<int>()->default_value(2), "nodes")(
      "gpus-per-node", po::value<int>()->default_value(1), "GPUs per node")(
      "intra", po::value<std::string>()->default_value("pcie4"), "GPU-node link kind")(
      "inter", po::value<std::string>()->default_value("1gbe"), "node-switch link kind")(
      "nics", po::value<int>()->default_value(1), "inter-node NICs per node (rails), aggregated")(
      "cpu", po::value<std::string>()->default_value(""), "host CPU family (PCIe nodes: root complex, socket link)")(
      "gpus-per-socket", po::value<int>()->default_value(0), "GPUs per CPU socket (0: all on one)")(
      "gpus-per-switch", po::value<int>()->default_value(1), "GPUs behind one PCIe switch")(
      "peer-to-peer", po::value<std::string>()->default_value("auto"),
      "auto, on or off: CUDA peer-to-peer over PCIe (auto: the device's; GeForce RTX 30/40/50 have none)")(
      "device", po::value<std::string>()->default_value("v100"), "GPU model")(
      "name", po::value<std::string>()->default_value("cluster"), "zone name")(
      "from", po::value<std::string>()->default_value(""), "start from a built-in platform (its links, device, GPUs)")(
      "output,o", po::value<std::string>()->default_value(""), "write the XML to FILE");
  const ParsedArgs pa = parse_args(args, own, "platform generate");
  if (!pa.positional.empty() || !pa.overrides.empty())
    throw InputError("ddlsim platform generate: unexpected argument; see `ddlsim platform --help`");
  const auto& vm = pa.vm;
  ClusterDescription c;
  const std::string from = vm["from"].as<std::string>();
  if (!from.empty()) c = find_cluster(from, "--from");
  if (from.empty() || !vm["name"].defaulted()) c.name = vm["name"].as<std::string>();
  if (from.empty() || !vm["device"].defaulted()) c.device = vm["device"].as<std::string>();
  if (from.empty() || !vm["gpus-per-node"].defaulted()) c.gpus_per_node = bounded(vm, "gpus-per-node", kMaxGpusPerNode);
  if (from.empty() || !vm["intra"].defaulted()) c.intra = find_link_kind(vm["intra"].as<std::string>(), "--intra", LinkPlace::Intra);
  if (from.empty() || !vm["inter"].defaulted()) c.inter = find_link_kind(vm["inter"].as<std::string>(), "--inter", LinkPlace::Inter);
  if (from.empty() || !vm["nics"].defaulted()) c.nics = bounded(vm, "nics", 64);
  if (from.empty() || !vm["cpu"].defaulted()) {
    const std::string cpu = vm["cpu"].as<std::string>();
    c.cpu = cpu.empty() ? "" : find_cpu_kind(cpu, "--cpu").name;
  }
  if (from.empty() || !vm["gpus-per-socket"].defaulted())
    c.gpus_per_socket = vm["gpus-per-socket"].as<int>() == 0 ? 0 : bounded(vm, "gpus-per-socket", kMaxGpusPerNode);
  if (from.empty() || !vm["gpus-per-switch"].defaulted()) c.gpus_per_switch = bounded(vm, "gpus-per-switch", kMaxGpusPerNode);
  const std::string p2p = to_lower(vm["peer-to-peer"].as<std::string>());
  if (p2p != "auto" && p2p != "on" && p2p != "off")
    throw InputError("ddlsim platform generate: --peer-to-peer " + vm["peer-to-peer"].as<std::string>() +
                     ": expected auto, on or off");
  c.peer_to_peer = p2p == "auto" ? find_device(c.device, "--device").pcie_peer_to_peer : p2p == "on";
  if (c.cpu.empty() && (c.gpus_per_socket > 0 || c.gpus_per_switch > 1))
    throw InputError("ddlsim platform generate: --gpus-per-socket and --gpus-per-switch need --cpu (the CPU family)");
  c.check_node_topology("ddlsim platform generate: --gpus-per-socket");
  if (from.empty()) c.note = "Generated two-level cluster";
  const int nodes = bounded(vm, "nodes", kMaxGeneratedNodes);
  static_assert(long(kMaxGeneratedNodes) * kMaxGpusPerNode <= kMaxRanks, "a generated platform fits kMaxRanks");
  write_output(vm["output"].as<std::string>(), platform_xml(c, nodes));
  return 0;
}

int show(const Args& args) {
  po::options_description own("platform show options");
  own.add_options()("from", po::value<int>()->default_value(0), "first rank of the route shown")(
      "to", po::value<int>()->default_value(-1), "last rank of the route shown (default: the last rank)");
  const ParsedArgs pa = parse_args(args, own, "platform show");
  if (pa.positional.size() != 1) throw InputError("ddlsim platform show: expected one platform file FILE.xml");
  const int to = pa.vm["to"].as<int>();
  write_output("", platform_summary(pa.positional.front(), pa.vm["from"].as<int>(), to));
  return 0;
}

std::string usage_text() {
  std::string kinds;
  for (const auto& k : link_kinds()) kinds += " " + k.name;
  std::string cpus;
  for (const auto& k : cpu_kinds()) cpus += " " + k.name;
  return "usage: ddlsim platform generate [--nodes N] [--gpus-per-node G] [--intra KIND] [--inter KIND] [--nics N]\n"
         "                                [--cpu FAMILY] [--gpus-per-socket S] [--gpus-per-switch W]\n"
         "                                [--device GPU] [--name NAME] [--from BUILTIN] [--output FILE.xml]\n"
         "       ddlsim platform show FILE.xml [--from RANK] [--to RANK]\n"
         "       ddlsim platform list      built-in platforms and link kinds, with their sources\n"
         "link kinds:" + kinds + "\n"
         "CPU families:" + cpus + "\n"
         "limits: --nodes 1..512, --gpus-per-node 1..64, --nics 1..64. The file routes every pair of nodes\n"
         "(nodes^2 lines): for more nodes simulate the built-in name with --cluster.nodes instead (built in memory).\n";
}

// Every built-in platform and link kind, with the figures and where they come from.
std::string list_text() {
  std::string out = "built-in platforms (cluster.platform):\n";
  std::size_t width = 20;  // the name column: the longest name
  for (const auto& c : builtin_clusters()) width = std::max(width, c.name.size());
  for (const auto& c : builtin_clusters())
    out += fmt::format("  {:<{}} {:>2} x {:<10} intra {:<13} inter {} x {:<10} nodes {}\n      {}\n", c.name, width,
                       c.gpus_per_node, c.device, c.intra.name, c.nics, c.inter.name,
                       c.max_nodes > 0 ? std::to_string(c.max_nodes) : std::string("any"), c.note);
  out += "link kinds (cluster.intra, cluster.inter): effective bandwidth per direction, one-hop latency\n";
  for (const auto& k : link_kinds())
    out += fmt::format("  {:<14} {:>8.3f} GB/s {:>5.1f} us  {}\n", k.name, k.bw_Bps / 1e9, k.latency_s * 1e6, k.note);
  out += "CPU families (cluster.cpu): socket link per direction; Intel root complexes carry GPU peer-to-peer\n"
         "traffic at 5/6 of the PCIe rate\n";
  for (const auto& k : cpu_kinds())
    out += fmt::format("  {:<16} {:>6.1f} GB/s {:<5}  {}\n", k.name, k.socket_link_Bps / 1e9,
                       k.intel_root_complex ? "intel" : "", k.note);
  return out;
}
}  // namespace

int cmd_platform(const Args& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    write_output("", usage_text());
    return args.empty() ? 2 : 0;
  }
  const Args rest(args.begin() + 1, args.end());
  if (args[0] == "generate") return generate(rest);
  if (args[0] == "show") return show(rest);
  if (args[0] == "list") {
    write_output("", list_text());
    return 0;
  }
  throw InputError("ddlsim platform: unknown action '" + args[0] + "'; expected generate, show or list");
}

}  // namespace cli_layer
}  // namespace ddlsim
