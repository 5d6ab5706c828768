// Closed-form (alpha-beta) cost of the gradient exchanges. p ranks, n bytes per rank,
// alpha = route latency per message, B = route bandwidth per direction (full duplex).
// Every formula assumes contention-free links; the SimGrid backend shows what contention adds.
#pragma once
#include <string>

#include "core/units.hpp"
#include "spec/comm.hpp"

namespace ddlsim {

// Ring allreduce: reduce-scatter then allgather, 2(p-1) steps of n/p bytes:
//   2 (p-1) (alpha + n / (p B)); with p = 2 the two ranks send to each other: B x exchange_factor;
//   with p >= 3 each rank sends and receives at once: B x duplex_factor.
Seconds ring_allreduce_s(int p, Bytes n, Route r);
// Recursive halving-doubling (Rabenseifner) on q = 2^floor(log2 p) ranks, every step a pairwise
// exchange (B x exchange_factor):
//   2 log2(q) alpha + 2 n (q-1) / (q B),
// plus, when p is not a power of two, a fold-in and fold-out of the p-q extra ranks: 2 (alpha + n/B).
Seconds halving_doubling_allreduce_s(int p, Bytes n, Route r);
// Binomial-tree reduce to rank 0 then binomial-tree broadcast, whole message each round:
//   2 ceil(log2 p) (alpha + n/B).
Seconds tree_allreduce_s(int p, Bytes n, Route r);
// Hierarchical: binomial reduce inside each node to its leader, ring allreduce among the node
// leaders, binomial broadcast inside each node:
//   2 ceil(log2 g) (alpha_i + n/B_i) + ring(nodes, n, inter).
Seconds hierarchical_allreduce_s(int nodes, int gpus_per_node, Bytes n, Route intra, Route inter);
// Parameter server: each of w workers pushes n/s bytes to each of s servers, then pulls them back.
// A server's link carries w n/s bytes each way, a worker's link n bytes:
//   2 (alpha + max(w/s, 1) n / B).
Seconds parameter_server_s(int workers, int servers, Bytes n, Route r);

// Time of one exchange of n gradient bytes with the given algorithm (0 for a single rank).
Seconds collective_time_s(Algorithm a, const CommTopology& topo, Bytes n);

// nccl-tests' figures: algbw = n / t; busbw = algbw * 2 (p-1) / p (allreduce).
BytesPerSecond algbw_Bps(Bytes n, Seconds t);
BytesPerSecond busbw_Bps(Bytes n, Seconds t, int p);

}  // namespace ddlsim
