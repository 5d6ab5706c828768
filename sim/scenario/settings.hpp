// The scenario schema and the raw settings read from a scenario file and the command line.
// One schema for both: every key `section.key` of a file can be given as `--section.key=value`.
// Reading is Boost.Program_options; values stay text here and are validated by resolve.cpp.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ddlsim {
inline namespace scenario_layer {

// What a key's value is; resolve.cpp reads it as that type, within the key's bounds.
enum class KeyType { Text, File, Integer, Real, Bool, Choice };
const char* to_string(KeyType t);

// Where `advise` and `map` move a key: over [lo, hi] (log-spaced or not), or over `values`.
struct KeyRange {
  double lo = 0, hi = 0;
  bool log = false;
  std::vector<std::string> values;
};

// One scenario key, declared once (scenario/keys.cpp).
struct KeySpec {
  std::string key;            // section.key
  std::string default_value;  // "" = derived (from the preset, platform or model)
  std::string help;
  KeyType type = KeyType::Text;
  std::string unit;                  // Real: "GB/s", "us", "MiB", ...; "" for fractions and factors
  double min = 0, max = 0;           // Integer and Real: the values allowed
  bool min_open = false;             // Real: min itself excluded
  std::vector<std::string> choices;  // Choice: the values allowed
  std::optional<KeyRange> vary;      // the planning commands may vary it
};

// Every scenario key, in report order.
const std::vector<KeySpec>& scenario_keys();
// The declaration of `key`; throws std::logic_error for a key not declared (a programming error).
const KeySpec& key_spec(const std::string& key);

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
