// Framework presets: the knobs each training system sets, applied where the scenario is silent.
#pragma once
#include <string>
#include <vector>

#include "spec/comm.hpp"
#include "spec/framework.hpp"
#include "core/units.hpp"

namespace ddlsim {
inline namespace scenario_layer {

struct FrameworkPreset {
  std::string name;
  Library library;
  Algorithm algorithm;
  double bucket_mib;     // 0: one packed exchange of all gradients
  bool overlap;
  double cycle_time_ms;
  int sync_period;
  std::string note;
  double first_bucket_mib = 0;  // its first bucket's own cap (0: as the others)
  FrameworkMode mode = FrameworkMode::Graph;
  BufferCopies copies = BufferCopies::None;
  bool negotiates = false;      // Horovod's controller before each exchange
};

const std::vector<FrameworkPreset>& framework_presets();
const FrameworkPreset& find_preset(const std::string& name, const std::string& key);

}  // namespace scenario_layer
}  // namespace ddlsim
