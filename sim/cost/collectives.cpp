#include "cost/collectives.hpp"

#include <algorithm>
#include <cmath>

#include "cost/collective_plan.hpp"
#include "cost/eager_rounds.hpp"

namespace ddlsim {
inline namespace cost_layer {

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
  return 2.0 * (p - 1) * (r.step_latency_s() + n / (p * bw));
}

Seconds halving_doubling_allreduce_s(int p, Bytes n, Route r) {
  if (p <= 1) return 0;
  const int l = floor_log2(p);
  const int q = 1 << l;
  Seconds t = 2.0 * l * r.step_latency_s() + 2.0 * n * (q - 1) / (q * r.exchange_bw_Bps());
  if (q != p) t += 2.0 * (r.step_latency_s() + n / r.bw_Bps);
  return t;
}

Seconds binary_blocks_allreduce_s(int p, Bytes n, Route r) {
  if (p <= 1) return 0;
  const int l = floor_log2(p);
  Seconds t = 2.0 * l * r.step_latency_s() + 2.0 * n * (1 - std::ldexp(1.0, -l)) / r.exchange_bw_Bps();
  const std::vector<BinaryBlock> blocks = binary_blocks(p);
  for (std::size_t j = 0; j + 1 < blocks.size(); ++j) t += 2.0 * (r.step_latency_s() + n / (blocks[j].size * r.bw_Bps));
  return t;
}

Seconds tree_allreduce_s(int p, Bytes n, Route r) {
  if (p <= 1) return 0;
  return 2.0 * ceil_log2(p) * (r.step_latency_s() + n / r.bw_Bps);
}

Seconds hierarchical_allreduce_s(int nodes, int gpus_per_node, Bytes n, Route intra, Route inter) {
  const Seconds local =
      gpus_per_node > 1 ? 2.0 * ceil_log2(gpus_per_node) * (intra.step_latency_s() + n / intra.bw_Bps) : 0;
  return local + ring_allreduce_s(nodes, n, inter);
}

namespace {
// A tree chunk's hop between nodes: on two nodes both trees' edges join the same pair (the
// exchange's bandwidth), on more each node sends and receives at once (the ring's).
RingHop tree_inter_hop(const Route& inter, int nodes, Bytes m, Seconds extra_overhead_s) {
  const BytesPerSecond bw = nodes == 2 ? inter.exchange_bw_Bps() : inter.ring_bw_Bps();
  return {inter.step_latency_s() + extra_overhead_s, m / bw + inter.rendezvous_extra_s(m)};
}
}  // namespace

Seconds double_binary_tree_allreduce_s(int nodes, int gpus_per_node, Bytes n, Route intra, Route inter,
                                       bool steps_in_flight) {
  const TreePipeline t = dbt_pipeline(nodes, gpus_per_node, n);
  const Bytes m = t.chunk_bytes;
  if (steps_in_flight)
    return pipelined_tree_s(t.chunks, t.depth, gpus_per_node, nodes, ring_hop(intra, m), tree_inter_hop(inter, nodes, m, 0));
  Seconds s = 0;
  if (gpus_per_node > 1) s += 2.0 * (2 * t.chunks + gpus_per_node - 2) * (intra.step_latency_s() + m / intra.bw_Bps);
  if (nodes > 1) {
    const int colours = nodes == 2 ? 1 : 2;
    const BytesPerSecond bw = nodes == 2 ? inter.exchange_bw_Bps() : inter.ring_bw_Bps();
    s += 2.0 * colours * (t.chunks + t.depth - 1) * (inter.step_latency_s() + m / bw);
  }
  return s;
}

Seconds parameter_server_s(int workers, int servers, Bytes n, Route r) {
  if (workers <= 1 && servers <= 1) return 0;
  const double load = std::max(double(workers) / servers, 1.0);
  return 2.0 * (r.step_latency_s() + load * n / r.bw_Bps);
}

Seconds rabenseifner_allreduce_s(int p, Bytes n, Route r) {
  if (p <= 1) return 0;
  const int l = floor_log2(p);
  const int q = 1 << l;
  Seconds t = 2.0 * l * r.step_latency_s() + 2.0 * n * (q - 1) / (q * r.exchange_bw_Bps());
  if (q != p) t += 3.0 * r.step_latency_s() + n / (2.0 * r.exchange_bw_Bps()) + n / (2.0 * r.bw_Bps) + n / r.bw_Bps;
  return t;
}

Seconds recursive_doubling_allreduce_s(int p, Bytes n, Route r) {
  if (p <= 1) return 0;
  const int l = floor_log2(p);
  Seconds t = l * (r.step_latency_s() + n / r.exchange_bw_Bps());
  if ((1 << l) != p) t += 2.0 * (r.step_latency_s() + n / r.bw_Bps);
  return t;
}

Seconds nvls_allreduce_s(int p, Bytes n, Route r) {
  if (p <= 1) return 0;
  const BytesPerSecond bw = p == 2 ? r.exchange_bw_Bps() : r.ring_bw_Bps();
  return 2.0 * r.step_latency_s() + kNvlsLatency_s + n * (p + 1) / (p * bw * kNvlsLinkShare);
}

Seconds ring_half_allreduce_s(int p, Bytes n, Route r) { return ring_allreduce_s(p, n, r) / 2; }

RingHop ring_hop(const Route& r, Bytes bytes, Seconds extra_overhead_s) {
  return {r.step_latency_s() + extra_overhead_s, bytes / r.bw_Bps + r.rendezvous_extra_s(bytes)};
}

namespace {
// The longest path through a window of w hops: both roundings of its inter-node hops.
Seconds ring_window_s(int steps, int g, const RingHop& intra, const RingHop& inter, int w) {
  Seconds t = 0;
  for (int e : {w / g, (w + g - 1) / g}) {
    const int i = w - e;
    Seconds slowest = 0, path = 0;  // the hops' terms only where the window has such hops
    if (e > 0) slowest = inter.serial_s, path += e * inter.total_s();
    if (i > 0) slowest = std::max(slowest, intra.serial_s), path += i * intra.total_s();
    t = std::max(t, path + (steps - w) * slowest);
  }
  return t;
}
}  // namespace

// The maximum over every w of ring_window_s, found in O(g) windows: from w = max(g, 2) on, each
// window visits both kinds of hop (one kind where g = 1), so the slowest serial is fixed, and along
// the windows of one residue w mod g the inter-node hops grow by one per g hops: the time is linear
// in w there, largest at the first or last such window. The windows below that are tried one by one.
Seconds pipelined_ring_s(int steps, int g, RingHop intra, RingHop inter) {
  Seconds t = 0;
  const int small = std::min(steps, std::max(g, 2) - 1);
  for (int w = 1; w <= small; ++w) t = std::max(t, ring_window_s(steps, g, intra, inter, w));
  for (int r = 0; r < g && small < steps; ++r) {
    const int first = small + 1 + ((r - (small + 1)) % g + g) % g;  // the first w > small with w % g == r
    if (first > steps) continue;
    const int last = first + (steps - first) / g * g;
    t = std::max({t, ring_window_s(steps, g, intra, inter, first), ring_window_s(steps, g, intra, inter, last)});
  }
  return t;
}

Seconds pipelined_tree_s(int chunks, int depth, int g, int nodes, RingHop intra, RingHop inter) {
  const int intra_hops = 2 * (g - 1), inter_hops = nodes > 1 ? 2 * depth : 0;
  const int k_intra = g > 2 ? 4 : g == 2 ? 2 : 0, k_inter = nodes > 2 ? 4 : nodes == 2 ? 2 : 0;
  const Seconds period = std::max(k_intra * intra.serial_s, k_inter * inter.serial_s);
  return intra_hops * intra.total_s() + inter_hops * inter.total_s() + (chunks - 1) * period;
}

Seconds pipelined_nvls_tree_s(int chunks, int depth, int nodes, RingHop intra, RingHop inter) {
  const int k_inter = nodes > 2 ? 4 : 2;
  const Seconds period = std::max(2 * intra.serial_s, k_inter * inter.serial_s);
  return kNvlsLatency_s + 2 * intra.total_s() + 2 * depth * inter.total_s() + (chunks - 1) * period;
}

Seconds pipelined_collnet_s(int chunks, int g, RingHop intra, RingHop inter) {
  const Seconds period = std::max(2 * intra.serial_s, inter.serial_s);
  return collnet_latency_s(g) + 2 * intra.total_s() + inter.total_s() + (chunks - 1) * period;
}

Seconds pipelined_chain_s(int chunks, int g, int nodes, RingHop intra, RingHop inter) {
  const int p = g * nodes;
  const Seconds period = std::max(g > 1 ? intra.serial_s : 0.0, nodes > 1 ? inter.serial_s : 0.0);
  return (p - nodes) * intra.total_s() + (nodes - 1) * inter.total_s() + (chunks - 1) * period;
}

namespace {
// The ring of `steps` steps of n/p bytes over the topology's hops, as collective_plan's ring_plan
// sends them (the flat route's two-way factor on every message), with steps in flight.
Seconds pipelined_ring_collective_s(const CommTopology& t, Bytes n, int steps) {
  const int p = t.ranks();
  const Route f = t.flat_route();
  const Bytes c = n / p / (p == 2 ? f.exchange_factor : f.duplex_factor);
  return pipelined_ring_s(steps, t.gpus_per_node, ring_hop(t.intra, c), ring_hop(t.inter, c));
}
bool pipelined(const CommTopology& t) { return t.steps_in_flight && t.nodes > 1; }

// One NodeAllPairs round of NVLink SHARP's traffic for c bytes: g - 1 messages on each GPU's link.
RingHop nvls_hop(const CommTopology& t, Bytes c, Seconds extra_overhead_s = 0) {
  const int g = t.gpus_per_node;
  return {t.intra.step_latency_s() + extra_overhead_s, (g - 1) * nvls_message_bytes(c, g) / t.intra.bw_Bps};
}

// NCCL's ring broadcast or reduce (collective_plan.cpp chain_plan's chunks).
Seconds chain_s(const CommTopology& t, Bytes n) {
  const int chunks = chain_chunks(n);
  const Bytes c = n / chunks;
  if (t.steps_in_flight)
    return pipelined_chain_s(chunks, t.gpus_per_node, t.nodes, ring_hop(t.intra, c), ring_hop(t.inter, c));
  const Route r = t.flat_route();
  return (chunks + t.ranks() - 2) * (r.step_latency_s() + c / r.bw_Bps);
}
}  // namespace

Seconds nvls_tree_allreduce_s(const CommTopology& t, Bytes n) {
  const int nodes = t.nodes, depth = dbt_depth(nodes);
  if (t.steps_in_flight) {
    const int chunks = nvls_tree_chunks(n, nodes, t.gpus_per_node);
    const Bytes c = n / chunks;
    return pipelined_nvls_tree_s(chunks, depth, nodes, nvls_hop(t, c), tree_inter_hop(t.rail, nodes, c / (2.0 * t.gpus_per_node), 0));
  }
  const int colours = nodes == 2 ? 1 : 2;
  return 2 * nvls_hop(t, n, kNvlsLatency_s / 2).total_s() +
         2.0 * colours * depth * tree_inter_hop(t.rail, nodes, n / (2.0 * t.gpus_per_node), 0).total_s();
}

namespace {
// One NodeAllPairs round of collnet's scatter or gather for c bytes: g - 1 pieces of c/g on each
// GPU's link.
RingHop collnet_intra_hop(const CommTopology& t, Bytes c, Seconds extra_overhead_s = 0) {
  const int g = t.gpus_per_node;
  return {t.intra.step_latency_s() + extra_overhead_s, (g - 1) * (c / g) / t.intra.bw_Bps};
}
}  // namespace

Seconds collnet_allreduce_s(const CommTopology& t, Bytes n) {
  const int g = t.gpus_per_node;
  if (t.steps_in_flight) {
    const int chunks = collnet_chunks(n, g);
    const Bytes c = n / chunks;
    return pipelined_collnet_s(chunks, g, collnet_intra_hop(t, c), tree_inter_hop(t.rail, t.nodes, c / g, 0));
  }
  return collnet_latency_s(g) + 2 * collnet_intra_hop(t, n).total_s() + tree_inter_hop(t.rail, t.nodes, n / g, 0).total_s();
}

Seconds binomial_tree_s(int p, Bytes n, Route r) { return tree_allreduce_s(p, n, r) / 2; }

Seconds pairwise_alltoall_s(int p, Bytes n, Route r) { return ring_half_allreduce_s(p, n, r); }

namespace {
// The rounds played rank by rank where MPI's eager sends let ranks run ahead (cost/eager_rounds.hpp);
// a negative time where they change nothing and the closed forms apply.
Seconds eager_time_s(Collective c, Algorithm a, const CommTopology& topo, Bytes n) {
  if (topo.eager_limit_bytes <= 0) return -1;
  const Layout l = flat_layout(topo);
  const std::vector<Round> plan = collective_plan(c, a, l, n);
  return eager_sends_matter(plan, l) ? eager_plan_time_s(plan, l, topo.flat_route()) : -1;
}
}  // namespace

Seconds collective_time_s(Algorithm a, const CommTopology& topo, Bytes n) {
  const int p = topo.ranks();
  if (p <= 1 || n <= 0) return 0;
  if (const Seconds t = eager_time_s(Collective::Allreduce, a, topo, n); t >= 0) return t;
  switch (a) {
    case Algorithm::Ring:
      return pipelined(topo) ? pipelined_ring_collective_s(topo, n, 2 * (p - 1)) : ring_allreduce_s(p, n, topo.flat_route());
    case Algorithm::HalvingDoubling:
      return topo.binary_blocks ? binary_blocks_allreduce_s(p, n, topo.flat_route())
                                : halving_doubling_allreduce_s(p, n, topo.flat_route());
    case Algorithm::Tree: return tree_allreduce_s(p, n, topo.flat_route());
    case Algorithm::Hierarchical:
      return hierarchical_allreduce_s(topo.nodes, topo.gpus_per_node, n, topo.intra, topo.inter);
    case Algorithm::DoubleBinaryTree:
      return double_binary_tree_allreduce_s(topo.nodes, topo.gpus_per_node, n, topo.intra, topo.inter,
                                            topo.steps_in_flight);
    case Algorithm::Nvls: return nvls_allreduce_s(p, n, topo.flat_route());
    case Algorithm::NvlsTree: return topo.nodes > 1 && topo.gpus_per_node > 1 ? nvls_tree_allreduce_s(topo, n) : 0;
    case Algorithm::CollnetDirect: return topo.nodes > 1 && topo.gpus_per_node > 1 ? collnet_allreduce_s(topo, n) : 0;
    case Algorithm::ParameterServer:
      return parameter_server_s(p, topo.ps_servers, n, topo.flat_route());
    case Algorithm::Rabenseifner: return rabenseifner_allreduce_s(p, n, topo.flat_route());
    case Algorithm::RecursiveDoubling: return recursive_doubling_allreduce_s(p, n, topo.flat_route());
    case Algorithm::Pairwise:
    case Algorithm::Auto: return 0;
  }
  return 0;
}

Seconds collective_time_s(Collective c, Algorithm a, const CommTopology& topo, Bytes n) {
  const int p = topo.ranks();
  if (p <= 1 || n <= 0 || !supports(c, a)) return 0;
  const Route r = topo.flat_route();
  if (c != Collective::Allreduce)
    if (const Seconds t = eager_time_s(c, a, topo, n); t >= 0) return t;
  switch (c) {
    case Collective::Allreduce: return collective_time_s(a, topo, n);
    case Collective::ReduceScatter:
    case Collective::Allgather: return pipelined(topo) ? pipelined_ring_collective_s(topo, n, p - 1) : ring_half_allreduce_s(p, n, r);
    case Collective::Broadcast:
    case Collective::Reduce: return a == Algorithm::Ring ? chain_s(topo, n) : binomial_tree_s(p, n, r);
    case Collective::Alltoall: return pairwise_alltoall_s(p, n, r);
  }
  return 0;
}

Seconds plan_time_s(const std::vector<Round>& plan, const CommTopology& topo) {
  Seconds t = 0;
  for (const Round& round : plan) {
    if (round.kind == RoundKind::ChainPipeline) {
      t += pipelined_chain_s(round.repeat, topo.gpus_per_node, topo.nodes,
                             ring_hop(topo.intra, round.bytes, round.node_overhead_s),
                             ring_hop(topo.inter, round.bytes, round.overhead_s));
      continue;
    }
    if (round.kind == RoundKind::NvlsTreePipeline) {
      t += pipelined_nvls_tree_s(round.repeat, dbt_depth(topo.nodes), topo.nodes, nvls_hop(topo, round.bytes, round.node_overhead_s),
                                 tree_inter_hop(topo.rail, topo.nodes, round.bytes / (2.0 * topo.gpus_per_node), round.overhead_s));
      continue;
    }
    if (round.kind == RoundKind::CollnetPipeline) {
      t += pipelined_collnet_s(round.repeat, topo.gpus_per_node, collnet_intra_hop(topo, round.bytes, round.node_overhead_s),
                               tree_inter_hop(topo.rail, topo.nodes, round.bytes / topo.gpus_per_node, round.overhead_s));
      continue;
    }
    if (round.kind == RoundKind::DbtPipeline) {
      t += pipelined_tree_s(round.repeat, dbt_depth(topo.nodes), topo.gpus_per_node, topo.nodes,
                            ring_hop(topo.intra, round.bytes, round.node_overhead_s),
                            tree_inter_hop(topo.inter, topo.nodes, round.bytes, round.overhead_s));
      continue;
    }
    if (round.pipelined && topo.nodes > 1) {
      t += pipelined_ring_s(round.repeat, topo.gpus_per_node, ring_hop(topo.intra, round.bytes, round.node_overhead_s),
                            ring_hop(topo.inter, round.bytes, round.overhead_s));
      continue;
    }
    const bool rail = round.kind == RoundKind::RailDbtUp || round.kind == RoundKind::RailDbtDown ||
                      round.kind == RoundKind::RailShift;
    const Route r = node_round(round.kind) ? topo.intra
                    : round.kind == RoundKind::LeaderRingStep ? topo.inter
                    : rail ? topo.rail
                           : topo.flat_route();
    int messages = round.kind == RoundKind::AllPairs       ? topo.ranks() - 1  // on each rank's link
                   : round.kind == RoundKind::NodeAllPairs ? topo.gpus_per_node - 1
                                                           : 1;
    if (round.kind == RoundKind::BlockUp || round.kind == RoundKind::BlockDown) {
      const std::vector<BinaryBlock> b = binary_blocks(topo.ranks());
      messages = b[round.param + 1].size / b[round.param].size;  // a smaller block's rank: one to each
    }
    t += round.repeat * (r.step_latency_s() + round.overhead_s + messages * round.bytes / r.bw_Bps);
  }
  return t;
}

BytesPerSecond algbw_Bps(Bytes n, Seconds t) { return t > 0 ? n / t : 0; }

BytesPerSecond busbw_Bps(Bytes n, Seconds t, int p) { return busbw_Bps(Collective::Allreduce, n, t, p); }

BytesPerSecond busbw_Bps(Collective c, Bytes n, Seconds t, int p) {
  if (p <= 1) return 0;
  switch (c) {
    case Collective::Allreduce: return algbw_Bps(n, t) * 2.0 * (p - 1) / p;
    case Collective::ReduceScatter:
    case Collective::Allgather:
    case Collective::Alltoall: return algbw_Bps(n, t) * (p - 1) / p;
    case Collective::Broadcast:
    case Collective::Reduce: return algbw_Bps(n, t);
  }
  return 0;
}

}  // namespace cost_layer
}  // namespace ddlsim
