// Communication vocabulary shared by every layer: which collective, which library runs it with
// which algorithm, one rank-to-rank route as an effective alpha-beta pair, and where the ranks are
// (nodes x GPUs per node).
// alpha = route latency per message, B = route bandwidth per direction (full duplex).
#pragma once
#include <string>

#include "core/units.hpp"

namespace ddlsim {

// The collectives `ddlsim collective` predicts; training steps exchange gradients by allreduce.
enum class Collective { Allreduce, ReduceScatter, Allgather, Broadcast, Reduce, Alltoall };

Collective parse_collective(const std::string& text, const std::string& key);
const char* to_string(Collective c);

// How a collective is run, as the rounds of messages it sends (cost/collective_plan.hpp):
//   ring           ring: reduce-scatter + allgather, 2(p-1) steps of n/p (NCCL ring, gloo ring,
//                  Open MPI ring and segmented ring)
//   rhd            textbook recursive halving-doubling (Thakur et al. 2005), extra ranks folded in
//                  and out whole (GPI-2/Tarantella)
//   rabenseifner   Open MPI 4.1 `redscat_allgather`: pairs of extra ranks swap halves, the odd one
//                  returns its reduced half, recursive halving-doubling, the result sent back
//   rd             Open MPI 4.1 recursive doubling: the whole vector at distances 1, 2, 4, ...
//   tree           binomial reduce then binomial broadcast of the whole vector
//   hierarchical   binomial reduce inside each node, ring among node leaders, broadcast in nodes
//   dbtree         NCCL's double binary tree (NCCL 2.4+): a pipelined chain inside each node, two
//                  complementary binary trees over the nodes each carrying half the vector
//   ps             parameter server push and pull
//   nvls           NCCL's NVLink SHARP (NCCL 2.17+, NVSwitch of NVLink 4): the switch reduces and
//                  multicasts, so each GPU sends and receives n (p+1)/p (its vector to be
//                  reduced plus its reduced share, and back) instead of a ring's 2 n (p-1)/p
//   pairwise       all-to-all: p-1 rounds, rank r sends to r+k and receives from r-k
//   auto           the library's own choice by collective, ranks and size (cost/decision.hpp)
enum class Algorithm {
  Ring, HalvingDoubling, Tree, Hierarchical, ParameterServer, Rabenseifner, RecursiveDoubling, Pairwise,
  DoubleBinaryTree, Nvls, Auto
};

Algorithm parse_algorithm(const std::string& text, const std::string& key);
const char* to_string(Algorithm a);

// The communication library: its decision rules for `auto` (and, later, its costs on the step).
// gpi2: GPI-2 (Tarantella); grpc: TensorFlow's gRPC transfers (parameter servers, TF collectives).
enum class Library { Nccl, Mpi, Gloo, Gpi2, Grpc };

Library parse_library(const std::string& text, const std::string& key);
const char* to_string(Library l);

// NCCL's own cost model of a ring allreduce, Simple protocol (NVIDIA/nccl src/graph/tuning.cc,
// NCCL 2.7-2.8; us there): baseLat[Ring][Simple] once per call, hwLat[hop][Ring][Simple] per ring
// step on each kind of hop. A hop counts as NVLink at 40 GB/s and more (the intra route).
namespace nccl_tuning {
constexpr Seconds kRingBaseLatency_s = 8.4e-6;
constexpr Seconds kRingStepNvlink_s = 3.4e-6;
constexpr Seconds kRingStepPci_s = 5.7e-6;
constexpr Seconds kRingStepNet_s = 9.6e-6;
constexpr BytesPerSecond kNvlinkMin_Bps = 40e9;
}  // namespace nccl_tuning

// A library and the algorithm asked of it.
struct CommMethod {
  Library library = Library::Nccl;
  Algorithm algorithm = Algorithm::Ring;
};

// One rank-to-rank route.
struct Route {
  Seconds latency_s = 0;
  BytesPerSecond bw_Bps = 0;
  // Fraction of bw_Bps each direction keeps while two ranks send to each other at once (a 2-rank
  // ring step, a halving-doubling step). 1 = ideal full duplex; TCP over shaped or busy links
  // measures less (`ddlsim netfit` fits it from netbench's `exchange` rows).
  double exchange_factor = 1;
  // Fraction of bw_Bps each direction keeps while every rank sends to one peer and receives from
  // another at once (a ring step with p >= 3). 1 = ideal; netfit fits it from `shift` rows.
  double duplex_factor = 1;
  // Software overhead of the communication library per message round of a collective (a ring
  // step, a tree level), on top of the network's latency: what a loaded ring measures above the
  // idle ping-pong latency (`ddlsim netfit`, platform property ddlsim.step_overhead_us). 0 = none.
  Seconds step_overhead_s = 0;
  // What one round of a collective pays before its bytes move: network latency + software overhead.
  Seconds step_latency_s() const { return latency_s + step_overhead_s; }
  BytesPerSecond exchange_bw_Bps() const { return bw_Bps * exchange_factor; }
  BytesPerSecond ring_bw_Bps() const { return bw_Bps * duplex_factor; }
};

// Where the ranks are: nodes x gpus_per_node, with the intra- and inter-node routes.
struct CommTopology {
  int nodes = 1;
  int gpus_per_node = 1;
  Route intra;
  Route inter;
  int ps_servers = 1;
  // The intra-node switch reduces (NVLink SHARP: NVSwitch with NVLink 4); NCCL's nvls then runs
  // on one node.
  bool switch_reduction = false;

  int ranks() const { return nodes * gpus_per_node; }
  bool nvls_available() const { return switch_reduction && nodes == 1 && gpus_per_node > 1; }
  // The route a flat (one-level) algorithm is limited by: inter-node when there are several nodes.
  Route flat_route() const { return nodes > 1 ? inter : intra; }
};

}  // namespace ddlsim
