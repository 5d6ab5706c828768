#include "cost/collective_plan.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ddlsim {
inline namespace cost_layer {

namespace {
int floor_pow2(int p) {
  int q = 1;
  while (2 * q <= p) q *= 2;
  return q;
}
int ceil_log2(int p) {
  int l = 0;
  while ((1 << l) < p) ++l;
  return l;
}

// The factor of a ring-like round on p ranks: two ranks send to each other, more send and receive at once.
double ring_factor(int p, const Layout& l) { return p == 2 ? l.exchange_factor : l.duplex_factor; }

std::vector<Round> ring_plan(int p, Bytes n, const Layout& l, int steps) {
  if (p <= 1) return {};
  Round r{RoundKind::RingStep, 0, n / p / ring_factor(p, l), steps};
  r.pipelined = l.steps_in_flight && l.ranks > l.gpus_per_node;  // one node: every hop alike, nothing to gain
  return {r};
}

std::vector<Round> rhd_plan(int p, Bytes n, const Layout& l) {
  std::vector<Round> plan;
  const int q = floor_pow2(p);
  if (q != p) plan.push_back({RoundKind::FoldIn, 0, n, 1});
  Bytes size = n;
  std::vector<Round> halving;
  for (int mask = q / 2; mask >= 1; mask /= 2) {
    size /= 2;
    halving.push_back({RoundKind::XorExchange, mask, size / l.exchange_factor, 1});
  }
  plan.insert(plan.end(), halving.begin(), halving.end());
  plan.insert(plan.end(), halving.rbegin(), halving.rend());
  if (q != p) plan.push_back({RoundKind::FoldOut, 0, n, 1});
  return plan;
}

// gloo's AllreduceHalvingDoubling (gloo/allreduce_halving_doubling.h): every binary block halves
// and doubles within itself with the same message sizes (n/2 at its first step, as the largest
// block's: gloo's chunks are n / 2^floor(log2 p)); between the reduce-scatter and the allgather,
// each smaller block hands its reduced share (n / size per rank) to the next larger block, smallest
// first, and gets the result back, largest first. One phase after the other here; gloo lets a small
// block's hand-over overlap the larger blocks' first steps.
std::vector<Round> binary_blocks_plan(int p, Bytes n, const Layout& l) {
  const std::vector<BinaryBlock> blocks = binary_blocks(p);
  std::vector<Round> halving;
  Bytes size = n;
  for (int bit = 1, k = 0; bit < blocks.back().size; bit *= 2, ++k) {
    size /= 2;
    halving.push_back({RoundKind::BlockXor, k, size / l.exchange_factor, 1});
  }
  std::vector<Round> plan = halving;
  const int last = int(blocks.size()) - 1;
  for (int j = 0; j < last; ++j) plan.push_back({RoundKind::BlockUp, j, n / blocks[j + 1].size, 1});
  for (int j = last - 1; j >= 0; --j) plan.push_back({RoundKind::BlockDown, j, n / blocks[j + 1].size, 1});
  plan.insert(plan.end(), halving.rbegin(), halving.rend());
  return plan;
}

// A rank's part in a BlockUp or BlockDown round between block j and block j + 1.
void block_handover_ops(RoundOps& ops, const Round& r, const Layout& l, int me) {
  const std::vector<BinaryBlock> b = binary_blocks(l.ranks);
  const BinaryBlock& small = b[r.param];
  const BinaryBlock& large = b[r.param + 1];
  const bool up = r.kind == RoundKind::BlockUp;
  if (me >= small.offset && me < small.offset + small.size) {
    for (int k = me - small.offset; k < large.size; k += small.size)
      up ? ops.sends.push_back({large.offset + k, 0}) : ops.recvs.push_back(large.offset + k);
  } else if (me >= large.offset && me < large.offset + large.size) {
    const int peer = small.offset + (me - large.offset) % small.size;
    up ? ops.recvs.push_back(peer) : ops.sends.push_back({peer, 0});
  }
}

// Open MPI 4.1 ompi_coll_base_allreduce_intra_redscat_allgather (coll_base_allreduce.c): the first
// 2r ranks swap halves, the odd one sends its reduced half to the even one; the q remaining ranks
// run a reduce-scatter by recursive vector halving and distance doubling (masks 1, 2, 4, ...) and an
// allgather in the reverse order; each even rank sends the whole result to its odd partner.
std::vector<Round> rabenseifner_plan(int p, Bytes n, const Layout& l) {
  std::vector<Round> plan;
  const int q = floor_pow2(p);
  if (q != p) {
    plan.push_back({RoundKind::PairExchange, 0, n / 2 / l.exchange_factor, 1});
    plan.push_back({RoundKind::PairToEven, 0, n / 2, 1});
  }
  std::vector<Round> halving;
  Bytes size = n;
  for (int mask = 1; mask < q; mask *= 2) {
    size /= 2;
    halving.push_back({RoundKind::VirtualXorEven, mask, size / l.exchange_factor, 1});
  }
  plan.insert(plan.end(), halving.begin(), halving.end());
  plan.insert(plan.end(), halving.rbegin(), halving.rend());
  if (q != p) plan.push_back({RoundKind::PairToOdd, 0, n, 1});
  return plan;
}

// Open MPI 4.1 ompi_coll_base_allreduce_intra_recursivedoubling: each even rank of the first 2r
// sends its vector to its odd partner; the q remaining ranks exchange the whole vector at
// distances 1, 2, 4, ...; each odd rank sends the result back.
std::vector<Round> rd_plan(int p, Bytes n, const Layout& l) {
  std::vector<Round> plan;
  const int q = floor_pow2(p);
  if (q != p) plan.push_back({RoundKind::PairToOdd, 0, n, 1});
  for (int mask = 1; mask < q; mask *= 2) plan.push_back({RoundKind::VirtualXorOdd, mask, n / l.exchange_factor, 1});
  if (q != p) plan.push_back({RoundKind::PairToEven, 0, n, 1});
  return plan;
}

std::vector<Round> tree_rounds(int p, Bytes n, RoundKind kind, bool up) {
  std::vector<Round> plan;
  const int levels = ceil_log2(p);
  for (int k = 0; k < levels; ++k) plan.push_back({kind, up ? k : levels - 1 - k, n, 1});
  return plan;
}

std::vector<Round> tree_plan(int p, Bytes n, RoundKind up, RoundKind down) {
  std::vector<Round> plan = tree_rounds(p, n, up, true);
  const std::vector<Round> bcast = tree_rounds(p, n, down, false);
  plan.insert(plan.end(), bcast.begin(), bcast.end());
  return plan;
}

std::vector<Round> hierarchical_plan(const Layout& l, Bytes n) {
  const int g = l.gpus_per_node, nodes = l.ranks / g;
  std::vector<Round> plan = tree_plan(g, n, RoundKind::NodeTreeUp, RoundKind::NodeTreeDown);
  const auto mid = plan.begin() + ceil_log2(g);
  if (nodes > 1)
    plan.insert(mid, {RoundKind::LeaderRingStep, 0, n / nodes / ring_factor(nodes, l), 2 * (nodes - 1)});
  return plan;
}

// NVLink SHARP as the traffic it puts on each GPU's link: reduce-scatter in the switch (a GPU's
// whole vector goes up, its reduced share n/p comes down) and all-gather by multicast (the share
// goes up, every share n comes down), pipelined: n (p+1)/p each way. Two all-pairs rounds of
// (p-1) messages each carry half of it, so a GPU's link carries the same bytes as through the
// switch; the switch itself is not a participant. NCCL's own NVLS latency (kNvlsLatency_s) is
// split over the two rounds; the bytes are over NVLS's share of the link (kNvlsLinkShare).
std::vector<Round> nvls_plan(int p, Bytes n, const Layout& l) {
  const Bytes bytes = n * (p + 1) / (2.0 * p * (p - 1)) / ring_factor(p, l) / kNvlsLinkShare;
  return {{RoundKind::AllPairs, 0, bytes, 2, kNvlsLatency_s / 2}};
}

std::vector<Round> pairwise_plan(int p, Bytes n, const Layout& l) {
  std::vector<Round> plan;
  for (int k = 1; k < p; ++k) plan.push_back({RoundKind::Pairwise, k, n / p / ring_factor(p, l), 1});
  return plan;
}

// ncclGetBtree's parent (trees.cc): with b the lowest set bit of r, the parent is r - b + 2b
// (r ^ b | 2b), or r - b when that is out of range; rank 0 is the root.
int btree_parent(int r, int nodes) {
  if (r == 0) return -1;
  int bit = 1;
  while (!(bit & r)) bit <<= 1;
  const int up = (r ^ bit) | (bit << 1);
  return up < nodes ? up : r ^ bit;
}

// The edges child -> parent of both trees, and a colour (0 or 1) for each such that no node sends
// two edges of one colour nor receives two: every node sends at most one edge per tree and, being
// interior in at most one tree, receives at most two, so the edges form paths and even cycles of a
// bipartite graph (senders, receivers) and alternating colours along each works.
struct ColouredEdges {
  std::vector<std::pair<int, int>> edges;
  std::vector<int> colour;
};

ColouredEdges dbt_edges(int nodes) {
  ColouredEdges c;
  std::vector<std::vector<int>> out(nodes), in(nodes);
  for (int t = 0; t < 2; ++t)
    for (int v = 0; v < nodes; ++v)
      if (const int u = dbt_parent(t, v, nodes); u >= 0) {
        out[v].push_back(int(c.edges.size()));
        in[u].push_back(int(c.edges.size()));
        c.edges.push_back({v, u});
      }
  c.colour.assign(c.edges.size(), -1);
  // Colour e with k, then go on through its receiver (at_receiver) or its sender, alternating.
  auto walk = [&](int e, int k, bool at_receiver) {
    while (e >= 0 && c.colour[e] < 0) {
      c.colour[e] = k;
      const auto& next = at_receiver ? in[c.edges[e].second] : out[c.edges[e].first];
      int f = -1;
      for (int x : next)
        if (x != e && c.colour[x] < 0) f = x;
      e = f;
      k = 1 - k;
      at_receiver = !at_receiver;
    }
  };
  for (int v = 0; v < nodes; ++v) {  // paths from their ends first, then the cycles
    if (out[v].size() == 1) walk(out[v][0], 0, true);
    if (in[v].size() == 1) walk(in[v][0], 0, false);
  }
  for (std::size_t e = 0; e < c.edges.size(); ++e) walk(int(e), 0, true);
  return c;
}

// NCCL's tree allreduce (NCCL 2.4+, ncclPatternTreeUpDown): each tree reduces its half of the
// vector up to its root and broadcasts it back down, pipelined in chunks; inside a node the GPUs
// form a chain to the node's first GPU, which is the node's place in the trees. Here the phases
// run one after the other: chain reduce, tree reduce, tree broadcast, chain broadcast, each a
// pipeline of one-chunk rounds in which a GPU sends and receives at most one chunk (the tree
// phases alternate the two edge colours, so a step of the pipeline takes two rounds).
// With steps in flight (NCCL: NCCL_STEPS slots per connection) the four phases and the chunks
// overlap: one DbtPipeline round.
std::vector<Round> dbtree_plan(const Layout& l, Bytes n) {
  const int g = l.gpus_per_node, nodes = l.ranks / g;
  const TreePipeline t = dbt_pipeline(nodes, g, n);
  const Bytes m = t.chunk_bytes;
  if (l.steps_in_flight) {
    Round r{RoundKind::DbtPipeline, 0, m, t.chunks};
    r.pipelined = true;
    return {r};
  }
  std::vector<Round> plan;
  if (g > 1) plan.push_back({RoundKind::NodeChainUp, 0, m, 2 * t.chunks + g - 2});
  const int colours = nodes == 2 ? 1 : 2;
  const int steps = t.chunks + t.depth - 1;
  for (RoundKind kind : {RoundKind::DbtUp, RoundKind::DbtDown})
    for (int s = 0; nodes > 1 && s < steps * colours; ++s) plan.push_back({kind, s % colours, m / ring_factor(nodes, l), 1});
  if (g > 1) plan.push_back({RoundKind::NodeChainDown, 0, m, 2 * t.chunks + g - 2});
  return plan;
}

// The trees' edges of colour r.param between the node leaders (DbtUp, DbtDown) or, one tree per
// rail, between the GPUs of local rank k of both nodes, every k at once (RailDbtUp, RailDbtDown).
// Each rank asks for its own edges, so the colouring (a walk over every node) is made once per node
// count and thread, with each node's edges listed: a round of p ranks costs O(p), not O(p x nodes)
// (65,536 ranks of a DGX-1 cluster: seconds instead of past the run's deadline).
struct DbtAdjacency {
  ColouredEdges c;
  std::vector<std::vector<int>> edges_of;  // per node, the edges it sends or receives
};
const DbtAdjacency& dbt_adjacency(int nodes) {
  thread_local int made_for = -1;
  thread_local DbtAdjacency a;
  if (made_for != nodes) {
    a.c = dbt_edges(nodes);
    a.edges_of.assign(std::size_t(nodes), {});
    for (std::size_t e = 0; e < a.c.edges.size(); ++e) {
      a.edges_of[std::size_t(a.c.edges[e].first)].push_back(int(e));
      a.edges_of[std::size_t(a.c.edges[e].second)].push_back(int(e));
    }
    made_for = nodes;
  }
  return a;
}

void dbt_ops(RoundOps& ops, const Round& r, const Layout& l, int me) {
  const int g = l.gpus_per_node, rail = me % g;
  const bool rails = r.kind == RoundKind::RailDbtUp || r.kind == RoundKind::RailDbtDown;
  if (!rails && rail != 0) return;
  const DbtAdjacency& a = dbt_adjacency(l.ranks / g);
  const ColouredEdges& c = a.c;
  const bool up = r.kind == RoundKind::DbtUp || r.kind == RoundKind::RailDbtUp;
  for (const int e : a.edges_of[std::size_t(me / g)]) {
    if (c.colour[e] != r.param) continue;
    const int from = (up ? c.edges[e].first : c.edges[e].second) * g + rail;
    const int to = (up ? c.edges[e].second : c.edges[e].first) * g + rail;
    if (from == me) ops.sends.push_back({to, 0});
    if (to == me) ops.recvs.push_back(from);
  }
}

// NCCL's NVLS across nodes (NVLSTree, src/device/all_reduce.h): inside each node NVLink SHARP
// reduces every GPU's vector in the switch and hands each GPU 1/g of the node's sum; each GPU
// sends its share over its rail to the double binary tree between nodes (each tree half of it),
// gets the global sum back down, and multicasts it to the node's GPUs. A GPU's NVLink carries
// n (g+1)/g each way (as nvls_plan), a rail n/g each way on two nodes and 2 n/g where a node is
// interior in a tree. With steps in flight (NCCL's) one NvlsTreePipeline round of NCCL's loops
// (nvls_tree_chunks); lockstep, the whole vector one phase after the other: a NodeAllPairs round
// of half the NVLink traffic, the rails' trees up and down, another NodeAllPairs round.
std::vector<Round> nvls_tree_plan(const Layout& l, Bytes n) {
  const int g = l.gpus_per_node, nodes = l.ranks / g;
  if (g < 2 || nodes < 2) return {};  // no switch to reduce in, or one node (nvls)
  if (l.steps_in_flight) {
    const int chunks = nvls_tree_chunks(n, nodes, g);
    Round r{RoundKind::NvlsTreePipeline, 0, n / chunks, chunks};
    r.pipelined = true;
    return {r};
  }
  const Round nvls{RoundKind::NodeAllPairs, 0, nvls_message_bytes(n, g), 1, kNvlsLatency_s / 2};
  std::vector<Round> plan = {nvls};
  const int colours = nodes == 2 ? 1 : 2;
  const Bytes m = n / (2.0 * g) / ring_factor(nodes, l);
  for (RoundKind kind : {RoundKind::RailDbtUp, RoundKind::RailDbtDown})
    for (int s = 0; s < dbt_depth(nodes) * colours; ++s) plan.push_back({kind, s % colours, m, 1});
  plan.push_back(nvls);
  return plan;
}

// NCCL's CollNet Direct (src/device/all_reduce.h runCollNetDirect, NCCL 2.12+): every GPU of a node
// is a head for 1/g of the vector; each GPU scatters its vector's pieces to their heads over
// NVLink, each head sends the node's sum of its piece over its rail to the switch, which reduces
// across the nodes and sends the total back, and each head gathers it to the node's GPUs over
// NVLink. A GPU's NVLink carries 2 n (g-1)/g each way, its rail n/g each way whatever the node
// count. With steps in flight (NCCL's) one CollnetPipeline round of g x 512 KiB chunks; lockstep,
// the whole vector one phase after the other: a NodeAllPairs round of n/g messages, a RailShift of
// n/g (with NCCL's own latency), another NodeAllPairs round.
std::vector<Round> collnet_plan(const Layout& l, Bytes n) {
  const int g = l.gpus_per_node, nodes = l.ranks / g;
  if (g < 2 || nodes < 2) return {};
  if (l.steps_in_flight) {
    const int chunks = collnet_chunks(n, g);
    Round r{RoundKind::CollnetPipeline, 0, n / chunks, chunks};
    r.pipelined = true;
    return {r};
  }
  const Round scatter{RoundKind::NodeAllPairs, 0, n / g, 1};
  return {scatter, {RoundKind::RailShift, 0, n / g / ring_factor(nodes, l), 1, collnet_latency_s(g)}, scatter};
}

std::vector<Round> allreduce_plan(Algorithm a, const Layout& l, Bytes n) {
  const int p = l.ranks;
  switch (a) {
    case Algorithm::Ring: return ring_plan(p, n, l, 2 * (p - 1));
    case Algorithm::HalvingDoubling: return l.binary_blocks ? binary_blocks_plan(p, n, l) : rhd_plan(p, n, l);
    case Algorithm::Rabenseifner: return rabenseifner_plan(p, n, l);
    case Algorithm::RecursiveDoubling: return rd_plan(p, n, l);
    case Algorithm::Tree: return tree_plan(p, n, RoundKind::TreeUp, RoundKind::TreeDown);
    case Algorithm::Hierarchical: return hierarchical_plan(l, n);
    case Algorithm::DoubleBinaryTree: return dbtree_plan(l, n);
    case Algorithm::Nvls: return nvls_plan(p, n, l);
    case Algorithm::NvlsTree: return nvls_tree_plan(l, n);
    case Algorithm::CollnetDirect: return collnet_plan(l, n);
    case Algorithm::ParameterServer:
      return {{RoundKind::PsPush, 0, n / l.ps_servers, 1}, {RoundKind::PsPull, 0, n / l.ps_servers, 1}};
    default: return {};
  }
}

// Binomial tree over positions 0..size-1 (position = index - base).
void binomial(RoundOps& ops, int pos, int size, int k, bool up, int base) {
  const int d = 1 << k;
  const bool sender_up = pos % (2 * d) == d;
  const bool receiver_up = pos % (2 * d) == 0 && pos + d < size;
  if (up) {
    if (sender_up) ops.sends.push_back({base + pos - d, 0});
    if (receiver_up) ops.recvs.push_back(base + pos + d);
  } else {
    if (receiver_up) ops.sends.push_back({base + pos + d, 0});
    if (sender_up) ops.recvs.push_back(base + pos - d);
  }
}

// Open MPI's numbering of the q active ranks: the even (or odd) rank of each of the first r pairs,
// then the ranks from 2r on. -1: not active.
int virtual_rank(int me, int r, bool odd_active) {
  if (me >= 2 * r) return me - r;
  return (me % 2 == 1) == odd_active ? me / 2 : -1;
}
int real_rank(int v, int r, bool odd_active) { return v < r ? 2 * v + (odd_active ? 1 : 0) : v + r; }

void pair_ops(RoundOps& ops, RoundKind kind, int me, int r) {
  if (me >= 2 * r) return;
  const bool even = me % 2 == 0;
  const int partner = even ? me + 1 : me - 1;
  const bool sends = kind == RoundKind::PairExchange || (kind == RoundKind::PairToEven) != even;
  const bool recvs = kind == RoundKind::PairExchange || (kind == RoundKind::PairToEven) == even;
  if (sends) ops.sends.push_back({partner, 0});
  if (recvs) ops.recvs.push_back(partner);
}
}  // namespace

int chain_chunks(Bytes n) { return std::max(1, int(std::ceil(n / kChainChunkBytes))); }

std::vector<BinaryBlock> binary_blocks(int p) {
  std::vector<BinaryBlock> blocks;
  int offset = p;
  for (int size = 1; size <= p; size *= 2)
    if (p & size) {
      offset -= size;
      blocks.push_back({size, offset});
    }
  return blocks;
}

Bytes nvls_tree_chunk_bytes(Bytes n, int nodes, int g) {
  const Bytes ops = double(kNvlsChannels) * g;
  Bytes chunk = nodes >= 4 ? 64 * 1024 : kNvlsChunkBytes;
  if (n < 4 * ops * chunk && chunk > 65536) chunk = 65536;
  if (n < ops * chunk && chunk > 32768) chunk = 32768;
  return chunk;
}

int nvls_tree_chunks(Bytes n, int nodes, int g) {
  return std::max(1, int(std::ceil(n / (double(kNvlsChannels) * g * nvls_tree_chunk_bytes(n, nodes, g)))));
}

int collnet_chunks(Bytes n, int gpus_per_node) {
  return std::max(1, int(std::ceil(n / (gpus_per_node * kCollnetChunkBytes))));
}

Seconds collnet_latency_s(int gpus_per_node) { return 2 * (3.7e-6 + (gpus_per_node - 1) * 0.4e-6) + 31e-6; }

Bytes nvls_message_bytes(Bytes n, int g) { return g > 1 ? n * (g + 1) / (2.0 * g * (g - 1)) / kNvlsLinkShare : 0; }

bool composed_pipeline(RoundKind k) {
  return k == RoundKind::DbtPipeline || k == RoundKind::ChainPipeline || k == RoundKind::NvlsTreePipeline ||
         k == RoundKind::CollnetPipeline;
}

std::vector<Round> pipeline_hop_rounds(const Round& pipeline, const Layout& l) {
  const int g = l.gpus_per_node, nodes = l.ranks / g;
  std::vector<Round> hops;
  if (pipeline.kind == RoundKind::NvlsTreePipeline) {
    const Bytes c = pipeline.bytes;
    hops = {{RoundKind::NodeAllPairs, 0, nvls_message_bytes(c, g)},
            {RoundKind::NodeAllPairs, 0, 0},
            {RoundKind::RailDbtUp, 0, c / (2.0 * g) / ring_factor(nodes, l)},
            {RoundKind::RailDbtUp, 0, 0}};
  } else if (pipeline.kind == RoundKind::CollnetPipeline) {
    const Bytes piece = pipeline.bytes / g;
    hops = {{RoundKind::NodeAllPairs, 0, piece},
            {RoundKind::NodeAllPairs, 0, 0},
            {RoundKind::RailShift, 0, piece / ring_factor(nodes, l)},
            {RoundKind::RailShift, 0, 0}};
  } else {
    const bool tree = pipeline.kind == RoundKind::DbtPipeline;
    const Bytes inter = tree ? pipeline.bytes / ring_factor(nodes, l) : pipeline.bytes;
    const RoundKind across = tree ? RoundKind::DbtUp : RoundKind::LeaderRingStep;
    hops = {{RoundKind::NodeChainUp, 0, pipeline.bytes}, {RoundKind::NodeChainUp, 0, 0}, {across, 0, inter}, {across, 0, 0}};
  }
  for (int i = 0; i < 4; ++i) hops[i].overhead_s = i < 2 ? pipeline.node_overhead_s : pipeline.overhead_s;
  return hops;
}

Bytes pipeline_inter_message_bytes(const Round& pipeline, const Layout& l) {
  if (pipeline.kind == RoundKind::NvlsTreePipeline) return pipeline.bytes / (2.0 * l.gpus_per_node);
  if (pipeline.kind == RoundKind::CollnetPipeline) return pipeline.bytes / l.gpus_per_node;
  return pipeline.bytes;
}

int dbt_parent(int tree, int v, int nodes) {
  if (tree == 0) return btree_parent(v, nodes);
  if (nodes % 2 == 1) {  // shift by one rank
    const int u = btree_parent((v - 1 + nodes) % nodes, nodes);
    return u < 0 ? -1 : (u + 1) % nodes;
  }
  const int u = btree_parent(nodes - 1 - v, nodes);  // mirror
  return u < 0 ? -1 : nodes - 1 - u;
}

// Tree 1 is tree 0 relabelled (mirrored or shifted), so both have tree 0's depth. In tree 0 a
// rank's parent has a higher lowest set bit (or is the root), and rank 1 climbs one bit at a time:
// the depth is the bits of nodes - 1 (tests/nccl_tree_test.cpp walks every node of both trees).
int dbt_depth(int nodes) {
  int depth = 0;
  for (int v = nodes - 1; v > 0; v >>= 1) ++depth;
  return depth;
}

TreePipeline dbt_pipeline(int nodes, int gpus_per_node, Bytes n) {
  TreePipeline t;
  t.depth = dbt_depth(nodes);
  const int depth = t.depth + gpus_per_node;
  const Bytes half = n / 2;
  Bytes chunk = 512 * 1024;
  while (std::floor(half / chunk) < 8 * depth && chunk > 131072) chunk /= 2;
  while (std::floor(half / chunk) < 4 * depth && chunk > 65536) chunk /= 2;
  while (std::floor(half / chunk) < depth && chunk > 32768) chunk /= 2;
  t.chunks = std::max(1, int(std::ceil(half / chunk)));
  t.chunk_bytes = half / t.chunks;
  return t;
}

namespace {
// NCCL's broadcast and reduce (ring only): the vector in chunks of at most kChainChunkBytes along
// the ring from rank 0 (broadcast) or to it (reduce). Lockstep, a chunk round in which every link
// of the chain carries one, K + p - 2 of them; with steps in flight one ChainPipeline round.
std::vector<Round> chain_plan(int p, Bytes n, const Layout& l, bool reduce) {
  const int chunks = chain_chunks(n);
  const Bytes c = n / chunks;
  if (l.steps_in_flight) {
    Round r{RoundKind::ChainPipeline, reduce ? 1 : 0, c, chunks};
    r.pipelined = true;
    return {r};
  }
  return {{reduce ? RoundKind::ChainBackward : RoundKind::ChainForward, 0, c, chunks + p - 2}};
}
}  // namespace

bool node_round(RoundKind k) {
  return k == RoundKind::NodeTreeUp || k == RoundKind::NodeTreeDown || k == RoundKind::NodeChainUp ||
         k == RoundKind::NodeChainDown || k == RoundKind::NodeAllPairs;
}

Layout flat_layout(const CommTopology& t) {
  Layout l;
  l.ranks = t.ranks();
  l.gpus_per_node = t.gpus_per_node;
  l.ps_servers = t.ps_servers;
  l.exchange_factor = t.flat_route().exchange_factor;
  l.duplex_factor = t.flat_route().duplex_factor;
  l.step_overhead_s = t.flat_route().step_overhead_s;
  l.node_step_overhead_s = t.intra.step_overhead_s;
  l.steps_in_flight = t.steps_in_flight;
  l.binary_blocks = t.binary_blocks;
  l.eager_limit_bytes = t.eager_limit_bytes;
  l.rendezvous_bytes = t.flat_route().rendezvous_bytes;
  l.rendezvous_s = t.flat_route().rendezvous_s;
  return l;
}

int Layout::server_participant(int j) const {
  return spare_server_hosts ? ranks + j : int((long long)j * ranks / ps_servers);
}

bool supports(Collective c, Algorithm a) {
  switch (c) {
    case Collective::Allreduce: return a != Algorithm::Pairwise && a != Algorithm::Auto;
    case Collective::ReduceScatter:
    case Collective::Allgather: return a == Algorithm::Ring;
    case Collective::Broadcast:
    case Collective::Reduce: return a == Algorithm::Tree || a == Algorithm::Ring;
    case Collective::Alltoall: return a == Algorithm::Pairwise;
  }
  return false;
}

std::vector<Algorithm> algorithms_for(Collective c) {
  std::vector<Algorithm> out;
  for (Algorithm a : {Algorithm::Ring, Algorithm::HalvingDoubling, Algorithm::Tree, Algorithm::Hierarchical,
                      Algorithm::ParameterServer, Algorithm::Rabenseifner, Algorithm::RecursiveDoubling,
                      Algorithm::Pairwise, Algorithm::DoubleBinaryTree, Algorithm::Nvls, Algorithm::NvlsTree,
                      Algorithm::CollnetDirect})
    if (supports(c, a)) out.push_back(a);
  return out;
}

std::vector<Round> collective_plan(Collective c, Algorithm a, const Layout& l, Bytes n) {
  const int p = l.ranks;
  if (p <= 1 || n <= 0 || !supports(c, a)) return {};
  switch (c) {
    case Collective::Allreduce: return allreduce_plan(a, l, n);
    case Collective::ReduceScatter:
    case Collective::Allgather: return ring_plan(p, n, l, p - 1);
    case Collective::Broadcast:
      return a == Algorithm::Ring ? chain_plan(p, n, l, false) : tree_rounds(p, n, RoundKind::TreeDown, false);
    case Collective::Reduce:
      return a == Algorithm::Ring ? chain_plan(p, n, l, true) : tree_rounds(p, n, RoundKind::TreeUp, true);
    case Collective::Alltoall: return pairwise_plan(p, n, l);
  }
  return {};
}

RoundOps round_ops(const Round& r, const Layout& l, int me) {
  RoundOps ops;
  const int p = l.ranks, g = l.gpus_per_node;
  const bool rank = me < p;
  const int extra = p - floor_pow2(p);
  switch (r.kind) {
    case RoundKind::RingStep:
      if (rank) {
        ops.sends.push_back({(me + 1) % p, 0});
        ops.recvs.push_back((me + p - 1) % p);
      }
      break;
    case RoundKind::XorExchange:
      if (me < floor_pow2(p)) {
        ops.sends.push_back({me ^ r.param, 0});
        ops.recvs.push_back(me ^ r.param);
      }
      break;
    case RoundKind::FoldIn:
    case RoundKind::FoldOut: {
      const int q = floor_pow2(p);
      const bool extra_rank = rank && me >= q, partner = me < p - q;
      const bool in = r.kind == RoundKind::FoldIn;
      if (extra_rank) (in ? ops.sends.push_back({me - q, 0}) : ops.recvs.push_back(me - q));
      if (partner) (in ? ops.recvs.push_back(me + q) : ops.sends.push_back({me + q, 0}));
      break;
    }
    case RoundKind::TreeUp:
    case RoundKind::TreeDown:
      if (rank) binomial(ops, me, p, r.param, r.kind == RoundKind::TreeUp, 0);
      break;
    case RoundKind::NodeTreeUp:
    case RoundKind::NodeTreeDown:
      if (rank) binomial(ops, me % g, g, r.param, r.kind == RoundKind::NodeTreeUp, me - me % g);
      break;
    case RoundKind::LeaderRingStep:
      if (rank && me % g == 0) {
        const int nodes = p / g, node = me / g;
        ops.sends.push_back({((node + 1) % nodes) * g, 0});
        ops.recvs.push_back(((node + nodes - 1) % nodes) * g);
      }
      break;
    case RoundKind::PsPush:
    case RoundKind::PsPull: {
      const bool push = r.kind == RoundKind::PsPush;
      for (int j = 0; j < l.ps_servers; ++j) {
        const int s = l.server_participant(j);
        if (rank && s != me) (push ? ops.sends.push_back({s, 0}) : ops.recvs.push_back(s));
        if (s == me)
          for (int w = 0; w < p; ++w)
            if (w != me) (push ? ops.recvs.push_back(w) : ops.sends.push_back({w, 0}));
      }
      break;
    }
    case RoundKind::PairExchange:
    case RoundKind::PairToEven:
    case RoundKind::PairToOdd:
      if (rank) pair_ops(ops, r.kind, me, extra);
      break;
    case RoundKind::VirtualXorEven:
    case RoundKind::VirtualXorOdd: {
      const bool odd = r.kind == RoundKind::VirtualXorOdd;
      const int v = rank ? virtual_rank(me, extra, odd) : -1;
      if (v >= 0) {
        const int peer = real_rank(v ^ r.param, extra, odd);
        ops.sends.push_back({peer, 0});
        ops.recvs.push_back(peer);
      }
      break;
    }
    case RoundKind::NodeChainUp:
    case RoundKind::NodeChainDown: {
      const int local = me % g, to = r.kind == RoundKind::NodeChainUp ? local - 1 : local + 1;
      const int from = r.kind == RoundKind::NodeChainUp ? local + 1 : local - 1;
      if (rank && to >= 0 && to < g) ops.sends.push_back({me - local + to, 0});
      if (rank && from >= 0 && from < g) ops.recvs.push_back(me - local + from);
      break;
    }
    case RoundKind::DbtUp:
    case RoundKind::DbtDown:
    case RoundKind::RailDbtUp:
    case RoundKind::RailDbtDown:
      if (rank) dbt_ops(ops, r, l, me);
      break;
    case RoundKind::BlockXor:
      if (rank) {
        const std::vector<BinaryBlock> b = binary_blocks(p);
        const auto mine = std::find_if(b.begin(), b.end(), [&](const BinaryBlock& x) { return me >= x.offset; });
        if (mine->size > (1 << r.param)) {
          ops.sends.push_back({me ^ (1 << r.param), 0});
          ops.recvs.push_back(me ^ (1 << r.param));
        }
      }
      break;
    case RoundKind::BlockUp:
    case RoundKind::BlockDown:
      if (rank) block_handover_ops(ops, r, l, me);
      break;
    case RoundKind::NodeAllPairs: {
      const int base = me - me % g;
      for (int k = 1; rank && k < g; ++k) {
        ops.sends.push_back({base + (me % g + k) % g, 0});
        ops.recvs.push_back(base + (me % g + g - k) % g);
      }
      break;
    }
    case RoundKind::RailShift:
      if (rank) {
        const int nodes = p / g, node = me / g, local = me % g;
        ops.sends.push_back({((node + 1) % nodes) * g + local, 0});
        ops.recvs.push_back(((node + nodes - 1) % nodes) * g + local);
      }
      break;
    case RoundKind::ChainForward:
      if (rank && me + 1 < p) ops.sends.push_back({me + 1, 0});
      if (rank && me > 0) ops.recvs.push_back(me - 1);
      break;
    case RoundKind::ChainBackward:
      if (rank && me > 0) ops.sends.push_back({me - 1, 0});
      if (rank && me + 1 < p) ops.recvs.push_back(me + 1);
      break;
    case RoundKind::DbtPipeline:  // no messages of their own (pipeline_hop_rounds)
    case RoundKind::ChainPipeline:
    case RoundKind::NvlsTreePipeline:
    case RoundKind::CollnetPipeline:
      break;
    case RoundKind::Pairwise:
      if (rank) {
        ops.sends.push_back({(me + r.param) % p, 0});
        ops.recvs.push_back((me + p - r.param) % p);
      }
      break;
    case RoundKind::AllPairs:
      for (int k = 1; rank && k < p; ++k) {
        ops.sends.push_back({(me + k) % p, 0});
        ops.recvs.push_back((me + p - k) % p);
      }
      break;
  }
  for (auto& t : ops.sends) t.bytes = r.bytes;
  return ops;
}

}  // namespace cost_layer
}  // namespace ddlsim
