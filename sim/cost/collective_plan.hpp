// A collective as the rounds of point-to-point messages it sends: the one definition of every
// algorithm. The closed forms (cost/collectives.hpp) count exactly these rounds, and the SimGrid
// backend simulates exactly these rounds, so the two can be checked against each other.
// A participant is a rank (0..ranks-1) or, for the parameter server on a platform with spare
// hosts, a server host (ranks..ranks+servers-1). No SimGrid here: plain data.
#pragma once
#include <vector>

#include "core/units.hpp"
#include "spec/comm.hpp"

namespace ddlsim {
inline namespace cost_layer {

enum class RoundKind {
  RingStep,        // every rank sends to rank+1, receives from rank-1
  XorExchange,     // ranks < q swap with rank ^ param (textbook halving-doubling)
  FoldIn,          // ranks >= q send to rank - q (textbook, p not a power of two)
  FoldOut,         // rank - q sends back to ranks >= q
  TreeUp,          // binomial reduce, distance 2^param
  TreeDown,        // binomial broadcast, distance 2^param
  NodeTreeUp,      // binomial reduce inside each node (hierarchical)
  NodeTreeDown,    // binomial broadcast inside each node
  LeaderRingStep,  // ring among the node leaders (local rank 0)
  PsPush,          // every worker sends bytes to every server
  PsPull,          // every server sends bytes to every worker
  // Open MPI's handling of r = p - q extra ranks: pairs (2i, 2i+1), i < r.
  PairExchange,    // the two ranks of each pair swap bytes
  PairToEven,      // 2i+1 sends to 2i
  PairToOdd,       // 2i sends to 2i+1
  VirtualXorEven,  // the q active ranks (the even rank of each pair, then ranks >= 2r), numbered
  VirtualXorOdd,   //   0..q-1, swap with virtual rank ^ param (Odd: the odd rank of each pair)
  Pairwise,        // all-to-all round param: rank sends to rank + param, receives from rank - param
  // NCCL's double binary tree (dbtree): one chunk per message, every rank sends at most one and
  // receives at most one message per round.
  NodeChainUp,     // inside each node, local rank i sends to i - 1 (chain reduce to local rank 0)
  NodeChainDown,   // inside each node, local rank i sends to i + 1 (chain broadcast)
  DbtUp,           // the node leaders' tree edges of colour param, child to parent (both trees)
  DbtDown,         // the same edges, parent to child
  DbtPipeline,     // the whole dbtree with steps in flight (Layout::steps_in_flight): `repeat` chunks
                   // of `bytes` per tree through chain up, tree up, tree down, chain down at once;
                   // no messages of its own: cost/collectives.hpp pipelined_tree_s composes it from
                   // one chunk's hops (pipeline_hop_rounds)
  ChainForward,    // NCCL's ring broadcast: rank r < p-1 sends a chunk to r+1 (root 0)
  ChainBackward,   // NCCL's ring reduce: rank r+1 sends a chunk to r (root 0)
  ChainPipeline,   // either with steps in flight: `repeat` chunks of `bytes` along the chain
                   // (param 0 broadcast, 1 reduce); cost/collectives.hpp pipelined_chain_s; SimGrid
                   // full runs it chunk by chunk, fast composes it like DbtPipeline
  AllPairs,        // every rank sends bytes to every other rank at once (nvls: the traffic each
                   // GPU's link carries to and from the reducing switch)
  // NCCL's NVLS across nodes (nvls_tree):
  NodeAllPairs,    // AllPairs inside each node (NVLink SHARP's traffic on each GPU's link)
  RailDbtUp,       // DbtUp between peer GPUs: local rank k of a node to local rank k of its parent
  RailDbtDown,     //   node, every k at once (one tree per rail), edges of colour param
  // gloo's halving-doubling on p ranks, in power-of-two blocks (binary_blocks()): the blocks'
  // ranks swap with rank ^ 2^param where the block is larger than 2^param (BlockXor); block
  // param hands its share to the next larger block, each rank q to every rank r of it with
  // r mod size = q (BlockUp), and gets the result back (BlockDown).
  BlockXor,
  BlockUp,
  BlockDown,
  NvlsTreePipeline,  // with steps in flight: `repeat` chunks of `bytes` (a node's whole chunk)
                     // through NVLink SHARP, the rails' trees up and down, and NVLink SHARP back;
                     // composed like DbtPipeline (cost/collectives.hpp pipelined_nvls_tree_s)
  // NCCL's CollNet Direct (collnet) on InfiniBand switches that reduce (SHARP):
  RailShift,       // local rank k of node j sends bytes to local rank k of node j+1 and receives
                   // from node j-1, every k at once: each rail carries bytes up to the switch and
                   // bytes back down, the traffic of the switch's reduction
  CollnetPipeline, // with steps in flight: `repeat` chunks of `bytes` (a node's whole chunk)
                   // scattered over NVLink, through the switch, gathered back; composed like
                   // DbtPipeline (cost/collectives.hpp pipelined_collnet_s)
};

// NCCL's own latency of an NVLS allreduce (src/graph/tuning.cc: hwLat[NVLINK][NVLS][Simple] = 25 us,
// baseLat 0), on top of the network's per-round latency.
constexpr Seconds kNvlsLatency_s = 25e-6;

// The share of a GPU's link that NVLink SHARP's traffic gets, against the ring's: NCCL's own model
// of NVLS (src/graph/tuning.cc, NCCL 2.17+; src/tuning/nvls.cc later) takes the ring's per-channel
// NVLink bandwidth times nvlsEfficiency (0.85 on Hopper, 0.74 on Blackwell) times (nChannels - 1) /
// nChannels, with NVLS's 16 channels (NVLS_NCHANNELS, src/transport/nvls.cc): 0.85 x 15/16 = 51/64
// on Hopper, the only NVLink 4 switch here. The NVLS rounds carry their bytes / this, so SimGrid
// and the closed forms see the same slower path.
constexpr double kNvlsLinkShare = 0.85 * 15.0 / 16.0;

// NCCL's own latency of a CollNet Direct allreduce on g GPUs a node (src/graph/tuning.cc, NCCL
// 2.12+: 2 (hwLat[NVLINK][CollNetDirect][Simple] 3.7 us + (g-1) x 0.4 us of "arity serialization")
// + hwLat[NET][CollNetDirect][Simple] 31 us), on top of the hops' own latencies as for nvls.
Seconds collnet_latency_s(int gpus_per_node);

struct Round {
  RoundKind kind = RoundKind::RingStep;
  int param = 0;
  Bytes bytes = 0;  // per message, already divided by the route's two-way factor where it applies
  int repeat = 1;   // consecutive identical rounds
  Seconds overhead_s = 0;  // the library's own time per round before its messages start (nvls)
  // The `repeat` ring steps run with steps in flight (Layout::steps_in_flight): a rank's step waits
  // only for the message it forwards, not for its own sends nor for the other ranks. Its hops
  // inside a node add node_overhead_s where the others add overhead_s.
  bool pipelined = false;
  Seconds node_overhead_s = 0;
};

struct Layout {
  int ranks = 1;
  int gpus_per_node = 1;
  int ps_servers = 1;
  bool spare_server_hosts = false;  // servers on hosts after the ranks; else on ranks
  // Measured bidirectional losses of the flat route (spec/comm.hpp, `ddlsim netfit`): a message of
  // a round where two ranks send to each other (2-rank ring step, pairwise exchanges) carries
  // bytes / exchange_factor, one of a ring step with 3 or more ranks bytes / duplex_factor, so the
  // fluid network model shows the same effective bandwidth.
  double exchange_factor = 1;
  double duplex_factor = 1;
  // Software overhead per round (Route::step_overhead_s): each rank with messages in a round
  // spends it before they start, as the closed forms add it to each round's latency. Rounds inside
  // a node (node_round) take the intra route's.
  Seconds step_overhead_s = 0;
  Seconds node_step_overhead_s = 0;
  // NCCL's rings keep steps in flight (NCCL_STEPS = 8 slots per connection, src/include/
  // collectives.h): across nodes the ring's steps are pipelined (Round::pipelined), so a small
  // message pays the network's latency on the hops it crosses, not on every step; the double
  // binary tree's phases overlap (one DbtPipeline round), and so do a broadcast's or reduce's
  // chunks along the ring (one ChainPipeline round).
  bool steps_in_flight = false;
  // `rhd` as gloo runs it: the ranks in power-of-two blocks (binary_blocks_plan), not folded.
  bool binary_blocks = false;
  // Messages of up to this many bytes leave when their sender posts them (an MPI library's eager
  // sends: cost/eager_rounds.hpp); larger ones when their receiver has posted too. 0: none.
  Bytes eager_limit_bytes = 0;
  // Per rank: the narrowest link of its route to rank + 1, and the route's latency. A pipelined
  // ring's sender keeps one message at a time on that link (a connection's messages leave in
  // order: NCCL's steps on one queue pair), so they do not share its bandwidth. Empty: no pacing.
  std::vector<BytesPerSecond> ring_link_Bps;
  std::vector<Seconds> ring_link_latency_s;
  // The same for each rank's route to rank - 1 (a reduce's chain runs that way). Empty: no pacing.
  std::vector<BytesPerSecond> ring_back_link_Bps;
  // A network plugin's rendezvous on the route between nodes (Route::rendezvous_bytes,
  // rendezvous_s): a pipelined step's message there of more than rendezvous_bytes leaves
  // rendezvous_s later and holds its link that much longer. 0: none.
  Bytes rendezvous_bytes = 0;
  Seconds rendezvous_s = 0;

  int participants() const { return ranks + (spare_server_hosts ? ps_servers : 0); }
  // Whether rank me's ring hop (to me + 1) leaves its node.
  bool ring_hop_leaves_node(int me) const { return (me + 1) % gpus_per_node == 0; }
  Seconds rendezvous_extra_s(Bytes bytes) const { return rendezvous_s > 0 && bytes > rendezvous_bytes ? rendezvous_s : 0; }
  int server_participant(int j) const;  // where server j runs
};

// The Layout of a topology's flat route: its ranks and factors, its overheads, the library's
// options (steps in flight, binary blocks, eager limit).
Layout flat_layout(const CommTopology& t);

// NCCL's double binary tree over `nodes` node leaders (NVIDIA/nccl src/graph/trees.cc,
// ncclGetDtree): tree 0 is ncclGetBtree's tree rooted at 0, tree 1 its mirror (even nodes) or its
// shift by one (odd nodes), so every node is interior in at most one tree. parent(tree, v), -1 at
// the root; depth: the edges from the deepest node to its root, the larger of the two trees'.
int dbt_parent(int tree, int v, int nodes);
int dbt_depth(int nodes);
// The pipeline of the dbtree plan: each tree carries n/2 in `chunks` chunks of `chunk_bytes`.
// NCCL's chunk (src/enqueue.cc, tree/Simple): buffSize / NCCL_STEPS = 4 MiB / 8 = 512 KiB, halved
// while nBytes / (nChannels x chunk) < 8 x depth (down to 128 KiB), < 4 x depth (64 KiB),
// < depth (32 KiB); here nChannels = 2 (one per tree) and depth = tree depth + GPUs per node.
struct TreePipeline {
  int chunks = 1;
  Bytes chunk_bytes = 0;
  int depth = 0;  // dbt_depth(nodes)
};
TreePipeline dbt_pipeline(int nodes, int gpus_per_node, Bytes n);

// NCCL's broadcast and reduce chunk (src/include/collectives.h BROADCAST_CHUNKSTEPS = REDUCE_CHUNKSTEPS
// = 1 step of the Simple protocol's buffSize / NCCL_STEPS = 4 MiB / 8).
constexpr Bytes kChainChunkBytes = 512 * 1024;
// The chunks a broadcast or reduce of n bytes goes in: ceil(n / kChainChunkBytes), at least 1.
int chain_chunks(Bytes n);
// NCCL's NVLS tree loop (src/device/all_reduce.h, NVLS_TREE: each of the nvlsChannels channels
// moves nHeads = g chunks a loop; src/transport/nvls.cc on Hopper: 16 channels, NVLS_CHUNKSIZE
// 128 KiB, at most 64 KiB from 4 nodes; src/enqueue.cc calcCollChunking halves it to 64 KiB below
// 4 x 16 g chunks and 32 KiB below 16 g chunks of the message): a node moves 16 g chunks of the
// vector per step.
constexpr int kNvlsChannels = 16;
constexpr Bytes kNvlsChunkBytes = 128 * 1024;
Bytes nvls_tree_chunk_bytes(Bytes n, int nodes, int gpus_per_node);
// The steps an nvls_tree allreduce of n bytes goes in: ceil(n / (16 g chunk)), at least 1.
int nvls_tree_chunks(Bytes n, int nodes, int gpus_per_node);
// NCCL's CollNet Direct chunk per head GPU (src/enqueue.cc: chunkSteps 1 for every algorithm but
// the ring, so a chunk is one step of the Simple protocol's buffer, 4 MiB / NCCL_STEPS = 512 KiB;
// NCCL halves it for small messages, not modelled): a node moves g x 512 KiB of the vector a step.
constexpr Bytes kCollnetChunkBytes = 512 * 1024;
// The chunks a collnet allreduce of n bytes goes in on g GPUs a node: ceil(n / (g x 512 KiB)).
int collnet_chunks(Bytes n, int gpus_per_node);
// The bytes of one NodeAllPairs message carrying half of NVLink SHARP's traffic for a node's
// vector of n bytes on g GPUs: n (g+1) / (2 g (g-1)) (nvls_plan's, per node).
Bytes nvls_message_bytes(Bytes n, int g);
// The hops of a DbtPipeline, ChainPipeline, NvlsTreePipeline or CollnetPipeline round, each as one
// lockstep round of one chunk (what a hop costs is measured on them): [0] a hop inside the nodes
// (chain up; nvls_tree and collnet: a NodeAllPairs round), [1] the same with no payload, [2] a hop
// between nodes (the tree's edges of colour 0, on every rail for nvls_tree; the chain's: the node
// leaders' ring; collnet: a RailShift), [3] the same with no payload. The round's overhead_s goes
// to the hops between nodes, its node_overhead_s to those inside.
std::vector<Round> pipeline_hop_rounds(const Round& pipeline, const Layout& l);
// The bytes one chunk's message between nodes carries in such a round, as the closed forms
// (cost/collectives.cpp) weigh them against a rendezvous limit: a tree's or the chain's chunk,
// nvls_tree's chunk / 2g, collnet's chunk / g (the hop round's bytes before the route's
// bidirectional factor).
Bytes pipeline_inter_message_bytes(const Round& pipeline, const Layout& l);
// Whether a round is one of those composed pipelines.
bool composed_pipeline(RoundKind k);

// gloo's binary blocks of p ranks (gloo/allreduce_halving_doubling.h initBinaryBlocks): one per
// binary digit of p, smallest first; the largest starts at rank 0, each smaller one after the
// larger ones (so the smallest holds the last ranks).
struct BinaryBlock {
  int size = 0;
  int offset = 0;
};
std::vector<BinaryBlock> binary_blocks(int p);

// Whether `a` runs collective `c` (Auto is not an algorithm: cost/decision.hpp resolves it).
bool supports(Collective c, Algorithm a);
// The algorithms that run `c`, for messages.
std::vector<Algorithm> algorithms_for(Collective c);

// The rounds of one collective `c` with algorithm `a` (supported, not Auto). n is nccl-tests' size:
// the vector per rank (allreduce, reduce_scatter's input, allgather's output, broadcast, reduce),
// or all a rank sends (alltoall).
std::vector<Round> collective_plan(Collective c, Algorithm a, const Layout& l, Bytes n);

// The allreduce of the gradient exchange.
inline std::vector<Round> collective_plan(Algorithm a, const Layout& l, Bytes n) {
  return collective_plan(Collective::Allreduce, a, l, n);
}

struct Transfer {
  int peer = 0;
  Bytes bytes = 0;
};
struct RoundOps {
  std::vector<Transfer> sends;
  std::vector<int> recvs;  // peers, one message each
};

// Rounds between the GPUs of one node (the intra route's), as opposed to the flat route's.
bool node_round(RoundKind k);

// What participant `me` sends and receives in one round.
RoundOps round_ops(const Round& r, const Layout& l, int me);

}  // namespace cost_layer
}  // namespace ddlsim
