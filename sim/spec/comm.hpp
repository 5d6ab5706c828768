// Communication vocabulary shared by every layer: which collective, which library runs it with
// which algorithm, one rank-to-rank route as an effective alpha-beta pair, and where the ranks are
// (nodes x GPUs per node).
// alpha = route latency per message, B = route bandwidth per direction (full duplex).
#pragma once
#include <string>

#include "core/units.hpp"

namespace ddlsim {
inline namespace spec_layer {

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
//   nvls_tree      NCCL's NVLS across nodes (NVLSTree, NCCL 2.18+): NVLink SHARP inside each node,
//                  the node-reduced vector over a double binary tree between nodes, each GPU
//                  carrying 1/g of it over its own share of the node's NICs (rails)
//   collnet        NCCL's CollNet Direct (NCCL 2.12+, InfiniBand switches with SHARP and NVSwitch
//                  nodes): each GPU scatters its vector to the node's GPUs over NVLink, each sends
//                  the node's sum of its 1/g over its rail to the switch, which reduces across the
//                  nodes and returns the total, and gathers the node's shares back over NVLink
//   pairwise       all-to-all: p-1 rounds, rank r sends to r+k and receives from r-k
//   auto           the library's own choice by collective, ranks and size (cost/decision.hpp)
enum class Algorithm {
  Ring, HalvingDoubling, Tree, Hierarchical, ParameterServer, Rabenseifner, RecursiveDoubling, Pairwise,
  DoubleBinaryTree, Nvls, NvlsTree, CollnetDirect, Auto
};

Algorithm parse_algorithm(const std::string& text, const std::string& key);
const char* to_string(Algorithm a);

// The communication library: its decision rules for `auto` (and, later, its costs on the step).
// gpi2: GPI-2 (Tarantella); grpc: TensorFlow's gRPC transfers (parameter servers, TF collectives).
enum class Library { Nccl, Mpi, Gloo, Gpi2, Grpc };

Library parse_library(const std::string& text, const std::string& key);
const char* to_string(Library l);

// NCCL's protocols: LL (8-byte stores, 4 bytes of data and a flag: lowest latency, a quarter of
// the bandwidth), LL128 (128-byte lines with 120 bytes of data; NVLink only), Simple (plain copies,
// a fence per step: full bandwidth, highest latency).
// Auto: the one NCCL's tuning model picks per call (NCCL_PROTO unset).
enum class Protocol { LL, LL128, Simple, Auto };
Protocol parse_protocol(const std::string& text, const std::string& key);
const char* to_string(Protocol p);

// NCCL's own cost model (NVIDIA/nccl src/graph/tuning.cc at master 5067397c, NCCL 2.28; us there):
// baseLat[algo][proto] once per call, hwLat[hop][algo][proto] per step on each kind of hop. A hop
// inside a node counts as NVLink when its link kind is NVLink (a platform file's: at
// kNvlinkMin_Bps and more). The Simple ring's figures are also the floors of every round's
// latency with NCCL (comm.round_latency = library).
namespace nccl_tuning {
constexpr Seconds kRingBaseLatency_s = 8.4e-6;
constexpr Seconds kRingStepNvlink_s = 3.4e-6;
constexpr Seconds kRingStepPci_s = 5.7e-6;
constexpr Seconds kRingStepNet_s = 14.0e-6;
constexpr BytesPerSecond kNvlinkMin_Bps = 40e9;

// One algorithm's latencies under one protocol: baseLat, then hwLat on NVLink, PCI, network.
struct Latencies {
  Seconds base, nvlink, pci, net;
};
// Indexed by Protocol (LL, LL128, Simple). Ring: baseLat {6.6, 14.0, 8.4}, hwLat NVLink
// {0.6, 1.9, 3.4}, PCI {1.0, 2.5, 5.7}, NET {2.7, 4.0, 14.0}; Tree: baseLat {6.8, 14.0, 8.4},
// hwLat NVLink {0.6, 1.25, 4.0}, PCI {1.0, 1.9, 4.0}, NET {5.0, 8.5, 14}.
constexpr Latencies kRing[3] = {{6.6e-6, 0.6e-6, 1.0e-6, 2.7e-6},
                                {14.0e-6, 1.9e-6, 2.5e-6, 4.0e-6},
                                {kRingBaseLatency_s, kRingStepNvlink_s, kRingStepPci_s, kRingStepNet_s}};
constexpr Latencies kTree[3] = {{6.8e-6, 0.6e-6, 1.0e-6, 5.0e-6}, {14.0e-6, 1.25e-6, 1.9e-6, 8.5e-6}, {8.4e-6, 4.0e-6, 4.0e-6, 14e-6}};
// NVLS across nodes (NVLSTree, Simple only): hwLat NVLink 25 us once, NET 20.9 us per tree level
// each way (latency 25 + 2 log2(nodes) x 20.9).
constexpr Seconds kNvlsTreeStepNet_s = 20.9e-6;
// Across nodes a ring's steps inside a node cost at least the network's post overhead (getNetOverhead:
// 1 us on Intel hosts, 2 on AMD), three times over with Simple.
constexpr Seconds kNetOverhead_s = 1.0e-6;
constexpr double kNetOverheadSimple = 3;
// Share of the bus bandwidth each protocol moves: ring LL 1/4 (allreduce), at most llMaxBw (GB/s:
// one node 39.0 Volta, 87.7 Ampere, 141.0 Hopper; Intel hosts: 2 nodes 39.0, more 20.4); ring
// LL128 0.92 (120/128), 0.7 with one GPU per node; tree LL 1/3.8, tree LL128 7/9 on one node,
// 120/128 across nodes.
constexpr double kRingLL = 1.0 / 4, kRingLL128 = 0.92, kRingLL128OneGpu = 0.7;
constexpr double kRingLLOneNodeGather = 1.0 / 3;  // one node's allgather, reduce-scatter, broadcast
constexpr double kTreeLL = 1.0 / 3.8, kTreeLL128OneNode = 7.0 / 9, kTreeLL128 = 120.0 / 128;
constexpr BytesPerSecond kLLMaxVolta_Bps = 39.0e9, kLLMaxAmpere_Bps = 87.7e9, kLLMaxHopper_Bps = 141.0e9,
                         kLLMaxManyNodes_Bps = 20.4e9;
// A node's GPUs are Hopper's (NVLink 4: intra-node bandwidth at or above this) or Ampere's (NVLink 3).
constexpr BytesPerSecond kHopperIntraMin_Bps = 300e9, kAmpereIntraMin_Bps = 200e9;

// The per-step latency on a hop inside a node: NVLink's or PCI's (NCCL: the path's type).
constexpr Seconds intra_step_s(const Latencies& l, bool nvlink) { return nvlink ? l.nvlink : l.pci; }
}  // namespace nccl_tuning

// A library and the algorithm asked of it.
struct CommMethod {
  Library library = Library::Nccl;
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;  // NCCL's (comm.nccl_protocol, NCCL_PROTO); Auto: its model's
  // NCCL keeps a ring's steps in flight across nodes, and its tree's (comm.ring_steps = pipelined);
  // false: every step in lockstep, as every library's ring ran before (and MPI's and gloo's still do).
  bool ring_steps_in_flight = true;
  // MPI's eager limit (comm.eager_limit_kib): messages of up to this many bytes leave as soon as
  // their sender posts them, without waiting for the receiver (cost/eager_rounds.hpp). 0: none.
  Bytes eager_limit_bytes = 0;
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
  // A network plugin's rendezvous (cluster.net_eager_kib, cluster.net_rendezvous_us): a pipelined
  // NCCL step of more than rendezvous_bytes on this route holds it rendezvous_s longer (0: none).
  Bytes rendezvous_bytes = 0;
  Seconds rendezvous_s = 0;
  // What a pipelined step of `bytes` holds the route for besides its bytes.
  Seconds rendezvous_extra_s(Bytes bytes) const { return rendezvous_s > 0 && bytes > rendezvous_bytes ? rendezvous_s : 0; }
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
  // One GPU's route to its peer GPU of another node while every GPU of the node sends at once over
  // the node's NICs (rails): the inter route at the GPU's share of the node's uplink (nvls_tree).
  Route rail;
  int ps_servers = 1;
  // The intra-node switch reduces (NVLink SHARP: NVSwitch with NVLink 4); NCCL's nvls then runs
  // on one node.
  bool switch_reduction = false;
  // The network's switches reduce (InfiniBand SHARP) and the node's GPUs share an NVSwitch: NCCL's
  // CollNet Direct can run across nodes (cluster.network_reduction = sharp).
  bool network_reduction = false;
  // The GPUs of a node talk over NVLink (NCCL's NVLink latencies and LL128), else over PCIe.
  bool intra_nvlink = false;
  // NCCL's network plugin: the latency it reports (added to each network step of NCCL's choice,
  // twice with Simple) and whether NCCL may run LL and LL128 (ClusterDescription::nccl_net_latency_s, _ll).
  Seconds net_plugin_latency_s = 0;
  bool net_ll = true;
  // NCCL's protocols and their per-step latencies apply (the library is NCCL, its own latencies
  // are on and no measured per-round overhead replaces them): cost/protocol.hpp.
  bool nccl_protocols = false;
  // The library keeps its steps in flight (NCCL; collective_plan.hpp Layout::steps_in_flight):
  // across nodes a ring costs cost/collectives.hpp pipelined_ring_s, not lockstep steps, and a
  // double binary tree pipelined_tree_s.
  bool steps_in_flight = false;
  // The library's halving-doubling splits the ranks into power-of-two blocks (gloo's) instead of
  // folding the extra ranks in and out (collective_plan.hpp Layout::binary_blocks).
  bool binary_blocks = false;
  // The library sends messages of up to this many bytes eagerly (CommMethod::eager_limit_bytes;
  // set for MPI by decision.hpp's library_call). 0: every message waits for its receiver.
  Bytes eager_limit_bytes = 0;

  int ranks() const { return nodes * gpus_per_node; }
  bool nvls_available() const { return switch_reduction && nodes == 1 && gpus_per_node > 1; }
  bool nvls_tree_available() const { return switch_reduction && nodes > 1 && gpus_per_node > 1; }
  bool collnet_available() const { return network_reduction && nodes > 1 && gpus_per_node > 1; }
  // The route a flat (one-level) algorithm is limited by: inter-node when there are several nodes.
  Route flat_route() const { return nodes > 1 ? inter : intra; }
};

}  // namespace spec_layer
}  // namespace ddlsim
