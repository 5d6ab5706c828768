// SimGrid's engine (this header and the .cpp files of engine/ and simgrid/ are the only code that
// includes SimGrid): configure the engine, then build or load the platform, in this order, in a
// forked child (isolate.hpp).
#pragma once
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "spec/simulation.hpp"
#include "system/system.hpp"

namespace ddlsim {
inline namespace engine_layer {

// A configured engine; configuration must precede the platform. Lives until the child exits.
simgrid::s4u::Engine& start_engine(const SimGridOptions& o);

// Built-in or generated clusters are built in memory (star zones: any size, O(1) routing), the
// same layout as platform_xml(); a cluster read from a file loads that file. Returns every host
// in natural order (gpu2 before gpu10); ranks are the first ones.
std::vector<simgrid::s4u::Host*> build_platform(simgrid::s4u::Engine& e, const ClusterDescription& c, int nodes);

// Loads a platform file; SimGrid's parse errors become InputError naming the file and line.
void load_platform_file(simgrid::s4u::Engine& e, const std::string& path);

std::vector<simgrid::s4u::Host*> hosts_in_natural_order(const simgrid::s4u::Engine& e);

// Latency (sum) and bottleneck bandwidth of the route from a to b.
struct RouteInfo {
  std::vector<simgrid::s4u::Link*> links;
  double latency_s = 0;
  double bw_Bps = 0;
};
RouteInfo route_info(const simgrid::s4u::Host* a, const simgrid::s4u::Host* b);

}  // namespace engine_layer
}  // namespace ddlsim
