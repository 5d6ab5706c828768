#include "spec/precision.hpp"

#include "core/error.hpp"
#include "core/text.hpp"

namespace ddlsim {

Precision parse_precision(const std::string& text, const std::string& key) {
  const std::string t = to_lower(text);
  if (t == "fp32") return Precision::FP32;
  if (t == "tf32") return Precision::TF32;
  if (t == "mixed" || t == "fp16" || t == "amp") return Precision::Mixed;
  throw InputError(key + " = '" + clip(text) + "': expected one of fp32, tf32, mixed");
}

const char* to_string(Precision p) {
  switch (p) {
    case Precision::FP32: return "fp32";
    case Precision::TF32: return "tf32";
    case Precision::Mixed: return "mixed";
  }
  return "?";
}

}  // namespace ddlsim
