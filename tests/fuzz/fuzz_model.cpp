// Model files (docs/model-file.md).
#include "fuzz_common.hpp"
#include "model/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  return fuzz_one(data, size, [](const std::string& text) { ddlsim::parse_model_file(text, "fuzz.model"); });
}
