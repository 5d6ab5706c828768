// Reading a SimGrid platform file into the two-level ClusterDescription the analytic model and
// the reports use (SimGrid is the one XML parser; it runs in a forked child, see isolate.hpp).
//   ranks  = hosts in natural order; a node = the netzone holding a host (e.g. one <cluster>)
//   GPUs per node = hosts in rank 0's netzone; nodes available = hosts / GPUs per node
//   intra route = rank 0 -> the next host of its zone; inter route = rank 0 -> first host of another zone
//   device = the root zone's property ddlsim.device (`platform generate` writes it)
#pragma once
#include <string>

#include "system/platform.hpp"

namespace ddlsim {
inline namespace engine_layer {

// Throws InputError naming the file (and line, where SimGrid gives one).
ClusterDescription read_platform_file(const std::string& path);

// `ddlsim platform show`: hosts, nodes, links and the route between ranks `from` and `to`
// (to < 0: the last rank).
std::string platform_summary(const std::string& path, int from, int to);

}  // namespace engine_layer
}  // namespace ddlsim
