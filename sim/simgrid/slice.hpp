// Representative slices: on a built-in cluster (a star of alike nodes, each with its own uplink and
// no shared backbone: engine/sg_world.cpp build_platform), or a platform file whose nodes look alike
// and whose links between nodes each serve one node, a round in which every node's ranks do
// the same thing loads every node's links alike, so two nodes of it take as long as all of them:
// a ring step sends one message out of each node and one into it, a leaders' ring likewise, a round
// inside the nodes never leaves them, and a halving-doubling exchange on a power-of-two count pairs
// every node's ranks with one other node's, local rank to local rank (on the slice: the other
// node). Fast fidelity then simulates the distinct rounds of such plans on two nodes instead of
// every node (the plans themselves, their bytes and repeats, are the whole cluster's). Rounds in
// which nodes differ (folds of extra ranks, binomial and double binary trees, all-to-all,
// parameter servers) keep every node.
#pragma once
#include "cost/collective_plan.hpp"
#include "simgrid/rounds.hpp"

namespace ddlsim {
inline namespace simgrid_layer {

// The node count a slice has.
constexpr int kSliceNodes = 2;

// Whether every round of `plans` may run on a slice of `topo`: more than kSliceNodes nodes and only
// ring steps, leaders' ring steps, rounds inside the nodes and halving-doubling exchanges; on a
// platform file (`file`; its nodes alike and its links between consecutive nodes private, which
// placement.hpp's World says) no halving-doubling, whose partners are not consecutive nodes.
bool slice_applies(const Plans& plans, const CommTopology& topo, bool file);
// The plans as the slice runs them: an exchange with a partner on another node (XorExchange, mask
// at least a node's GPUs) with the other node of the slice.
Plans slice_plans(const Plans& plans, const CommTopology& topo);

// `topo` on kSliceNodes nodes.
CommTopology slice_of(const CommTopology& topo);

}  // namespace simgrid_layer
}  // namespace ddlsim
