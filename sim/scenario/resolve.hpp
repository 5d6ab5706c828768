// Turns raw settings into a validated Scenario: types checked, presets and platform defaults
// applied, the model built. Every error names the key and where it was set.
#pragma once
#include <string>

#include "scenario/scenario.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {
inline namespace scenario_layer {

// `base_dir` resolves relative paths (model.file, cluster.platform) against the scenario file's
// folder. A platform file (cluster.platform = NAME.xml) is read by engine/platform_reader.hpp.
Scenario resolve_scenario(const Settings& settings, const std::string& base_dir);

// The folder of a file path ("" -> ".").
std::string dir_of(const std::string& path);

// What an algorithm needs of the library and the system, "" when it runs there: nvls needs one node
// whose GPUs share an NVSwitch that reduces (cluster.intra = nvlink4), nvls_tree several, collnet
// NVSwitch nodes on switches that reduce (cluster.network_reduction = sharp); all three are NCCL's.
std::string algorithm_misfit(Algorithm a, Library library, const System& sys);

}  // namespace scenario_layer
}  // namespace ddlsim
