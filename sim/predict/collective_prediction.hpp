// `ddlsim collective`: one collective over a range of sizes on the scenario's platform, with the
// scenario's library and algorithm (`auto`: the library's choice per size), on its backend.
// Sizes are nccl-tests' "size" (collectives.hpp), data 4-byte floats.
#pragma once
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace ddlsim {
inline namespace predict_layer {

struct CollectiveRow {
  Bytes bytes = 0;
  long long count = 0;        // float elements
  std::string algorithm;      // the one that ran (the library's choice with auto)
  std::string protocol;       // NCCL's protocol (LL, LL128, Simple) where NCCL's latencies apply; else ""
  std::string ran() const { return protocol.empty() ? algorithm : algorithm + "/" + protocol; }
  Seconds time_s = 0;
  BytesPerSecond algbw_Bps = 0;
  BytesPerSecond busbw_Bps = 0;
};

struct CollectivePrediction {
  Collective op = Collective::Allreduce;
  std::string platform, library, backend;
  int ranks = 0, nodes = 0, gpus_per_node = 0;
  std::vector<CollectiveRow> rows;
};

// What nccl-tests and OSU measure: the library's own choice per size (Algorithm::Auto), unless the
// scenario sets comm.algorithm itself (`sets_algorithm`, not a framework preset's) for an allreduce.
Algorithm benchmark_algorithm(const Scenario& sc, bool sets_algorithm, Collective op);

// Throws InputError when the scenario's algorithm does not run `op` (naming the ones that do).
CollectivePrediction predict_collective(const Scenario& sc, Collective op, const std::vector<Bytes>& sizes);

}  // namespace predict_layer
}  // namespace ddlsim
