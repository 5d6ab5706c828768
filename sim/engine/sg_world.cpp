#include "engine/sg_world.hpp"

#include <algorithm>
#include <limits>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/text.hpp"
#include "engine/isolate.hpp"
#include "system/platform_xml.hpp"

namespace sg4 = simgrid::s4u;

namespace ddlsim {
inline namespace engine_layer {

sg4::Engine& start_engine(const SimGridOptions& o) {
  // argv must outlive the engine; the child process ends with it.
  static int argc = 2;
  static char name[] = "ddlsim";
  static char log[] = "--log=root.thres:error";
  static char* argv[] = {name, log, nullptr};
  auto* e = new sg4::Engine(&argc, argv);
  sg4::Engine::set_config("contexts/factory:raw");
  sg4::Engine::set_config("contexts/stack-size:128");
  // A guard page under each actor's stack turns an overflow into a crash the fork reports, not
  // silent corruption; but each costs a memory mapping, and the kernel allows about 65,530
  // (vm.max_map_count), which 32,768 ranks of two actors would exceed ("Failed to protect stack"):
  // large runs go without (make_world: stack_guard_pages).
  sg4::Engine::set_config(std::string("contexts/guard-size:") + (o.stack_guard ? "1" : "0"));
  sg4::Engine::set_config("network/model:" + o.network_model);
  sg4::Engine::set_config(std::string("network/crosstraffic:") + (o.crosstraffic ? "1" : "0"));
  sg4::Engine::set_config("network/TCP-gamma:" + format_number(o.tcp_gamma_bytes));
  if (o.latency_factor > 0) sg4::Engine::set_config("network/latency-factor:" + format_number(o.latency_factor));
  if (o.bandwidth_factor > 0)
    sg4::Engine::set_config("network/bandwidth-factor:" + format_number(o.bandwidth_factor));
  return *e;
}

namespace {
using Dir = sg4::LinkInRoute::Direction;

// One star zone for the whole cluster (SimGrid's name checks walk every zone, so a zone per
// node is quadratic in the node count): a GPU's route to the centre is its own link then its
// node's uplink; GPUs of one node reach each other through bypass routes over their own links
// only. The routes are those of platform_xml(): 2 intra hops inside a node, intra, inter,
// inter, intra across nodes. Where the library's transport bounds a GPU across nodes
// (ClusterDescription::transport_Bps), the route to the centre crosses a link of that rate of the
// GPU's own as well, which its routes inside the node do not. Where the library exchanges through
// host memory inside a node (ClusterDescription::host_exchange_Bps), the routes inside the node
// cross a link of that rate of each GPU's, which its route to the centre does not.
void build_node(sg4::NetZone* top, const ClusterDescription& c, int n) {
  auto* up = top->create_split_duplex_link("node" + std::to_string(n) + "-uplink", c.uplink_Bps())
                 ->set_latency(c.inter.latency_s);
  std::vector<sg4::Host*> gpus;
  std::vector<sg4::Link*> links;
  for (int k = 0; k < c.gpus_per_node; ++k) {
    const std::string host = gpu_host_name(n, k);
    gpus.push_back(top->create_host(host, 1e12));
    links.push_back(top->create_split_duplex_link(host + "-link", c.gpu_path_Bps())->set_latency(c.intra.latency_s));
    std::vector<sg4::LinkInRoute> out{sg4::LinkInRoute(links.back(), Dir::UP)};
    if (c.transport_Bps() > 0)
      out.emplace_back(top->create_split_duplex_link(host + "-transport", c.transport_Bps())->set_latency(0), Dir::UP);
    out.emplace_back(up, Dir::UP);
    top->add_route(gpus.back()->get_netpoint(), nullptr, nullptr, nullptr, out, true);
  }
  std::vector<sg4::Link*> host_paths;
  if (c.host_exchange_Bps > 0)
    for (int k = 0; k < c.gpus_per_node; ++k)
      host_paths.push_back(
          top->create_split_duplex_link(gpu_host_name(n, k) + "-hostmem", c.host_exchange_Bps)->set_latency(0));
  for (int a = 0; a < c.gpus_per_node; ++a)
    for (int b = 0; b < c.gpus_per_node; ++b) {
      if (a == b) continue;
      std::vector<sg4::LinkInRoute> route{sg4::LinkInRoute(links[a], Dir::UP)};
      if (!host_paths.empty()) {
        route.emplace_back(host_paths[a], Dir::UP);
        route.emplace_back(host_paths[b], Dir::DOWN);
      }
      route.emplace_back(links[b], Dir::DOWN);
      top->add_bypass_route(gpus[a]->get_netpoint(), gpus[b]->get_netpoint(), nullptr, nullptr, route);
    }
}
}  // namespace

void load_platform_file(sg4::Engine& e, const std::string& path) {
  check_input_file(path, "SimGrid platform file");
  try {
    e.load_platform(path);
  } catch (const std::exception& ex) {
    std::string what = ex.what();
    std::replace(what.begin(), what.end(), '\n', ' ');  // one line
    if (what.find(path) == std::string::npos) what = path + ": " + what;
    throw InputError(what);
  }
}

std::vector<sg4::Host*> build_platform(sg4::Engine& e, const ClusterDescription& c, int nodes) {
  if (!c.xml_path.empty()) {
    load_platform_file(e, c.xml_path);
  } else {
    auto* top = sg4::create_star_zone(c.name.empty() ? "cluster" : c.name);
    for (int n = 0; n < nodes; ++n) build_node(top, c, n);
    top->seal();
  }
  return hosts_in_natural_order(e);
}

std::vector<sg4::Host*> hosts_in_natural_order(const sg4::Engine& e) {
  std::vector<sg4::Host*> hosts = e.get_all_hosts();
  std::stable_sort(hosts.begin(), hosts.end(),
                   [](const sg4::Host* a, const sg4::Host* b) { return natural_less(a->get_name(), b->get_name()); });
  return hosts;
}

RouteInfo route_info(const sg4::Host* a, const sg4::Host* b) {
  note_stage("finding the route from host " + a->get_name() + " to host " + b->get_name() +
             " (a large cluster at full fidelity spends long here and in its messages: simulation.fidelity = "
             "fast)");
  RouteInfo r;
  a->route_to(b, r.links, &r.latency_s);
  r.bw_Bps = std::numeric_limits<double>::infinity();
  for (const auto* l : r.links) r.bw_Bps = std::min(r.bw_Bps, l->get_bandwidth());
  return r;
}

}  // namespace engine_layer
}  // namespace ddlsim
