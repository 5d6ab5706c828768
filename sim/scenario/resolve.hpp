// Turns raw settings into a validated Scenario: types checked, presets and platform defaults
// applied, the model built. Every error names the key and where it was set.
#pragma once
#include <string>

#include "scenario/scenario.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {

// `base_dir` resolves relative paths (model.file) against the scenario file's folder.
Scenario resolve_scenario(const Settings& settings, const std::string& base_dir);

// The folder of a file path ("" -> ".").
std::string dir_of(const std::string& path);

}  // namespace ddlsim
