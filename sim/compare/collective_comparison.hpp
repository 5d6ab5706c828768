// `ddlsim compare` on nccl-tests or OSU output: each measured size beside the prediction of the same
// collective on the scenario's platform (predict_collective, as nccl-tests reports it:
// benchmark_time_s), with the signed relative error and the MAPE over all sizes and over the sizes
// of 10 MB and more.
#pragma once
#include <string>
#include <vector>

#include "compare/bench_output.hpp"
#include "compare/comparison.hpp"
#include "predict/collective_prediction.hpp"
#include "report/report.hpp"

namespace ddlsim {
inline namespace compare_layer {

struct CollectiveComparison {
  std::string measured_file, tool;
  CollectivePrediction prediction;  // one row per measured size, in order
  std::vector<BenchPoint> measured;
  int gpus_per_thread = 1;          // nccl-tests' -g: the prediction is what it would report (benchmark_time_s)
  std::vector<double> errors;       // (predicted - measured) / measured
  ErrorStats all, large;            // large: sizes >= 10 MB (1e7 bytes)
};

CollectiveComparison compare_collective(const BenchOutput& measured, const Scenario& sc, Collective op);

std::string render_collective_comparison(const CollectiveComparison& c, Format f);

}  // namespace compare_layer
}  // namespace ddlsim
