#include "plan/plan_keys.hpp"

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"
#include "model/synthetic.hpp"
#include "report/report.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {
inline namespace plan_layer {

namespace {

// The keys that can be varied: model.params, then every scenario key declared with a range or
// values to vary over (scenario/keys.cpp), in the order of `ddlsim keys`.
std::vector<PlanKey> plan_keys() {
  std::vector<PlanKey> out{{kModelParamsKey, KeyKind::Real, 1e5, 1e10, 1, kMaxSyntheticParams, true, "parameters", {}}};
  for (const KeySpec& k : scenario_keys()) {
    if (!k.vary) continue;
    const bool numeric = k.type == KeyType::Integer || k.type == KeyType::Real;
    PlanKey p{k.key, KeyKind::Real, k.vary->lo, k.vary->hi, numeric ? k.min : -HUGE_VAL, numeric ? k.max : HUGE_VAL,
              k.vary->log, k.unit, k.vary->values};
    if (!p.choices.empty()) p.kind = KeyKind::Choice;
    else if (k.type == KeyType::Integer) p.kind = KeyKind::Integer;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

void check_range(const PlanKey& k, double lo, double hi, const std::string& origin) {
  if (lo >= k.min && hi <= k.max) return;
  throw InputError(origin + " = " + format_number(lo) + ".." + format_number(hi) + ": " + k.name + " takes values from " +
                   format_number(k.min) + " to " + format_number(k.max));
}

std::vector<std::string> plan_key_names() {
  std::vector<std::string> out;
  for (const auto& k : plan_keys()) out.push_back(k.name);
  return out;
}

PlanKey find_plan_key(const std::string& name, const std::string& origin) {
  const std::string n = to_lower(name);
  for (const auto& k : plan_keys())
    if (to_lower(k.name) == n) return k;
  std::vector<std::string> schema{kModelParamsKey};
  for (const auto& s : scenario_keys()) schema.push_back(s.key);
  for (const auto& s : schema)
    if (to_lower(s) == n)
      throw InputError(origin + " = '" + clip(name) + "': this key cannot be varied (a file name, the platform or the "
                       "backend); expected one of " + names_of(plan_key_names(), [](const std::string& x) { return x; }));
  throw InputError(origin + " = '" + clip(name) + "': unknown key" + did_you_mean(name, schema) +
                   " (`ddlsim keys` lists them; model.params sizes a synthetic model)");
}

double gpu_hours(const Prediction& p) { return p.total_time_s * p.ranks / 3600.0; }

namespace {
bool higher_is_better(const std::string& name) {
  for (const char* n : {"speedup", "efficiency", "samples_per_s", "global_batch", "batch_per_gpu"})
    if (name == n) return true;
  return false;
}
}  // namespace

Metric find_metric(const std::string& name, const std::string& origin) {
  const std::string n = to_lower(name);
  if (n == "gpu_hours") return {n, false};
  if (n == kHeadroomMetric) return {n, true};
  // Any numeric field of a prediction's record (its fields do not depend on the values), the 80 %
  // interval's ends included.
  Prediction sample;
  sample.uncertainty = Uncertainty{};
  const auto rec = prediction_record(sample);
  std::vector<std::string> numeric{"gpu_hours", kHeadroomMetric};
  for (const auto& [k, v] : rec.items())
    if (v.is_number()) numeric.push_back(k);
  for (const auto& k : numeric)
    if (k == n) return {n, higher_is_better(n)};
  throw InputError(origin + " = '" + clip(name) + "': not a numeric result" + did_you_mean(name, numeric) +
                   "; expected one of " + names_of(numeric, [](const std::string& x) { return x; }));
}

double metric_value(const Prediction& p, const std::string& name) {
  if (name == "gpu_hours") return gpu_hours(p);
  if (name == kHeadroomMetric) return p.device_memory_bytes - p.memory_per_gpu_bytes;
  return prediction_record(p).at(name).get<double>();
}

bool has_percentiles(const std::string& name) {
  return interval_of(Uncertainty{}, name) || name == "speedup" || name == "gpu_hours";
}

bool is_interval_metric(const std::string& name) {
  Prediction point, with;
  with.uncertainty = Uncertainty{};
  return prediction_record(with).contains(name) && !prediction_record(point).contains(name);
}

std::optional<double> metric_percentile(const Prediction& p, const std::string& name, bool p90) {
  if (!p.uncertainty) return std::nullopt;
  const Uncertainty& u = *p.uncertainty;
  const auto end = [&](const Band& b) { return p90 ? b.p90 : b.p10; };
  // Speed-up and GPU hours are efficiency and epoch time times the ranks: their bands in proportion.
  const auto scaled = [&](double point, const Band& b, double of) { return of > 0 ? point * end(b) / of : point; };
  if (const Band* b = interval_of(u, name)) return end(*b);
  if (name == "speedup") return scaled(p.speedup, u.efficiency, p.efficiency);
  if (name == "gpu_hours") return scaled(gpu_hours(p), u.epoch_time_s, p.epoch_time_s);
  return std::nullopt;
}

}  // namespace plan_layer
}  // namespace ddlsim
