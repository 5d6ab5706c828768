// Turns raw settings into a validated Scenario: types checked, presets and platform defaults
// applied, the model built. Every error names the key and where it was set.
#pragma once
#include <optional>
#include <string>

#include "scenario/scenario.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {
inline namespace scenario_layer {

// The last model a run of resolutions built, kept for the next settings with the same model keys
// (a sweep varying the cluster or the exchange builds its model once per thread). The model reads
// the model.* keys and nothing else, so equal model.* settings (values and where they were set)
// give the same model.
class ModelMemo {
 public:
  const Model* find(const std::string& key) const { return model_ && key == key_ ? &*model_ : nullptr; }
  void keep(std::string key, const Model& m) { key_ = std::move(key), model_ = m; }

 private:
  std::string key_;
  std::optional<Model> model_;
};

// `base_dir` resolves relative paths (model.file, cluster.platform) against the scenario file's
// folder. A platform file (cluster.platform = NAME.xml) is read by engine/platform_reader.hpp.
// With `memo`, the model is taken from it when its keys are the ones it kept.
Scenario resolve_scenario(const Settings& settings, const std::string& base_dir, ModelMemo* memo = nullptr);

// The folder of a file path ("" -> ".").
std::string dir_of(const std::string& path);

// What an algorithm needs of the library and the system, "" when it runs there: nvls needs one node
// whose GPUs share an NVSwitch that reduces (cluster.intra = nvlink4), nvls_tree several, collnet
// NVSwitch nodes on switches that reduce (cluster.network_reduction = sharp); all three are NCCL's.
std::string algorithm_misfit(Algorithm a, Library library, const System& sys);

}  // namespace scenario_layer
}  // namespace ddlsim
