// Calibration files (docs/calibration.md).
#include "calibration/calibration_file.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  return fuzz_one(data, size, [](const std::string& text) {
    const ddlsim::Calibration c = ddlsim::parse_calibration(text, "fuzz.cal");
    for (const auto& r : c.rows) ddlsim::layer_timing_at(c, r.layer, 7, "fuzz.cal");
  });
}
