#include "cost/protocol.hpp"

#include <algorithm>

namespace ddlsim {
inline namespace cost_layer {

BytesPerSecond nccl_tree_bus_Bps(const CommTopology& t) {
  return std::min(0.9 * t.flat_route().bw_Bps, (t.nodes > 2 ? 80 : 110) * 1e9);
}

bool protocol_enabled(Protocol p, const CommTopology& topo) {
  if (p != Protocol::Simple && !topo.net_ll) return false;
  return p != Protocol::LL128 || topo.intra_nvlink;
}

Seconds net_step_s(Seconds hw_latency_s, Protocol p, const CommTopology& topo) {
  return hw_latency_s + topo.net_plugin_latency_s * (p == Protocol::Simple ? 2 : 1);
}

BytesPerSecond ll_max_bus_Bps(const CommTopology& topo) {
  using namespace nccl_tuning;
  if (topo.nodes == 1)
    return topo.intra.bw_Bps >= kHopperIntraMin_Bps   ? kLLMaxHopper_Bps
           : topo.intra.bw_Bps >= kAmpereIntraMin_Bps ? kLLMaxAmpere_Bps
                                                      : kLLMaxVolta_Bps;
  return topo.nodes == 2 ? kLLMaxVolta_Bps : kLLMaxManyNodes_Bps;
}

double protocol_efficiency(Algorithm a, Protocol p, const CommTopology& topo, Collective c) {
  using namespace nccl_tuning;
  if (p == Protocol::Simple) return 1;
  if (a == Algorithm::DoubleBinaryTree) {
    if (p == Protocol::LL) return std::min(kTreeLL, ll_max_bus_Bps(topo) / nccl_tree_bus_Bps(topo));
    return topo.nodes == 1 ? kTreeLL128OneNode : kTreeLL128;
  }
  if (p == Protocol::LL) {
    const bool quarter = topo.nodes > 1 || c == Collective::Allreduce || c == Collective::Reduce;
    return std::min(quarter ? kRingLL : kRingLLOneNodeGather, ll_max_bus_Bps(topo) / topo.flat_route().bw_Bps);
  }
  return topo.gpus_per_node < 2 ? kRingLL128OneGpu : kRingLL128;
}

CommTopology protocol_topology(const CommTopology& topo, Algorithm a, Protocol p) {
  using namespace nccl_tuning;
  if (!topo.nccl_protocols) return topo;
  CommTopology t = topo;
  if (a == Algorithm::NvlsTree) {
    t.inter.step_overhead_s = t.rail.step_overhead_s = std::max(0.0, kNvlsTreeStepNet_s - t.inter.latency_s);
    return t;
  }
  const bool tree = a == Algorithm::DoubleBinaryTree;
  if (!tree && (a != Algorithm::Ring || p == Protocol::Simple)) return topo;
  const Latencies& lat = tree ? kTree[int(p)] : kRing[int(p)];
  Seconds intra_floor = intra_step_s(lat, topo.intra_nvlink);
  if (!tree && topo.nodes > 1) intra_floor = std::max(intra_floor, kNetOverhead_s * (p == Protocol::Simple ? kNetOverheadSimple : 1));
  t.intra.step_overhead_s = std::max(0.0, intra_floor - t.intra.latency_s);
  t.inter.step_overhead_s = std::max(0.0, lat.net - t.inter.latency_s);
  return t;
}

double protocol_wire_factor(Protocol p) {
  return p == Protocol::LL ? 2.0 : p == Protocol::LL128 ? 128.0 / 120.0 : 1.0;
}

CommTopology protocol_topology(const CommTopology& topo, Algorithm a, Protocol p, double efficiency) {
  CommTopology t = protocol_topology(topo, a, p);
  const double scale = efficiency * protocol_wire_factor(p);
  if (scale == 1.0) return t;
  for (Route* r : {&t.intra, &t.inter, &t.rail}) r->rendezvous_bytes /= scale;
  return t;
}

}  // namespace cost_layer
}  // namespace ddlsim
