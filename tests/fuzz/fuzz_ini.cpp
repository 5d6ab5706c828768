// Scenario INI text, then the whole input stage (types, ranges, presets, model build).
#include "fuzz_common.hpp"
#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  return fuzz_one(data, size, [](const std::string& text) {
    const auto in = ddlsim::parse_scenario_text(text, "fuzz.ini");
    // Platform files would fork SimGrid: the fuzzer stays in one process.
    ddlsim::resolve_scenario(in.settings, "/nonexistent", [](const std::string& path) -> ddlsim::ClusterDescription {
      throw ddlsim::InputError(path + ": platform files are not read while fuzzing");
    });
  });
}
