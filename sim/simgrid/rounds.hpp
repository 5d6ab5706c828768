// Running a collective's rounds as S4U messages (SimGrid's own examples' style): one mailbox per
// (receiver, sender) pair, put_async of every send plus get_async of every receive, wait_all;
// payloads travel by size only.
#pragma once
#include <simgrid/s4u.hpp>

#include <vector>

#include "cost/collective_plan.hpp"

namespace ddlsim {
inline namespace simgrid_layer {

using Plans = std::vector<std::vector<Round>>;  // one plan (its rounds) per bucket

// Participant `me` runs one round: its sends and receives, until all have completed. With `eager`
// (a plan where cost/eager_rounds.hpp eager_sends_matter), a round's messages of up to
// l.eager_limit_bytes go through mailboxes whose receivers receive_eagerly set: they leave when
// their sender posts them.
void run_round(const Round& r, const Layout& l, int me, bool eager = false);
// Makes `receiver` (participant me's actor) the permanent receiver of its eager mailboxes in the
// plans whose `eager` flag is set (eager_sends_matter, once per plan), before the simulation starts.
void receive_eagerly(const Plans& plans, const std::vector<bool>& eager, const Layout& l, int me,
                     const simgrid::s4u::ActorPtr& receiver);

// Participant `me` runs a pipelined ring round (Round::pipelined): its `repeat` steps, each sent as
// soon as the step before has arrived from its predecessor (plus its hop's overhead, and once the
// last one's bytes have left), never waiting for its own sends: its successor waits for them
// (cost/collectives.hpp pipelined_ring_s is the closed form). The ring starts when
// every rank has reached it (`start`, a barrier of the ranks): what the ranks could do before the
// last one joins is not modelled, as in the closed forms, which start at the last rank's readiness.
void run_pipelined_ring(const Round& r, const Layout& l, int me, const simgrid::s4u::BarrierPtr& start);
// What `me` spends before its message of a pipelined ring step leaves: the overhead of its hop's
// route (inside its node or out of it) and the round's own for that route.
Seconds ring_hop_overhead_s(const Round& r, const Layout& l, int me);
// One step of a pipelined ring round in lockstep: how long after its start the message `me` sends
// reached its successor (the fast fidelity measures a hop's time with it).
Seconds ring_step_hop_s(const Round& r, const Layout& l, int me);

// Participant `me` runs a ChainPipeline round chunk by chunk: rank 0 (a reduce: the last rank) sends
// its `repeat` chunks back to back, every other rank forwards each chunk `overhead` after it has
// arrived and once the last one's bytes have left (pacing by the route's narrowest link, as the
// pipelined ring), the chain's end only receives. Starts when every rank has reached it (`start`,
// a barrier of the ranks) and ends for all when the chain's end has the last chunk (the same
// barrier), as nccl-tests times a call by its slowest rank. cost/collectives.hpp pipelined_chain_s
// is its longest path.
void run_pipelined_chain(const Round& r, const Layout& l, int me, const simgrid::s4u::BarrierPtr& start);
// A DbtPipeline or ChainPipeline round (collective_plan.hpp) from the measured durations of its
// pipeline_hop_rounds, lockstep, barrier to barrier: a hop's fixed part is its round without
// payload, its serial part the rest (cost/collectives.hpp pipelined_tree_s, pipelined_chain_s
// compose them).
Seconds composed_pipeline_s(const Round& r, const Layout& l, const std::vector<Seconds>& hop_rounds_took);
// Participant `me` runs such a round (SimGrid full: the tree's; the chain runs chunk by chunk):
// with the other ranks (`barrier`), one chunk over each kind of hop in lockstep (its messages on
// the platform), then waits out the rest of the pipeline's time (composed_pipeline_s). The chunks
// are not simulated one by one.
void run_composed_pipeline(const Round& r, const Layout& l, int me, const simgrid::s4u::BarrierPtr& barrier);

// Runs the simulation; throws when actors are still blocked at the end (unmatched messages).
void run_engine();

}  // namespace simgrid_layer
}  // namespace ddlsim
