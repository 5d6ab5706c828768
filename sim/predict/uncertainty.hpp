// How sure a prediction is: the inputs a scenario does not know exactly, each with the values at
// its 10th and 90th percentiles (from the spread of the measurements or publications its default
// came from, cited in uncertainty.cpp), and the 80 % interval they give the prediction's figures.
//
// Propagation is first order, one input at a time, through the analytic backend: each input at its
// two percentiles, the others at their point values (two predictions an input). For a figure y and
// input i, d_i = ln(y_i / y) at each percentile; the interval is
//   y x exp(-sqrt(sum_i lo_i^2)) .. y x exp(+sqrt(sum_i hi_i^2)),
//   lo_i = the most negative of (0, d_i at p10, d_i at p90),  hi_i = the most positive,
// exact when ln y is linear in independent normal inputs (each percentile of an input then moves y
// to the same percentile of its own share). A figure that may be 0 (exposed communication) adds
// the deviations themselves, not their logarithms. Input i's share of the interval is
// (lo_i^2 + hi_i^2) / sum_j (lo_j^2 + hi_j^2) of the step time's. A SimGrid prediction keeps its
// point and takes the analytic backend's relative interval around it.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace ddlsim {
inline namespace predict_layer {

struct Prediction;

// One input a scenario does not know: its values at the 10th and 90th percentiles, in the unit
// `apply` takes. `apply` writes the scenario's system or execution, nothing else.
struct UncertainInput {
  std::string name;     // e.g. "compute (roofline)"
  std::string unit;     // what lo and hi are: "x time", "x bandwidth", "slow-down fraction"
  double lo = 1, hi = 1;
  std::string source;   // where the spread comes from
  std::string measure;  // how a user narrows it (a command or a key)
  std::function<void(Scenario&, double)> apply;
};

// The inputs that apply to this scenario: those it left at a default, or took from the roofline.
// A value the scenario set (a key, a calibration file, a measured throughput) carries only the
// spread of its own measurement where one is known.
std::vector<UncertainInput> uncertain_inputs(const Scenario& sc);

struct Band {
  double p10 = 0, p90 = 0;
};

// One input's part in the interval.
struct UncertaintyShare {
  std::string name, unit, source, measure;
  double lo = 1, hi = 1;
  double step_time_lo_s = 0, step_time_hi_s = 0;  // the step time with the input at lo and at hi
  double share = 0;                               // of the step time's interval (sum of squares)
};

struct Uncertainty {
  Band step_time_s, epoch_time_s, samples_per_s, efficiency, exposed_comm_s;
  std::vector<UncertaintyShare> inputs;  // largest share first
};

// The band of a figure by its result field (step_time_s, epoch_time_s, samples_per_s, efficiency,
// exposed_comm_s); null for a field the interval does not cover.
const Band* interval_of(const Uncertainty& u, const std::string& field);
// The result field of a figure's end: step_time_s -> step_time_p10_s, efficiency -> efficiency_p90.
std::string percentile_field(const std::string& field, bool p90);

// The 80 % interval of `point`, the prediction of `sc` (9 or fewer analytic predictions).
Uncertainty prediction_uncertainty(const Scenario& sc, const Prediction& point);

// The 10th and 90th percentiles of the step time the roofline's H100 steps give, measured time /
// roofline time (uncertainty.cpp cites them; tests/uncertainty_test.cpp recomputes them).
inline constexpr double kRooflineTimeP10 = 0.922;
inline constexpr double kRooflineTimeP90 = 1.449;
// ... that MXNet's performance guide gives one GPU of an older generation in FP32 (one die of a K80,
// Kepler; a V100, Volta): scenarios/validation/batch, the development rows of groups mxnet_k80 and
// mxnet_v100 (batch 1 to 128, synthetic data), measured / roofline time.
inline constexpr double kKeplerRooflineTimeP10 = 1.981;
inline constexpr double kKeplerRooflineTimeP90 = 2.214;
inline constexpr double kVoltaRooflineTimeP10 = 0.994;
inline constexpr double kVoltaRooflineTimeP90 = 1.244;
// ... of a compute time measured at one batch and asked at another, per octave of the batch change
// (|log2(batch / measured batch)|), as the natural logarithm of measured / predicted time: the
// development series of scenarios/validation/batch, each calibrated at its largest batch
// (`validate --set batch`, 27 smaller batches, x1.5 to x128), that ratio's log over the octaves.
// A compute time k octaves away spans exp(k x P10) to exp(k x P90) times the predicted one.
inline constexpr double kBatchOctaveLogTimeP10 = -0.00415;
inline constexpr double kBatchOctaveLogTimeP90 = 0.05122;
// ... of an NCCL allreduce of 1 MiB or more across nodes, measured time / ddlsim's a priori time,
// over the development logs of scenarios/validation/nccl (the held-out systems left out).
inline constexpr double kNcclTimeP10 = 0.920;
inline constexpr double kNcclTimeP90 = 1.793;
// ... of an NCCL allreduce of 1 MiB or more inside one node, over the one-node development logs.
inline constexpr double kNcclNodeTimeP10 = 0.854;
inline constexpr double kNcclNodeTimeP90 = 1.643;

}  // namespace predict_layer
}  // namespace ddlsim
