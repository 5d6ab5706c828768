#include "engine/platform_reader.hpp"

#include <cctype>

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"
#include "engine/isolate.hpp"
#include "engine/platform_check.hpp"
#include "engine/sg_world.hpp"

namespace sg4 = simgrid::s4u;

namespace ddlsim {
inline namespace engine_layer {

namespace {
struct Shape {
  std::vector<sg4::Host*> hosts;
  int gpus_per_node = 1;
  int nodes = 1;
  int zones = 1;
  int other = -1;  // first host outside rank 0's zone
};

// SimGrid loads negative, zero or NaN figures without complaint; they would give nonsense times.
void check_figures(const sg4::Engine& e, const std::string& path) {
  for (const auto* l : e.get_all_links()) {
    const double bw = l->get_bandwidth(), lat = l->get_latency();
    if (!(std::isfinite(bw) && bw > 0) || !(std::isfinite(lat) && lat >= 0))
      throw InputError(fmt::format("{}: link '{}' has bandwidth {} B/s and latency {} s; expected a positive "
                                   "bandwidth and a latency >= 0",
                                   path, l->get_name(), format_number(bw), format_number(lat)));
  }
  for (const auto* h : e.get_all_hosts())
    if (!(std::isfinite(h->get_speed()) && h->get_speed() > 0))
      throw InputError(fmt::format("{}: host '{}' has speed {} flop/s; expected a positive speed", path,
                                   h->get_name(), format_number(h->get_speed())));
}

Shape shape_of(const sg4::Engine& e, const std::string& path) {
  check_figures(e, path);
  Shape s;
  s.hosts = hosts_in_natural_order(e);
  if (s.hosts.empty()) throw InputError(path + ": the platform has no hosts");
  std::map<const sg4::NetZone*, int> per_zone;
  for (const auto* h : s.hosts) ++per_zone[h->get_englobing_zone()];
  const auto* zone0 = s.hosts[0]->get_englobing_zone();
  s.gpus_per_node = per_zone[zone0];
  s.zones = int(per_zone.size());
  s.nodes = int(s.hosts.size()) / s.gpus_per_node;
  for (std::size_t i = 0; i < s.hosts.size(); ++i)
    if (s.hosts[i]->get_englobing_zone() != zone0) {
      s.other = int(i);
      break;
    }
  return s;
}

// A bandwidth fraction of the root zone (`ddlsim netfit` writes them); 1 when absent.
double factor_property(const sg4::Engine& e, const char* name, const std::string& path) {
  const char* text = e.get_netzone_root()->get_property(name);
  if (!text) return 1.0;
  if (const auto v = parse_real(text, 0.01, 1)) return *v;
  throw InputError(fmt::format("{}: property {} = '{}': expected a fraction of bandwidth from 0.01 to 1", path, name,
                               clip(text)));
}

// ddlsim.step_overhead_us (written by `ddlsim netfit`): software overhead per round, microseconds; 0 when absent.
double overhead_property(const sg4::Engine& e, const std::string& path) {
  const char* name = "ddlsim.step_overhead_us";
  const char* text = e.get_netzone_root()->get_property(name);
  if (!text) return 0.0;
  if (const auto v = parse_real(text, 0, 1e9)) return *v;
  throw InputError(fmt::format("{}: property {} = '{}': expected microseconds from 0 to 1e9", path, name, clip(text)));
}

// ddlsim.time_p10 or ddlsim.time_p90 (written by `ddlsim netfit`): measured / fitted exchange time; 0 when absent.
double spread_property(const sg4::Engine& e, const char* name, const std::string& path) {
  const char* text = e.get_netzone_root()->get_property(name);
  if (!text) return 0.0;
  if (const auto v = parse_real(text, 0.01, 100)) return *v;
  throw InputError(
      fmt::format("{}: property {} = '{}': expected a ratio of times from 0.01 to 100", path, name, clip(text)));
}

// ddlsim.exchange_factor.LIB and ddlsim.duplex_factor.LIB: {LIB: [exchange, duplex]} (1 where one is missing).
nlohmann::json library_factors(const sg4::Engine& e, const std::string& path) {
  nlohmann::json out = nlohmann::json::object();
  const auto* props = e.get_netzone_root()->get_properties();
  if (!props) return out;
  std::map<std::string, std::pair<double, double>> found;
  for (const auto& [key, value] : *props)
    for (const char* kind : {"ddlsim.exchange_factor.", "ddlsim.duplex_factor."}) {
      const std::string prefix = kind;
      if (key.rfind(prefix, 0) != 0 || key.size() == prefix.size()) continue;
      auto& f = found.emplace(key.substr(prefix.size()), std::make_pair(1.0, 1.0)).first->second;
      (prefix == "ddlsim.exchange_factor." ? f.first : f.second) = factor_property(e, key.c_str(), path);
    }
  for (const auto& [lib, f] : found) out[lib] = {f.first, f.second};
  return out;
}

// Host speeds per node (netzone, ordered by first host), hosts in natural order: placement.cpp's order.
nlohmann::json node_host_speeds(const Shape& s) {
  std::map<const sg4::NetZone*, std::size_t> index;
  nlohmann::json out = nlohmann::json::array();
  for (const auto* h : s.hosts) {
    const auto [it, fresh] = index.emplace(h->get_englobing_zone(), out.size());
    if (fresh) out.push_back(nlohmann::json::array());
    out[it->second].push_back(h->get_speed());
  }
  return out;
}

std::string describe(const std::string& path) {
  sg4::Engine& e = start_engine(SimGridOptions{});
  load_platform_file(e, path);
  const Shape s = shape_of(e, path);
  const char* dev = e.get_netzone_root()->get_property("ddlsim.device");
  nlohmann::json j;
  j["device"] = dev ? dev : "";
  j["gpus_per_node"] = s.gpus_per_node;
  j["nodes"] = s.nodes;
  RouteInfo intra{{}, 0, 0}, inter{{}, 0, 0};
  if (s.gpus_per_node > 1) intra = route_info(s.hosts[0], s.hosts[1]);
  if (s.other >= 0) inter = route_info(s.hosts[0], s.hosts[s.other]);
  if (s.gpus_per_node == 1) intra = {{}, 0, inter.bw_Bps > 0 ? inter.bw_Bps : 1e12};
  if (s.other < 0) inter = intra;
  j["intra_lat"] = intra.latency_s;
  j["intra_bw"] = intra.bw_Bps;
  j["inter_lat"] = inter.latency_s;
  j["inter_bw"] = inter.bw_Bps;
  j["exchange_factor"] = factor_property(e, "ddlsim.exchange_factor", path);  // written by `ddlsim netfit`
  j["duplex_factor"] = factor_property(e, "ddlsim.duplex_factor", path);
  j["step_overhead_us"] = overhead_property(e, path);
  j["time_p10"] = spread_property(e, "ddlsim.time_p10", path);
  j["time_p90"] = spread_property(e, "ddlsim.time_p90", path);
  const char* lib = e.get_netzone_root()->get_property("ddlsim.netbench_library");
  j["factors_library"] = lib ? lib : "";
  j["library_factors"] = library_factors(e, path);
  j["node_host_speeds"] = node_host_speeds(s);
  return j.dump();
}

std::string link_line(const sg4::Link* l) {
  return fmt::format("    {:<28} {:>12} B/s {:>10} s\n", l->get_name(), format_number(l->get_bandwidth()),
                     format_number(l->get_latency()));
}

std::string summarise(const std::string& path, int from, int to) {
  sg4::Engine& e = start_engine(SimGridOptions{});
  load_platform_file(e, path);
  const Shape s = shape_of(e, path);
  const int n = int(s.hosts.size());
  if (to < 0) to = n - 1;
  if (from < 0 || from >= n || to < 0 || to >= n)
    throw InputError(fmt::format("{}: ranks {} and {}: the platform has ranks 0..{}", path, from, to, n - 1));
  std::string out = fmt::format("platform {}\n", path);
  out += fmt::format("  hosts: {} (rank 0 = {}, rank {} = {})\n", n, s.hosts[0]->get_name(), n - 1,
                     s.hosts[n - 1]->get_name());
  out += fmt::format("  nodes: {} netzone(s) with hosts; {} GPU(s) in rank 0's node\n", s.zones, s.gpus_per_node);
  out += fmt::format("  links: {}\n", e.get_link_count());
  const char* dev = e.get_netzone_root()->get_property("ddlsim.device");
  if (dev) out += fmt::format("  device: {}\n", dev);
  const RouteInfo r = route_info(s.hosts[from], s.hosts[to]);
  out += fmt::format("  route rank {} ({}) -> rank {} ({}): {} link(s), latency {} s, bottleneck {} B/s\n", from,
                     s.hosts[from]->get_name(), to, s.hosts[to]->get_name(), r.links.size(),
                     format_number(r.latency_s), r.links.empty() ? "-" : format_number(r.bw_Bps));
  for (const auto* l : r.links) out += link_line(l);
  return out;
}
// The file as a real XML parser reads it, before SimGrid's lexer does (platform_check.hpp).
void check_xml(const std::string& path) {
  check_platform_xml(path, read_text_file(path, "SimGrid platform file"));
}
}  // namespace

ClusterDescription read_platform_file(const std::string& path) {
  check_xml(path);
  const auto j = nlohmann::json::parse(run_isolated([&] { return describe(path); }, path));
  ClusterDescription c;
  c.name = path;  // names the file in messages and reports
  c.device = j["device"].get<std::string>();
  c.gpus_per_node = j["gpus_per_node"].get<int>();
  c.max_nodes = j["nodes"].get<int>();
  const double intra_lat = j["intra_lat"].get<double>(), inter_lat = j["inter_lat"].get<double>();
  c.intra = {"file", j["intra_bw"].get<double>(), intra_lat / 2, "route between two GPUs of a node in " + path};
  c.inter = {"file", j["inter_bw"].get<double>(), std::max(0.0, inter_lat - intra_lat) / 2,
             "route between two nodes in " + path};
  c.note = "read from " + path;
  c.xml_path = path;
  c.inter.exchange_factor = j["exchange_factor"].get<double>();
  c.inter.duplex_factor = j["duplex_factor"].get<double>();
  c.factors_library = j["factors_library"].get<std::string>();
  c.step_overhead_s = j["step_overhead_us"].get<double>() * 1e-6;
  c.time_p10 = j["time_p10"].get<double>();
  c.time_p90 = j["time_p90"].get<double>();
  if ((c.time_p10 > 0) != (c.time_p90 > 0) || c.time_p10 > c.time_p90)
    throw InputError(path + ": properties ddlsim.time_p10 and ddlsim.time_p90: expected both, the first at most "
                            "the second");
  for (const auto& [lib, f] : j["library_factors"].items()) c.library_factors[lib] = {f[0].get<double>(), f[1].get<double>()};
  for (const auto& node : j["node_host_speeds"]) c.node_host_speeds.push_back(node.get<std::vector<double>>());
  return c;
}

std::string platform_summary(const std::string& path, int from, int to) {
  check_xml(path);
  return run_isolated([&] { return summarise(path, from, to); }, path);
}

}  // namespace engine_layer
}  // namespace ddlsim
