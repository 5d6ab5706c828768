// NCCL's protocols on ddlsim's rounds (spec/comm.hpp: Protocol, nccl_tuning). A protocol changes
// two things of a collective's rounds, as NCCL's own tuning model has it (src/graph/tuning.cc):
// * each round lasts at least the protocol's per-step latency on its hop (hwLat: LL 0.47 us on
//   NVLink, LL128 1.9 us, Simple 3.4 us; the network's 2.7 / 4.0 / 9.6 us), as the Simple floors
//   of comm.round_latency = library do (system/platform.cpp: use_library_factors);
// * its messages move at the protocol's share of the link (LL a quarter, LL128 0.92): a round
//   carries bytes / efficiency.
// The per-call cost stays Simple's 8.4 us (cost/library_costs.cpp; LL's own is 3.6, LL128's 10.0).
// Simple leaves a topology and its bytes unchanged.
#pragma once
#include "core/units.hpp"
#include "spec/comm.hpp"

namespace ddlsim {
inline namespace cost_layer {

// Simple's bus bandwidth of the dbtree in NCCL's model: 0.9 of the link, at most 80 GB/s beyond 2
// nodes, else 110 (decision.hpp).
BytesPerSecond nccl_tree_bus_Bps(const CommTopology& topo);

// LL128 runs only where the GPUs talk over NVLink (tuning.cc enables it on NVLink paths only).
bool protocol_enabled(Protocol p, const CommTopology& topo);

// llMaxBw: the most LL moves (bus bandwidth): one node 39.0 GB/s below NVLink 3 (Volta), 87.7
// from NVLink 3 (Ampere, Hopper); 2 nodes 39.0; more 20.4 (Intel hosts).
BytesPerSecond ll_max_bus_Bps(const CommTopology& topo);

// The share of its Simple bandwidth that algorithm `a` (ring or dbtree) keeps under protocol `p`,
// running collective `c`: the ring's LL moves a quarter (an allreduce or a reduce, or across
// nodes) or a third (one node's allgather, reduce-scatter, broadcast), as tuning.cc has it.
double protocol_efficiency(Algorithm a, Protocol p, const CommTopology& topo, Collective c = Collective::Allreduce);

// The topology with each route's per-round overhead raised to the protocol's per-step latency on
// that hop (LL's intra hops x 1.8 across nodes), in place of Simple's. Unchanged for Simple and
// where NCCL's latencies are off.
CommTopology protocol_topology(const CommTopology& topo, Protocol p);

}  // namespace cost_layer
}  // namespace ddlsim
