// What the planning commands (`advise`, `map`) may vary and measure.
//  * A key is a scenario key (`ddlsim keys`) or `model.params`, the parameter count of a synthetic
//    model (model/synthetic.hpp: the scenario's model widened to P parameters).
//  * Each key is continuous (a real number), an integer, or a choice among names; numeric keys
//    have a default search range and scale (log for bandwidths, latencies, sizes).
//  * A metric is any numeric result of `simulate` (report/report.hpp's record) or `gpu_hours`
//    (total_time_s x ranks / 3600); each has a direction (higher or lower is better).
#pragma once
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "predict/prediction.hpp"

namespace ddlsim {
inline namespace plan_layer {

enum class KeyKind { Real, Integer, Choice };

struct PlanKey {
  std::string name;
  KeyKind kind = KeyKind::Real;
  double lo = 0, hi = 0;  // default range (numeric keys)
  double min = -HUGE_VAL, max = HUGE_VAL;  // the values the key takes (scenario/keys.cpp)
  bool log = false;       // default scale
  std::string unit;       // shown with values
  std::vector<std::string> choices;  // KeyKind::Choice
};

// The pseudo key of a synthetic model's size.
inline const char* const kModelParamsKey = "model.params";

// The key `name` (case-insensitive); throws InputError naming `origin` and the key when it is not a
// scenario key ("did you mean") or cannot be varied (file names, the platform, the backend).
PlanKey find_plan_key(const std::string& name, const std::string& origin);
// Throws InputError naming `origin` when [lo, hi] reaches outside the values the key takes.
void check_range(const PlanKey& k, double lo, double hi, const std::string& origin);
// Every key `advise` and `map` can vary, for messages.
std::vector<std::string> plan_key_names();

struct Metric {
  std::string name;
  bool higher_is_better = false;
};
// The device's memory left at the step's peak (device_memory_bytes - memory_per_gpu_bytes): at least
// 0 where the step fits (advise's `--target fits`).
inline constexpr const char* kHeadroomMetric = "memory_headroom_bytes";
// A numeric result field, gpu_hours or memory_headroom_bytes; throws InputError naming `origin` otherwise.
Metric find_metric(const std::string& name, const std::string& origin);
// The metric's value in a prediction (an interval's end, `efficiency_p10`, needs the prediction's
// interval: is_interval_metric).
double metric_value(const Prediction& p, const std::string& name);
bool is_interval_metric(const std::string& name);
// The metric's 10th (`p90` false) or 90th percentile in a prediction that carries its interval;
// none without one, or for a metric the interval does not cover.
std::optional<double> metric_percentile(const Prediction& p, const std::string& name, bool p90);
// Whether metric_percentile covers the metric.
bool has_percentiles(const std::string& name);
double gpu_hours(const Prediction& p);

}  // namespace plan_layer
}  // namespace ddlsim
