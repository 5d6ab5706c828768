#include "cost/collectives.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/text.hpp"

namespace ddlsim {

namespace {
int floor_log2(int p) {
  int l = 0;
  while ((2 << l) <= p) ++l;
  return l;
}
int ceil_log2(int p) {
  int l = 0;
  while ((1 << l) < p) ++l;
  return l;
}
}  // namespace

Seconds ring_allreduce_s(int p, Bytes n, Route r) {
  if (p <= 1) return 0;
  const BytesPerSecond bw = p == 2 ? r.exchange_bw_Bps() : r.ring_bw_Bps();
  return 2.0 * (p - 1) * (r.latency_s + n / (p * bw));
}

Seconds halving_doubling_allreduce_s(int p, Bytes n, Route r) {
  if (p <= 1) return 0;
  const int l = floor_log2(p);
  const int q = 1 << l;
  Seconds t = 2.0 * l * r.latency_s + 2.0 * n * (q - 1) / (q * r.exchange_bw_Bps());
  if (q != p) t += 2.0 * (r.latency_s + n / r.bw_Bps);
  return t;
}

Seconds tree_allreduce_s(int p, Bytes n, Route r) {
  if (p <= 1) return 0;
  return 2.0 * ceil_log2(p) * (r.latency_s + n / r.bw_Bps);
}

Seconds hierarchical_allreduce_s(int nodes, int gpus_per_node, Bytes n, Route intra, Route inter) {
  const Seconds local =
      gpus_per_node > 1 ? 2.0 * ceil_log2(gpus_per_node) * (intra.latency_s + n / intra.bw_Bps) : 0;
  return local + ring_allreduce_s(nodes, n, inter);
}

Seconds parameter_server_s(int workers, int servers, Bytes n, Route r) {
  if (workers <= 1 && servers <= 1) return 0;
  const double load = std::max(double(workers) / servers, 1.0);
  return 2.0 * (r.latency_s + load * n / r.bw_Bps);
}

Seconds collective_time_s(Algorithm a, const CommTopology& topo, Bytes n) {
  const int p = topo.ranks();
  if (p <= 1 || n <= 0) return 0;
  switch (a) {
    case Algorithm::Ring: return ring_allreduce_s(p, n, topo.flat_route());
    case Algorithm::HalvingDoubling: return halving_doubling_allreduce_s(p, n, topo.flat_route());
    case Algorithm::Tree: return tree_allreduce_s(p, n, topo.flat_route());
    case Algorithm::Hierarchical:
      return hierarchical_allreduce_s(topo.nodes, topo.gpus_per_node, n, topo.intra, topo.inter);
    case Algorithm::ParameterServer:
      return parameter_server_s(p, topo.ps_servers, n, topo.flat_route());
  }
  return 0;
}

BytesPerSecond algbw_Bps(Bytes n, Seconds t) { return t > 0 ? n / t : 0; }

BytesPerSecond busbw_Bps(Bytes n, Seconds t, int p) {
  return p > 1 ? algbw_Bps(n, t) * 2.0 * (p - 1) / p : 0;
}

}  // namespace ddlsim
