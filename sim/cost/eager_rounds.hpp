// A collective's rounds with eager sends (Layout::eager_limit_bytes, comm.eager_limit_kib): an MPI
// library sends a message of up to its eager limit as soon as its sender posts it, into buffers at
// the receiver, without waiting for the receiver to post its receive (Open MPI's TCP BTL:
// btl_tcp_eager_limit, 64 KiB by default; `ompi_info --param btl tcp --level 9`). Where every rank
// reaches every round together this changes nothing. Where it does not (the extra ranks' fold of
// recursive doubling, Rabenseifner and halving-doubling on a rank count that is not a power of two,
// a binomial tree on such a count), a rank that has nothing to do in a round sends its next
// message at once, into a receiver still busy with the fold: both messages share that receiver's
// link. The rounds are then no longer a sum of lockstep rounds; eager_plan_time_s plays them rank by
// rank instead, as SimGrid does (simgrid/rounds.cpp: a mailbox with a permanent receiver).
#pragma once
#include <vector>

#include "cost/collective_plan.hpp"

namespace ddlsim {
inline namespace cost_layer {

// Whether eager sends change the time of `plan`: the layout has an eager limit, some round's
// messages are within it, some round leaves ranks idle, and every round is one whose messages all
// take the flat route with one message a rank and direction (eager_plan_time_s's assumptions).
bool eager_sends_matter(const std::vector<Round>& plan, const Layout& l);

// The time of `plan` when each rank runs its rounds on its own: it starts its next round when its
// own messages of this one have arrived, spends the round's overhead (Layout::step_overhead_s +
// Round::overhead_s), then posts its sends and receives. A message of up to l.eager_limit_bytes
// starts when its sender posts it, a larger one when both sides have; after the route's latency
// it moves at its max-min fair share of its sender's and its receiver's links (each direction of
// each rank's link carries r.bw_Bps), the fluid model SimGrid solves on a star of split-duplex
// links. The call ends when the last rank's last round does. Rendezvous messages alone give the
// closed forms' lockstep sums on the plans eager_sends_matter accepts.
Seconds eager_plan_time_s(const std::vector<Round>& plan, const Layout& l, const Route& r);

}  // namespace cost_layer
}  // namespace ddlsim
