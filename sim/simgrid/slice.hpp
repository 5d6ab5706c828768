// Representative slices: on a built-in cluster (a star of alike nodes, each with its own uplink and
// no shared backbone: engine/sg_world.cpp build_platform) a round in which every node's ranks do
// the same thing loads every node's links alike, so two nodes of it take as long as all of them:
// a ring step sends one message out of each node and one into it, a leaders' ring likewise, and a
// round inside the nodes never leaves them. Fast fidelity then simulates the distinct rounds of
// such plans on two nodes instead of every node (the plans themselves, their bytes and repeats,
// are the whole cluster's). Rounds whose partners depend on the node count (halving-doubling,
// trees between nodes, all-to-all, parameter servers) keep every node.
#pragma once
#include "cost/collective_plan.hpp"
#include "simgrid/rounds.hpp"
#include "system/system.hpp"

namespace ddlsim {
inline namespace simgrid_layer {

// The node count a slice has.
constexpr int kSliceNodes = 2;

// Whether every round of `plans` may run on a slice of `topo` on platform `sys`: a built-in
// cluster of more than kSliceNodes nodes and only ring steps, leaders' ring steps and rounds
// inside the nodes.
bool slice_applies(const Plans& plans, const CommTopology& topo, const System& sys);

// `topo` on kSliceNodes nodes.
CommTopology slice_of(const CommTopology& topo);

}  // namespace simgrid_layer
}  // namespace ddlsim
