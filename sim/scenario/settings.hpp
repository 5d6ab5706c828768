// The scenario schema and the raw settings read from a scenario file and the command line.
// One schema for both: every key `section.key` of a file can be given as `--section.key=value`.
// Reading is Boost.Program_options; values stay text here and are validated by resolve.cpp.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace ddlsim {
inline namespace scenario_layer {

struct KeySpec {
  std::string key;           // section.key
  std::string default_value; // "" = derived (from the preset, platform or model)
  std::string help;
};

// Every scenario key, in report order.
const std::vector<KeySpec>& scenario_keys();

struct Setting {
  std::string value;
  std::string origin;   // "file.ini:12", "command line", or "default"
  bool defaulted = true;
};

using Settings = std::map<std::string, Setting>;

struct ScenarioInput {
  std::string file;                                     // "" when built in
  Settings settings;                                    // every schema key
  std::map<std::string, std::vector<std::string>> sweep;  // key -> values; keys sorted
  std::map<std::string, std::string> sweep_origin;        // key -> where its list was given
};

// Reads FILE (may be empty: defaults only) and `--key=value` overrides. Throws InputError naming the
// file and line (or "command line") and the key for unknown keys and syntax errors.
ScenarioInput read_scenario(const std::string& file, const std::vector<std::string>& overrides);
// The same with overlay files (scenario format) applied on top of FILE and below the command line,
// in order: the later overlay wins. Origins name the overlay file and line.
ScenarioInput read_scenario(const std::string& file, const std::vector<std::string>& overlays,
                            const std::vector<std::string>& overrides);

// One scenario-format text alone (no file, no command line): `origin` names it in errors.
ScenarioInput parse_scenario_text(const std::string& text, const std::string& origin);

// Error prefix for a key: "file.ini:12: training.batch_per_gpu" or "command line: --training.x".
std::string where(const Settings& s, const std::string& key);

}  // namespace scenario_layer
}  // namespace ddlsim
