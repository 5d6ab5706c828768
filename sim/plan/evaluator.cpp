#include "plan/evaluator.hpp"

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"
#include "model/synthetic.hpp"
#include "plan/plan_keys.hpp"

namespace ddlsim {
inline namespace plan_layer {

Evaluator::Evaluator(Settings base, std::string base_dir)
    : base_(std::move(base)), base_dir_(std::move(base_dir)) {}

namespace {
bool same_values(const Settings& a, const Settings& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
    if (i->first != j->first || i->second.value != j->second.value || i->second.defaulted != j->second.defaulted)
      return false;
  return true;
}
}  // namespace

Scenario Evaluator::resolve_cached(const Settings& s) const {
  if (last_ && same_values(last_->first, s)) return last_->second;
  Scenario sc = resolve_scenario(s, base_dir_, &resolved_);
  last_.emplace(s, sc);
  return sc;
}

Scenario Evaluator::base_scenario() const { return resolve_cached(base_); }

Prediction Evaluator::predict_at(const Assignment& a, bool interval) const {
  Settings s = base_;
  std::optional<double> params;
  for (const auto& [key, value] : a) {
    if (key == kModelParamsKey) {
      params = parse_real(value, 1, kMaxSyntheticParams);
      if (!params) throw InputError("model.params = '" + value + "': expected a parameter count from 1 to 1e13");
      continue;
    }
    s[key] = Setting{value, "command line", false};
  }
  Scenario sc = resolve_cached(s);
  if (params) sc.model = widen_to_params(sc.model, *params);
  // model.params widens the model after resolution: its profiles are not the settings' own.
  Prediction p = params ? predict(sc) : predict(sc, profiles_.profiles(sc, s));
  if (interval) p.uncertainty = prediction_uncertainty(sc, p);
  return p;
}

std::string Evaluator::model_params_note() const {
  const Model base = base_scenario().model;
  return "model.params: the scenario's model (" + base.name + ") widened to P parameters: every layer's channels x "
         "sqrt(P / " + format_number(double(base.params_total())) + "), so parameters and operations scale with P, "
         "activations with sqrt(P)";
}

Outcome Evaluator::try_at(const Assignment& a, bool interval) const {
  try {
    return {predict_at(a, interval), ""};
  } catch (const InputError& e) {
    return {std::nullopt, e.what()};
  }
}

}  // namespace plan_layer
}  // namespace ddlsim
