#include "spec/precision.hpp"

#include <utility>
#include <vector>

#include "core/parse.hpp"

namespace ddlsim {
inline namespace spec_layer {

Precision parse_precision(const std::string& text, const std::string& key) {
  static const std::vector<std::pair<std::string, Precision>> names = {
      {"fp32", Precision::FP32}, {"tf32", Precision::TF32}, {"mixed", Precision::Mixed},
      {"fp16", Precision::Mixed}, {"amp", Precision::Mixed}, {"bf16", Precision::Mixed}};
  return lookup(names, text, key, "", "fp32, tf32, mixed, bf16");
}

const char* to_string(Precision p) {
  switch (p) {
    case Precision::FP32: return "fp32";
    case Precision::TF32: return "tf32";
    case Precision::Mixed: return "mixed";
  }
  return "?";
}

}  // namespace spec_layer
}  // namespace ddlsim
