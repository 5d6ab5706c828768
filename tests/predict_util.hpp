// The prediction of the built-in default scenario with `--section.key=value` overrides, as
// `ddlsim simulate --key=value ...` would make it (platform files read by the SimGrid reader).
#pragma once
#include <string>
#include <vector>

#include "predict/prediction.hpp"
#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"

namespace testutil {

inline ddlsim::Scenario scenario_default(const std::vector<std::string>& overrides) {
  return ddlsim::resolve_scenario(ddlsim::read_scenario("", overrides).settings, ".");
}

inline ddlsim::Prediction predict_default(const std::vector<std::string>& overrides) {
  return ddlsim::predict(scenario_default(overrides));
}

}  // namespace testutil
