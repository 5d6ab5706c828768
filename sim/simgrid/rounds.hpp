// Running a collective's rounds as S4U messages (SimGrid's own examples' style): one mailbox per
// (receiver, sender) pair, put_async of every send plus get_async of every receive, wait_all;
// payloads travel by size only.
#pragma once
#include <simgrid/s4u.hpp>

#include <vector>

#include "cost/collective_plan.hpp"

namespace ddlsim {

using Plans = std::vector<std::vector<Round>>;  // one plan (its rounds) per bucket

// Participant `me` runs one round: its sends and receives, until all have completed.
void run_round(const Round& r, const Layout& l, int me);

// Participant `me` runs a pipelined ring round (Round::pipelined): its `repeat` steps, each sent as
// soon as the step before has arrived from its predecessor, without waiting for its own sends
// until the last (cost/collectives.hpp pipelined_ring_s is the closed form). The ring starts when
// every rank has reached it (`start`, a barrier of the ranks): what the ranks could do before the
// last one joins is not modelled, as in the closed forms, which start at the last rank's readiness.
void run_pipelined_ring(const Round& r, const Layout& l, int me, const simgrid::s4u::BarrierPtr& start);
// One step of a pipelined ring round in lockstep: how long after its start the message `me` sends
// reached its successor (the fast fidelity measures a hop's time with it).
Seconds ring_step_hop_s(const Round& r, const Layout& l, int me);

// Runs the simulation; throws when actors are still blocked at the end (unmatched messages).
void run_engine();

}  // namespace ddlsim
