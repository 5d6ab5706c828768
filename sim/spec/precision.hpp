// Arithmetic precision of training, shared by the cost model, the calibration and the reports.
#pragma once
#include <string>

namespace ddlsim {
inline namespace spec_layer {

enum class Precision { FP32, TF32, Mixed };  // Mixed = FP16 tensor-core math, FP16 gradients

Precision parse_precision(const std::string& text, const std::string& key);
const char* to_string(Precision p);

}  // namespace spec_layer
}  // namespace ddlsim
