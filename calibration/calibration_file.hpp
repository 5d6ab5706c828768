// The calibration file (docs/calibration.md): a versioned text file, `key = value` provenance
// lines, then a CSV table of per-layer times. Same calibration, same bytes.
#pragma once
#include <string>

#include "system/calibration.hpp"

namespace ddlsim {
inline namespace calibration_layer {

std::string render_calibration(const Calibration& cal);
// `origin` names the file in errors ("FILE:LINE: ...").
Calibration parse_calibration(const std::string& text, const std::string& origin);
Calibration load_calibration_file(const std::string& path);

}  // namespace calibration_layer
}  // namespace ddlsim
