#include "system/platform_xml.hpp"

#include <fmt/format.h>

#include "core/text.hpp"

namespace ddlsim {
inline namespace system_layer {

namespace {
// Numbers as SimGrid reads them: bandwidth in Bps, latency in s, shortest round-trip form.
std::string bw(BytesPerSecond b) { return fmt::format("{:.12g}Bps", b); }
std::string lat(Seconds s) { return fmt::format("{:.12g}s", s); }

std::string xml_escape_comment(std::string s) {
  for (std::size_t i = s.find("--"); i != std::string::npos; i = s.find("--", i)) s.replace(i, 2, "- ");
  return s;
}

std::string header(const ClusterDescription& c, int nodes) {
  std::string out =
      "<?xml version='1.0'?>\n"
      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n";
  out += fmt::format(
      "<!-- {}: {} node(s) x {} GPU(s) ({}), written by `ddlsim platform generate`.\n"
      "     {}\n"
      "     Assumptions:\n"
      "     * every GPU is a host gpu-NODE-GPU with a private link to its node's router\n"
      "       ({}: {}); figures are effective (achieved) rates per direction, not line rates.\n"
      "     * each node has ONE uplink to one switch ({}: {}), shared by all of its GPUs\n"
      "       ({} NIC(s) per node, aggregated); links are split-duplex (full duplex).\n"
      "     * routes: GPU-GPU in a node = 2 intra hops; across nodes = intra, inter, inter, intra\n"
      "       (the analytic model's routes); the switch itself is not a bottleneck.\n"
      "     * host speed is nominal: compute times come from ddlsim's cost model, not from here.\n"
      "     * the property `device` names the GPU model for ddlsim. -->\n",
      c.name, nodes, c.gpus_per_node, c.device, xml_escape_comment(c.note), c.intra.name,
      xml_escape_comment(c.intra.note), c.inter.name, xml_escape_comment(c.inter.note), c.nics);
  if (tcp_link_kind(c.inter.name))
    out += "<!-- NCCL, gloo and MPI run a socket transport over these links: CPU threads bound each GPU across\n"
           "     nodes (docs/model.md, \"NCCL over TCP sockets\"). ddlsim applies that bound to built-in clusters, not\n"
           "     to a platform file, whose links it takes as measured. -->\n";
  const std::string path = c.gpu_path_note();
  if (!path.empty())
    out += fmt::format("<!-- CPU {}, {} GPU(s) per socket, {} per PCIe switch: each GPU's link carries {:.12g} GB/s,\n"
                       "     what bounds a ring through the node ({}). -->\n",
                       c.cpu, c.gpus_per_socket > 0 ? std::to_string(c.gpus_per_socket) : std::string("all"),
                       c.gpus_per_switch, c.gpu_path_Bps() / 1e9, xml_escape_comment(path));
  return out;
}
}  // namespace

std::string gpu_host_name(int node, int gpu) { return fmt::format("gpu-{}-{}", node, gpu); }

std::string platform_xml(const ClusterDescription& c, int nodes) {
  std::string out = header(c, nodes);
  out += fmt::format("<zone id=\"{}\" routing=\"Full\">\n", c.name.empty() ? "cluster" : c.name);
  out += fmt::format("  <prop id=\"ddlsim.device\" value=\"{}\"/>\n", c.device);
  for (int n = 0; n < nodes; ++n)
    out += fmt::format(
        "  <cluster id=\"node{0}\" prefix=\"gpu-{0}-\" suffix=\"\" radical=\"0-{1}\" speed=\"1Tf\" "
        "bw=\"{2}\" lat=\"{3}\" sharing_policy=\"SPLITDUPLEX\" router_id=\"node{0}-router\"/>\n",
        n, c.gpus_per_node - 1, bw(c.gpu_path_Bps()), lat(c.intra.latency_s));
  for (int n = 0; n < nodes; ++n)
    out += fmt::format(
        "  <link id=\"node{}-uplink\" bandwidth=\"{}\" latency=\"{}\" sharing_policy=\"SPLITDUPLEX\"/>\n", n,
        bw(c.uplink_Bps()), lat(c.inter.latency_s));
  for (int a = 0; a < nodes; ++a)
    for (int b = a + 1; b < nodes; ++b)
      out += fmt::format(
          "  <zoneRoute src=\"node{0}\" dst=\"node{1}\" gw_src=\"node{0}-router\" gw_dst=\"node{1}-router\">"
          "<link_ctn id=\"node{0}-uplink\" direction=\"UP\"/><link_ctn id=\"node{1}-uplink\" "
          "direction=\"DOWN\"/></zoneRoute>\n",
          a, b);
  out += "</zone>\n</platform>\n";
  return out;
}

}  // namespace system_layer
}  // namespace ddlsim
