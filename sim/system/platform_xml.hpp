// SimGrid platform XML for a two-level cluster (no SimGrid here: text only).
// Layout, the same as the analytic ClusterDescription routes and the in-memory platform the
// SimGrid backend builds for built-in names:
//   (the backend builds the same routes in memory for built-in names: see sg_world.cpp)
//   one <cluster> per node: a host gpu-N-K per GPU with a private split-duplex link of the intra
//   kind to the node's router; one split-duplex uplink of the inter kind per node (the NIC all
//   its GPUs share); a full routing table between nodes: router - uplink - uplink - router.
// GPU to GPU inside a node: 2 intra hops; across nodes: intra, inter, inter, intra.
#pragma once
#include <string>

#include "system/platform.hpp"

namespace ddlsim {
inline namespace system_layer {

// Host name of GPU k of node n: "gpu-3-0". Natural order = node-major rank order.
std::string gpu_host_name(int node, int gpu);

// A generated file routes every pair of nodes (about 100 bytes x nodes^2): 512 nodes make ~25 MB,
// well inside what ddlsim reads back (kMaxInputFileBytes). Larger clusters: --cluster.nodes.
constexpr int kMaxGeneratedNodes = 512;

// The XML of `nodes` nodes of cluster c (1 <= nodes <= kMaxGeneratedNodes). Assumptions go in XML
// comments.
std::string platform_xml(const ClusterDescription& c, int nodes);

}  // namespace system_layer
}  // namespace ddlsim
