// Where the ranks run: the platform's hosts in rank order (built-in clusters in natural order; on
// a platform file the first g hosts of each of the first `nodes` netzones), and whether every node
// is alike so that fast fidelity applies. Runs inside the SimGrid child (isolate.hpp).
#pragma once
#include <simgrid/s4u.hpp>
#include <vector>

#include "cost/collective_plan.hpp"
#include "simgrid/rounds.hpp"
#include "spec/comm.hpp"
#include "spec/simulation.hpp"
#include "system/system.hpp"

namespace ddlsim {
inline namespace simgrid_layer {

struct World {
  std::vector<simgrid::s4u::Host*> hosts;  // participants: ranks, then spare server hosts
  Layout layout;
  bool symmetric = true;                   // every node alike: fast fidelity applies
  bool private_links = true;               // each link between consecutive nodes serves one node (no
                                           // shared backbone): a slice of them applies (slice.hpp)
};

// Starts the engine, builds the platform and places the ranks.
World make_world(const CommTopology& topo, Algorithm a, const System& sys, const SimGridOptions& o);

// Whether a run of `ranks` ranks gets a guard page under each actor stack: up to 8,192 ranks (about
// two actors and two mappings each, a quarter of the kernel's default vm.max_map_count of 65,530).
constexpr int kGuardedRanks = 8192;
bool stack_guard_pages(int ranks);

// Sets w.layout.ring_link_Bps and ring_link_latency_s (each rank's route to the next) and
// ring_back_link_Bps (to the one before) where a plan has a pipelined ring round or a chain
// (ChainPipeline), which pace their sends by them; other plans need no such route.
void pace_pipelined_rings(World& w, const Plans& plans);

}  // namespace simgrid_layer
}  // namespace ddlsim
