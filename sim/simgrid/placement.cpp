#include "simgrid/placement.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "core/error.hpp"
#include "core/text.hpp"
#include "engine/sg_world.hpp"

namespace sg4 = simgrid::s4u;

namespace ddlsim {
inline namespace simgrid_layer {

namespace {

// A platform file is symmetric when the ranks form nodes of g consecutive hosts of one netzone
// each and every route between neighbours inside a node, and between
// consecutive nodes, looks the same (links, latency, bottleneck). Host speeds do not matter: each
// rank's schedule already carries its host's (system.hpp RankKinds). Built-in and generated
// clusters are symmetric by design.
bool same_route(const RouteInfo& a, const RouteInfo& b) {
  const auto close = [](double x, double y) { return std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y)); };
  return a.links.size() == b.links.size() && close(a.latency_s, b.latency_s) && close(a.bw_Bps, b.bw_Bps);
}

bool is_symmetric(const std::vector<sg4::Host*>& ranks, int g) {
  const int p = int(ranks.size()), nodes = p / g;
  if (p % g != 0) return false;
  std::vector<RouteInfo> intra, inter;
  for (int n = 0; n < nodes; ++n) {
    for (int k = 0; k < g; ++k)
      if (ranks[n * g + k]->get_englobing_zone() != ranks[n * g]->get_englobing_zone()) return false;
    for (int k = 0; k + 1 < g; ++k) intra.push_back(route_info(ranks[n * g + k], ranks[n * g + k + 1]));
    if (nodes > 1) inter.push_back(route_info(ranks[n * g], ranks[((n + 1) % nodes) * g]));
  }
  for (const auto* set : {&intra, &inter})
    for (const auto& r : *set)
      if (!same_route(r, set->front())) return false;
  return true;
}

// Whether every link on the routes between consecutive nodes serves one node: each link's routes
// have a node in common (a node's uplink, or a link joining two nodes directly); a backbone or a
// core switch link that every route crosses has none.
bool private_links(const std::vector<sg4::Host*>& ranks, int g) {
  const int nodes = int(ranks.size()) / g;
  std::map<const sg4::Link*, std::vector<int>> common;  // the nodes every route so far shares
  for (int n = 0; n < nodes && nodes > 1; ++n) {
    const int m = (n + 1) % nodes;
    for (const auto* link : route_info(ranks[n * g], ranks[m * g]).links) {
      auto [it, fresh] = common.emplace(link, std::vector<int>{n, m});
      if (fresh) continue;
      std::vector<int>& shared = it->second;
      shared.erase(std::remove_if(shared.begin(), shared.end(), [&](int k) { return k != n && k != m; }), shared.end());
      if (shared.empty()) return false;
    }
  }
  return true;
}

// Ranks on a platform file: the first g hosts (natural order) of each of the first `nodes`
// netzones, zones ordered by their first host; the other hosts, in natural order, after them.
std::vector<sg4::Host*> place_ranks(const std::vector<sg4::Host*>& hosts, int nodes, int g, const std::string& file) {
  std::vector<std::vector<sg4::Host*>> zones;
  std::map<const sg4::NetZone*, std::size_t> index;
  for (auto* h : hosts) {
    const auto [it, fresh] = index.emplace(h->get_englobing_zone(), zones.size());
    if (fresh) zones.emplace_back();
    zones[it->second].push_back(h);
  }
  std::vector<sg4::Host*> ranks, rest;
  for (std::size_t z = 0; z < zones.size(); ++z) {
    const std::size_t take = int(z) < nodes ? std::min<std::size_t>(g, zones[z].size()) : 0;
    if (int(z) < nodes && int(take) < g)
      throw InputError(file + ": node " + std::to_string(z) + " (the netzone of " + zones[z][0]->get_name() + ") has " +
                       std::to_string(zones[z].size()) + " hosts, the scenario needs " + std::to_string(g) +
                       " GPUs per node");
    ranks.insert(ranks.end(), zones[z].begin(), zones[z].begin() + take);
    rest.insert(rest.end(), zones[z].begin() + take, zones[z].end());
  }
  if (int(zones.size()) < nodes)
    throw InputError(file + ": the platform has " + std::to_string(zones.size()) + " nodes (netzones with hosts), " +
                     "the scenario needs " + std::to_string(nodes));
  std::stable_sort(rest.begin(), rest.end(),
                   [](const sg4::Host* x, const sg4::Host* y) { return natural_less(x->get_name(), y->get_name()); });
  ranks.insert(ranks.end(), rest.begin(), rest.end());
  return ranks;
}

}  // namespace

bool stack_guard_pages(int ranks) { return ranks <= kGuardedRanks; }

World make_world(const CommTopology& topo, Algorithm a, const System& sys, const SimGridOptions& o) {
  SimGridOptions guarded = o;
  guarded.stack_guard = stack_guard_pages(topo.ranks());
  sg4::Engine& e = start_engine(guarded);
  std::vector<sg4::Host*> hosts = build_platform(e, sys.cluster, topo.nodes);
  World w;
  w.layout = flat_layout(topo);
  const std::string& file = sys.cluster.xml_path;
  if (!file.empty()) hosts = place_ranks(hosts, topo.nodes, topo.gpus_per_node, file);
  if (int(hosts.size()) < w.layout.ranks)
    throw InputError((file.empty() ? sys.cluster.name : file) + ": the platform has " +
                     std::to_string(hosts.size()) + " hosts, the scenario needs " +
                     std::to_string(w.layout.ranks) + " ranks (nodes x GPUs per node)");
  w.layout.spare_server_hosts = a == Algorithm::ParameterServer && !file.empty() &&
                                int(hosts.size()) >= w.layout.ranks + topo.ps_servers;
  hosts.resize(w.layout.participants());
  w.hosts = std::move(hosts);
  if (!file.empty()) {
    const std::vector<sg4::Host*> ranks(w.hosts.begin(), w.hosts.begin() + w.layout.ranks);
    w.symmetric = !w.layout.spare_server_hosts && is_symmetric(ranks, w.layout.gpus_per_node);
    w.private_links = w.symmetric && private_links(ranks, w.layout.gpus_per_node);
  }
  return w;
}

void pace_pipelined_rings(World& w, const Plans& plans) {
  const auto pipelined = [](const std::vector<Round>& plan) {
    return std::any_of(plan.begin(), plan.end(), [](const Round& r) {
      return (r.pipelined && r.kind == RoundKind::RingStep) || r.kind == RoundKind::ChainPipeline;
    });
  };
  if (std::none_of(plans.begin(), plans.end(), pipelined)) return;
  const auto reduce_chain = [](const std::vector<Round>& plan) {
    return std::any_of(plan.begin(), plan.end(),
                       [](const Round& r) { return r.kind == RoundKind::ChainPipeline && r.param == 1; });
  };
  const bool backwards = std::any_of(plans.begin(), plans.end(), reduce_chain);
  Layout& l = w.layout;
  l.ring_link_Bps.clear();
  l.ring_link_latency_s.clear();
  l.ring_back_link_Bps.clear();
  for (int me = 0; me < l.ranks; ++me) {
    const RouteInfo r = route_info(w.hosts[me], w.hosts[(me + 1) % l.ranks]);
    l.ring_link_Bps.push_back(r.bw_Bps);
    l.ring_link_latency_s.push_back(r.latency_s);
    if (backwards) l.ring_back_link_Bps.push_back(route_info(w.hosts[me], w.hosts[(me + l.ranks - 1) % l.ranks]).bw_Bps);
  }
}

}  // namespace simgrid_layer
}  // namespace ddlsim
