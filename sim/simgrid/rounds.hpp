// Running a collective's rounds as S4U messages (SimGrid's own examples' style): one mailbox per
// (receiver, sender) pair, put_async of every send plus get_async of every receive, wait_all;
// payloads travel by size only.
#pragma once
#include <vector>

#include "cost/collective_plan.hpp"

namespace ddlsim {

using Plans = std::vector<std::vector<Round>>;  // one plan (its rounds) per bucket

// Participant `me` runs one round: its sends and receives, until all have completed.
void run_round(const Round& r, const Layout& l, int me);

// Runs the simulation; throws when actors are still blocked at the end (unmatched messages).
void run_engine();

}  // namespace ddlsim
