// Chrome trace-event timeline (the JSON format Horovod's timeline uses; open it in Perfetto or
// chrome://tracing) of one synchronisation period: a sync step then k-1 local steps.
// One process per rank (the first `max_ranks`), one thread per lane (compute, communication,
// input); complete events ("ph": "X") in microseconds. Backends report one rank's phases
// (data-parallel ranks run the same schedule), so every rank shows the same timeline.
#pragma once
#include <string>

#include "predict/prediction.hpp"

namespace ddlsim {

std::string chrome_trace_json(const Prediction& p, int max_ranks = 8);

}  // namespace ddlsim
