// Public datasets a scenario can name (input.dataset): the keys each one implies where the scenario
// leaves them unset (its image size, classes, training samples, stored sample) and how its images
// are stored (system.hpp StoredImage: what a loader decodes).
#pragma once
#include "scenario/settings.hpp"
#include "system/system.hpp"

namespace ddlsim {
inline namespace scenario_layer {

// `settings` with input.dataset's keys filled in where the scenario did not set them; their origin
// names input.dataset. `custom` (the default) changes nothing. A model file keeps its own model keys.
Settings with_dataset(const Settings& settings);
// Whether input.dataset names a dataset (not `custom`): whether with_dataset changes anything.
bool names_dataset(const Settings& settings);

// How input.dataset's images are stored (Auto for custom: by the input's size).
StoredImage stored_image(const Settings& settings);

}  // namespace scenario_layer
}  // namespace ddlsim
