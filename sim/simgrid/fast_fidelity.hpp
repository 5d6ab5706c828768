// Fast fidelity: each distinct round of every bucket's collective is simulated once with all
// ranks (a barrier before and after), and its duration is multiplied by how often it repeats; a
// pipelined ring round's hops are timed in one lockstep step and its steps composed by
// cost/collectives.hpp pipelined_ring_s.
// Needs a symmetric platform (placement.hpp). The step composer places the buckets' times.
#pragma once
#include <vector>

#include "simgrid/placement.hpp"
#include "simgrid/rounds.hpp"

namespace ddlsim {
inline namespace simgrid_layer {

// One exchange duration per bucket plan.
std::vector<Seconds> fast_bucket_times(const World& w, const Plans& plans);

}  // namespace simgrid_layer
}  // namespace ddlsim
