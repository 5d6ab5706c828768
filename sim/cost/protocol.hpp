// NCCL's protocols on ddlsim's rounds (spec/comm.hpp: Protocol, nccl_tuning). A protocol changes
// two things of a collective's rounds, as NCCL's own tuning model has it (src/graph/tuning.cc):
// * each round lasts at least the algorithm's per-step latency under the protocol on its hop
//   (hwLat, ring: LL 0.6 us on NVLink, LL128 1.9 us, Simple 3.4 us; the network's 2.7 / 4.0 /
//   14.0 us), as the Simple ring's floors of comm.round_latency = library do (system/platform.cpp:
//   use_library_factors);
// * its messages move at the protocol's share of the link (LL a quarter, LL128 0.92): a round
//   carries bytes / efficiency.
// The per-call cost stays Simple's 8.4 us (cost/library_costs.cpp; LL's own is 6.6, LL128's 14.0).
// Simple leaves a topology and its bytes unchanged.
#pragma once
#include "core/units.hpp"
#include "spec/comm.hpp"

namespace ddlsim {
inline namespace cost_layer {

// Simple's bus bandwidth of the dbtree in NCCL's model: 0.9 of the link, at most 80 GB/s beyond 2
// nodes, else 110 (decision.hpp).
BytesPerSecond nccl_tree_bus_Bps(const CommTopology& topo);

// LL128 runs only where the GPUs talk over NVLink (tuning.cc enables it on NVLink paths only); LL
// and LL128 not at all where the network plugin sets NCCL_PROTO=simple (CommTopology::net_ll).
bool protocol_enabled(Protocol p, const CommTopology& topo);

// A network step in NCCL's model, which picks the algorithm and protocol: hwLat[NET] plus the
// latency the network plugin reports, twice with Simple (tuning.cc: interLat += latencyInter, again
// for Simple's flush). The plugin's figure steers NCCL's choice ("used to help tuning if latency is
// high", NCCL's example plugin); the rounds as they run keep hwLat and the links' latency.
Seconds net_step_s(Seconds hw_latency_s, Protocol p, const CommTopology& topo);

// llMaxBw: the most LL moves (bus bandwidth): one node 39.0 GB/s below NVLink 3 (Volta), 87.7
// on NVLink 3 (Ampere), 141.0 on NVLink 4 (Hopper); 2 nodes 39.0; more 20.4 (Intel hosts).
BytesPerSecond ll_max_bus_Bps(const CommTopology& topo);

// The share of its Simple bandwidth that algorithm `a` (ring or dbtree) keeps under protocol `p`,
// running collective `c`: the ring's LL moves a quarter (an allreduce or a reduce, or across
// nodes) or a third (one node's allgather, reduce-scatter, broadcast), as tuning.cc has it.
double protocol_efficiency(Algorithm a, Protocol p, const CommTopology& topo, Collective c = Collective::Allreduce);

// The topology with each route's per-round overhead raised to NCCL's per-step latency of
// algorithm `a` under protocol `p` on that hop (tuning.cc hwLat), in place of the Simple ring's that
// the platform's floors hold: the ring's and the dbtree's own per protocol (a ring's hops inside a
// node at least the network's post overhead once it spans nodes), NVLS tree's 20.9 us a level
// between nodes. Unchanged for the Simple ring, for the other algorithms (their own latencies are
// in their closed forms) and where NCCL's latencies are off.
CommTopology protocol_topology(const CommTopology& topo, Algorithm a, Protocol p);

// What protocol `p` puts on the wire per byte of data: LL's 16-byte lines carry 8 (two 4-byte flags;
// src/include/device.h ncclLLFifoLine), LL128's 128-byte lines 120 (NCCL_LL128_DATAELEMS of
// NCCL_LL128_LINEELEMS eight-byte elements); Simple 1.
double protocol_wire_factor(Protocol p);

// The same for a call whose bytes are the data's over `efficiency` (LibraryCall::bytes), with a
// network plugin's rendezvous limit (Route::rendezvous_bytes) moved into those bytes: a step is
// held when what it puts on the wire (data x wire factor) is over the limit, that is when its
// call bytes are over limit / (efficiency x wire factor). Simple, at efficiency 1, leaves it.
CommTopology protocol_topology(const CommTopology& topo, Algorithm a, Protocol p, double efficiency);

}  // namespace cost_layer
}  // namespace ddlsim
