// Closed-form (alpha-beta) cost of the gradient exchanges. p ranks, n bytes per rank,
// alpha = route latency per message, B = route bandwidth per direction (full duplex).
// Every formula assumes contention-free links; the SimGrid backend shows what contention adds.
#pragma once
#include <string>
#include <vector>

#include "core/units.hpp"
#include "spec/comm.hpp"

namespace ddlsim {
inline namespace cost_layer {

// Ring allreduce: reduce-scatter then allgather, 2(p-1) steps of n/p bytes:
//   2 (p-1) (alpha + n / (p B)); with p = 2 the two ranks send to each other: B x exchange_factor;
//   with p >= 3 each rank sends and receives at once: B x duplex_factor.
Seconds ring_allreduce_s(int p, Bytes n, Route r);
// Recursive halving-doubling (Rabenseifner) on q = 2^floor(log2 p) ranks, every step a pairwise
// exchange (B x exchange_factor):
//   2 log2(q) alpha + 2 n (q-1) / (q B),
// plus, when p is not a power of two, a fold-in and fold-out of the p-q extra ranks: 2 (alpha + n/B).
Seconds halving_doubling_allreduce_s(int p, Bytes n, Route r);
// gloo's halving-doubling (collective_plan.cpp binary_blocks_plan): p split into power-of-two
// blocks b_1 < ... < b_m (its binary digits), L = floor(log2 p):
//   2 L alpha + 2 n (1 - 2^-L) / B_e + sum over j < m of 2 (alpha + n / (b_j B))
// (each block halves and doubles within itself with gloo's message sizes n/2, n/4, ...; each
// smaller block hands its reduced share to the next larger one and gets the result back, a rank
// of block j sending or receiving n / b_j). On a power of two it is the rhd above.
Seconds binary_blocks_allreduce_s(int p, Bytes n, Route r);
// Binomial-tree reduce to rank 0 then binomial-tree broadcast, whole message each round:
//   2 ceil(log2 p) (alpha + n/B).
Seconds tree_allreduce_s(int p, Bytes n, Route r);
// Hierarchical: binomial reduce inside each node to its leader, ring allreduce among the node
// leaders, binomial broadcast inside each node:
//   2 ceil(log2 g) (alpha_i + n/B_i) + ring(nodes, n, inter).
Seconds hierarchical_allreduce_s(int nodes, int gpus_per_node, Bytes n, Route intra, Route inter);
// NCCL's double binary tree (collective_plan.hpp: dbt_pipeline), N nodes of g GPUs, each tree
// carrying n/2 in K chunks of m = n / (2K), D = dbt_depth(N), C = 1 edge colour for N = 2, else 2:
//   [g > 1] 2 (2K + g - 2) (alpha_i + m / B_i)        chain reduce and broadcast inside the nodes
//   + [N > 1] 2 C (K + D - 1) (alpha + m / B_r)       tree reduce and broadcast among the nodes
// (B_r as for the ring on N ranks). Bandwidth term for large n: 2 n / B across nodes, NCCL's own
// tree figure (tuning.cc: algbw = busBw / 2); latency: 2 C D alpha plus the chunks' pipeline.
// With steps in flight (NCCL's, CommTopology::steps_in_flight) the phases overlap:
// pipelined_tree_s over the hops h_i = (alpha_i, m / B_i) and h_e = (alpha, m / B_r).
Seconds double_binary_tree_allreduce_s(int nodes, int gpus_per_node, Bytes n, Route intra, Route inter,
                                       bool steps_in_flight = false);
// Parameter server: each of w workers pushes n/s bytes to each of s servers, then pulls them back.
// A server's link carries w n/s bytes each way, a worker's link n bytes:
//   2 (alpha + max(w/s, 1) n / B).
Seconds parameter_server_s(int workers, int servers, Bytes n, Route r);

// Open MPI 4.1's Rabenseifner (cost/collective_plan.cpp), q = 2^floor(log2 p), r = p - q, L = log2 q,
// B_e = B x exchange_factor:
//   2 L alpha + 2 n (q-1) / (q B_e)  +  [r > 0] (3 alpha + n / (2 B_e) + n / (2 B) + n / B)
// (the pairs swap halves, the odd rank returns its half, the even rank sends the result back).
Seconds rabenseifner_allreduce_s(int p, Bytes n, Route r);
// Open MPI 4.1's recursive doubling: L (alpha + n / B_e) + [r > 0] 2 (alpha + n / B).
Seconds recursive_doubling_allreduce_s(int p, Bytes n, Route r);
// Ring reduce-scatter or allgather of n bytes (nccl-tests' size: the whole vector), p-1 steps of
// n/p: (p-1) (alpha + n / (p B)), B as for the ring allreduce.
Seconds ring_half_allreduce_s(int p, Bytes n, Route r);
// Binomial broadcast or reduce of n bytes: ceil(log2 p) (alpha + n / B) (collective_time_s with
// Algorithm::Tree; Algorithm::Ring is NCCL's chain, pipelined_chain_s).
Seconds binomial_tree_s(int p, Bytes n, Route r);
// Pairwise all-to-all, n bytes sent by each rank in all, n/p to each peer:
//   (p-1) (alpha + n / (p B)), B as for the ring allreduce (each rank sends and receives at once).
Seconds pairwise_alltoall_s(int p, Bytes n, Route r);

// NCCL's NVLink SHARP allreduce (collective_plan.hpp nvls_plan): 2 alpha + 25 us + n (p+1) / (p s B),
// B the route's ring bandwidth (the exchange bandwidth on 2 ranks), s = 51/64 NVLS's share of it
// (kNvlsLinkShare), 25 us NCCL's own NVLS latency (tuning.cc): busbw tends to 2 (p-1)/(p+1) s B,
// 1.24 B on 8 GPUs.
Seconds nvls_allreduce_s(int p, Bytes n, Route r);

// A ring whose steps are in flight (NCCL across nodes: collective_plan.hpp Layout::steps_in_flight).
// Each hop of the ring is a pipeline stage: fixed_s before its bytes move (software overhead and
// latency), serial_s while they hold the link (bytes / B). With f(r,k) the time rank r starts
// sending step k and a(r,k) the time step k reaches rank r (a(r,-1) = 0):
//   f(r,k) = max(a(r,k-1) + overhead_r, f(r,k-1) + serial_r)    it forwards what it received; its
//                                                                link carries one step at a time
//   a(r+1,k) = f(r,k) + latency_r + serial_r,   T = max_r a(r, K-1)
// T is the longest path through that lattice: it visits a window of w <= K consecutive hops (all
// fixed + serial) and spends the other K - w steps behind the slowest link it visits:
//   T = max over w in 1..K and e inter-node hops in the window (floor(w/g) or ceil(w/g): one hop
//       in g leaves a node) of  e h_e + (w - e) h_i + (K - w) max(serial of the hops visited),
// h = fixed + serial. Where every hop is alike T = K h: the lockstep ring (ring_allreduce_s). Where
// the network's hop is the slow one, large messages cost about K serial_e (as lockstep) and small
// ones the latencies of the hops a step crosses (about 2 K / g network hops instead of K).
struct RingHop {
  Seconds fixed_s = 0;
  Seconds serial_s = 0;
  Seconds total_s() const { return fixed_s + serial_s; }
};
Seconds pipelined_ring_s(int steps, int gpus_per_node, RingHop intra, RingHop inter);
// The hops of a ring step of `bytes` per message over a topology's routes (plus each route's extra
// per-round overhead): intra inside a node, inter leaving it.
RingHop ring_hop(const Route& r, Bytes bytes, Seconds extra_overhead_s = 0);
// NCCL's double binary tree with steps in flight (NCCL_STEPS slots per connection): a chunk goes
// up the chain inside its node (g - 1 hops), up the tree (D hops), down it (D) and down the chain
// (g - 1) as soon as it has arrived, while the chunks behind it follow, so the phases overlap
// as a pipeline (NCCL's tree/Simple kernel runs reduce and broadcast on separate threads,
// runTreeSplit in src/collectives/device/all_reduce.h):
//   T = 2 (g - 1) h_i + 2 D h_e + (K - 1) max(k_i serial_i, k_e serial_e)
// over K chunks, h = fixed + serial of one chunk's hop. The period is the busiest link's share of
// one chunk of each tree: inside a node a GPU of the chain sends both trees' chunk up and down
// (k_i = 4; 2 at the chain's ends, so 2 for g = 2), between nodes a node sends both trees' chunk
// up and, interior in one tree, to two children (k_e = 4; 2 for N = 2, whose trees share one
// edge). For K = 1 T is NCCL's tree latency, 2 ((g - 1) intra + D inter) hops (tuning.cc).
Seconds pipelined_tree_s(int chunks, int depth, int gpus_per_node, int nodes, RingHop intra, RingHop inter);
// NCCL's ring broadcast or reduce with steps in flight: K chunks along the chain of p - 1 hops
// from (or to) rank 0, N - 1 of them between nodes, each chunk leaving a hop as soon as it has
// arrived, one period (the slower link's serial part) behind the one before:
//   T = (p - N) h_i + (N - 1) h_e + (K - 1) max(serial_i [g > 1], serial_e [N > 1]).
// Lockstep (chain_s): K + p - 2 rounds of (alpha + c / B), every link of the chain busy in each.
Seconds pipelined_chain_s(int chunks, int gpus_per_node, int nodes, RingHop intra, RingHop inter);
// NCCL's NVLS across nodes (collective_plan.cpp nvls_tree_plan), N nodes of g GPUs on NVLink SHARP,
// D = dbt_depth(N), each GPU's rail at B_r = min(GPU route, uplink / g) (CommTopology::rail).
// With steps in flight (NCCL's): K = nvls_tree_chunks(n) loops of c = n / K through one NVLink SHARP
// hop, D tree hops up, D down and NVLink SHARP again, pipelined:
//   T = 25 us + 2 h_i + 2 D h_e + (K - 1) max(2 s_i, k_e s_e)
// h_i = alpha_i + s_i, s_i = c (g+1) / (2 g B_i) (half of a GPU's NVLink traffic for a chunk);
// h_e = alpha + s_e (alpha at least NCCL's 20.9 us a level), s_e = c / (2 g B_r') (one tree's half of a GPU's share; B_r' the exchange
// bandwidth on 2 nodes, the ring's on more); k_e = 2 on two nodes (one edge carries both trees),
// 4 on more (a node interior in one tree also sends to two children): a rail carries n/g each way
// on 2 nodes, 2 n/g on more, as NCCL's model has it (tuning.cc: bwInter, halved above 2 nodes).
// Lockstep: 2 (alpha_i + 12.5 us + c (g+1) / (2 g B_i)) + 2 C D (alpha + s_e) for c = n, C the
// edge colours (1 on two nodes, else 2).
Seconds nvls_tree_allreduce_s(const CommTopology& t, Bytes n);
Seconds pipelined_nvls_tree_s(int chunks, int depth, int nodes, RingHop intra, RingHop inter);
// NCCL's CollNet Direct (collective_plan.cpp collnet_plan), N nodes of g GPUs on an NVSwitch, the
// switches of the network reducing (SHARP), each GPU's rail at B_r = min(GPU route, uplink / g).
// With steps in flight (NCCL's): K = ceil(n / (g x 512 KiB)) chunks of c = n / K, each scattered
// over NVLink, through the switch and gathered back, pipelined:
//   T = L + 2 h_i + h_e + (K - 1) max(2 s_i, s_e)
// L = collnet_latency_s(g) (NCCL's own, 44 us on 8 GPUs); h_i = alpha_i + s_i, s_i = (g-1) c / (g B_i)
// (a GPU's NVLink sends g-1 pieces of c/g to scatter and as many to gather, so 2 s_i a chunk);
// h_e = alpha + s_e, s_e = c / (g B_r') (a rail's piece up and the total down at once; B_r' the
// exchange bandwidth on 2 nodes, the ring's on more).
// Lockstep: L + 2 (alpha_i + (g-1) n / (g B_i)) + alpha + n / (g B_r').
Seconds collnet_allreduce_s(const CommTopology& t, Bytes n);
Seconds pipelined_collnet_s(int chunks, int gpus_per_node, RingHop intra, RingHop inter);

// Time of one allreduce of n gradient bytes with the given algorithm (0 for a single rank).
// `a` must be concrete: resolve Auto first (cost/decision.hpp).
Seconds collective_time_s(Algorithm a, const CommTopology& topo, Bytes n);
// Any collective; 0 when `a` does not run `c` (collective_plan.hpp: supports()).
Seconds collective_time_s(Collective c, Algorithm a, const CommTopology& topo, Bytes n);

// The alpha-beta time of a plan's rounds, each on its route (node-level rounds on the intra-node
// route, leader rounds on the inter-node one, the others on the flat route): the sum of
// repeat x (alpha + bytes / B); a pipelined ring round across nodes costs pipelined_ring_s over
// the intra and inter routes. Every closed form above equals it for its plan (tested).
struct Round;
Seconds plan_time_s(const std::vector<Round>& plan, const CommTopology& topo);

// nccl-tests' figures (its doc/PERFORMANCE.md), n its "size" in bytes, t the time of one operation:
//   algbw = n / t
//   busbw = algbw x 2 (p-1) / p   allreduce
//           algbw x (p-1) / p     reduce_scatter, allgather, alltoall
//           algbw                 broadcast, reduce
BytesPerSecond algbw_Bps(Bytes n, Seconds t);
BytesPerSecond busbw_Bps(Bytes n, Seconds t, int p);  // allreduce
BytesPerSecond busbw_Bps(Collective c, Bytes n, Seconds t, int p);

}  // namespace cost_layer
}  // namespace ddlsim
