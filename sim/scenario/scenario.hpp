// A resolved, validated scenario: application (model), execution (how training runs) and system
// (devices, network, storage) as three separate inputs, composed by the predictor. The cost model
// takes Model + Execution + System, never a Scenario.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "model/model.hpp"
#include "spec/execution.hpp"
#include "spec/simulation.hpp"
#include "system/system.hpp"

namespace ddlsim {
inline namespace scenario_layer {

struct Scenario {
  Model model;
  Execution execution;
  System system;
  BackendKind backend = BackendKind::Analytic;
  SimGridOptions simgrid;
  std::vector<std::string> defaulted;  // the keys the scenario left at their defaults (sorted)
  bool left_default(const std::string& key) const {
    return std::binary_search(defaulted.begin(), defaulted.end(), key);
  }
};

}  // namespace scenario_layer
}  // namespace ddlsim
