// Scenario INI text, then the whole input stage (types, ranges, presets, model build).
#include "core/text.hpp"
#include "fuzz_common.hpp"
#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  return fuzz_one(data, size, [](const std::string& text) {
    const auto in = ddlsim::parse_scenario_text(text, "fuzz.ini");
    // A platform file would fork SimGrid (engine/platform_reader.hpp): the fuzzer stays in one
    // process and leaves those inputs out.
    const std::string platform = ddlsim::to_lower(in.settings.at("cluster.platform").value);
    if (platform.size() >= 4 && platform.compare(platform.size() - 4, 4, ".xml") == 0) return;
    ddlsim::resolve_scenario(in.settings, "/nonexistent");
  });
}
