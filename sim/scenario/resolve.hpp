// Turns raw settings into a validated Scenario: types checked, presets and platform defaults
// applied, the model built. Every error names the key and where it was set.
#pragma once
#include <optional>
#include <string>

#include "scenario/scenario.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {
inline namespace scenario_layer {

// What a run of resolutions (a sweep's thread, a planner) keeps for the next settings:
//  * the last model built, taken again for the same model keys: the model reads the model.* keys
//    and nothing else, so equal model.* settings (values and where they were set) give the same
//    model;
//  * the last platform file read (cluster.platform = FILE.xml), taken again while the file holds
//    the same bytes: reading one parses it with SimGrid in a child process (tens of milliseconds
//    for a few hundred nodes), which a sweep on one file paid for every configuration.
class ResolveMemo {
 public:
  const Model* find_model(const std::string& key) const { return model_ && key == model_key_ ? &*model_ : nullptr; }
  void keep_model(std::string key, const Model& m) { model_key_ = std::move(key), model_ = m; }
  const ClusterDescription* find_platform(const std::string& path, const std::string& bytes) const {
    return platform_ && path == platform_path_ && bytes == platform_bytes_ ? &*platform_ : nullptr;
  }
  void keep_platform(std::string path, std::string bytes, const ClusterDescription& c) {
    platform_path_ = std::move(path), platform_bytes_ = std::move(bytes), platform_ = c;
  }

 private:
  std::string model_key_;
  std::optional<Model> model_;
  std::string platform_path_, platform_bytes_;
  std::optional<ClusterDescription> platform_;
};

// `base_dir` resolves relative paths (model.file, cluster.platform) against the scenario file's
// folder. A platform file (cluster.platform = NAME.xml) is read by engine/platform_reader.hpp.
// With `memo`, the model and a platform file's description are taken from it when they are the
// ones it kept.
Scenario resolve_scenario(const Settings& settings, const std::string& base_dir, ResolveMemo* memo = nullptr);

// The folder of a file path ("" -> ".").
std::string dir_of(const std::string& path);

// What an algorithm needs of the library and the system, "" when it runs there: nvls needs one node
// whose GPUs share an NVSwitch that reduces (cluster.intra = nvlink4), nvls_tree several, collnet
// NVSwitch nodes on switches that reduce (cluster.network_reduction = sharp); all three are NCCL's.
std::string algorithm_misfit(Algorithm a, Library library, const System& sys);

}  // namespace scenario_layer
}  // namespace ddlsim
