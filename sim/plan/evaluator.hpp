// Forward predictions for the planning commands: the base scenario with some keys set, exactly as
// `simulate FILE --key=value` would predict it; `model.params` (plan_keys.hpp) replaces the
// scenario's model by the synthetic model of that size after the scenario is resolved.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "predict/prediction.hpp"
#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {
inline namespace plan_layer {

// Keys and their values, as text (what `--key=value` would give).
using Assignment = std::vector<std::pair<std::string, std::string>>;

struct Outcome {
  std::optional<Prediction> prediction;
  std::string error;  // when prediction is empty: the reason (an input error's message)
};

// Not for use from several threads at once (it remembers the last resolved scenario).
class Evaluator {
 public:
  Evaluator(Settings base, std::string base_dir);

  // The prediction; throws InputError as `simulate` would. With `interval`, also its 80 % interval
  // (Prediction::uncertainty, as `simulate` reports it).
  Prediction predict_at(const Assignment& a, bool interval = false) const;
  // The same, with an input error kept as the outcome's reason.
  Outcome try_at(const Assignment& a, bool interval = false) const;
  // The base scenario, resolved (its model, cluster).
  Scenario base_scenario() const;
  const Settings& base() const { return base_; }
  // What model.params means for this scenario, in one sentence.
  std::string model_params_note() const;

 private:
  Scenario resolve_cached(const Settings& s) const;

  Settings base_;
  std::string base_dir_;
  // The last resolved settings: a grid over model.params resolves each row once.
  mutable std::optional<std::pair<Settings, Scenario>> last_;
  mutable ResolveMemo resolved_;  // the last model and platform file: most evaluations vary other keys
  mutable ProfileMemo profiles_;  // the last compute profiles, likewise
};

}  // namespace plan_layer
}  // namespace ddlsim
