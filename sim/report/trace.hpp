// Chrome trace-event timeline (the JSON format Horovod's timeline uses; open it in Perfetto or
// chrome://tracing) of one synchronisation period: a sync step then k-1 local steps, of which at
// most `max_steps` in all are drawn (the rest is one "N more local steps (not drawn)" event on
// the compute lane), so a large training.sync_period keeps the file small.
// One process per rank (the first `max_ranks`), one thread per lane (compute, communication,
// input); complete events ("ph": "X") in microseconds. Ranks alike show the same timeline; in a
// mixed cluster each rank shows its own kind's (compose.hpp): a faster rank's exchanges start when
// the slowest rank's buckets are ready, it runs its local steps back to back, and a "wait for
// slower ranks" event fills its period up to the slowest rank's.
#pragma once
#include <string>

#include "predict/prediction.hpp"

namespace ddlsim {
inline namespace report_layer {

std::string chrome_trace_json(const Prediction& p, int max_ranks = 8, int max_steps = 4);

}  // namespace report_layer
}  // namespace ddlsim
