#include "scenario/settings.hpp"

#include <boost/program_options.hpp>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/text.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace scenario_layer {

namespace {

po::options_description make_schema() {
  po::options_description desc;
  for (const auto& k : scenario_keys()) {
    desc.add_options()(k.key.c_str(), po::value<std::string>(), k.help.c_str());
    const std::string sweep_key = "sweep." + k.key;
    desc.add_options()(sweep_key.c_str(), po::value<std::string>(), "values to sweep, comma-separated");
  }
  return desc;
}

std::string read_file(const std::string& path) { return read_text_file(path, "scenario file"); }

// Maps each `section.key` of an INI text to its line, checking the syntax Boost accepts.
std::map<std::string, int> index_lines(const std::string& text, const std::string& file) {
  std::map<std::string, int> lines;
  std::istringstream in(text);
  std::string raw, section;
  for (int n = 1; std::getline(in, raw); ++n) {
    const std::string line = trim(raw.substr(0, raw.find('#')));
    if (line.empty() || line[0] == ';') continue;
    const std::string where = file + ":" + std::to_string(n) + ": ";
    if (line.front() == '[') {
      if (line.back() != ']' || line.size() < 3) throw InputError(where + "expected [section], got '" + clip(line) + "'");
      section = line.substr(1, line.size() - 2);
      if (section != trim(section) || section.empty())
        throw InputError(where + "expected [section] with no spaces inside the brackets, got '" + clip(line) + "'");
      if (section.back() == '.' || section.front() == '.')
        throw InputError(where + "expected [section] naming a group such as [comm], got '" + clip(line) + "'");
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos || trim(line.substr(0, eq)).empty())
      throw InputError(where + "expected 'key = value', got '" + clip(line) + "'");
    const std::string key = (section.empty() ? "" : section + ".") + trim(line.substr(0, eq));
    if (lines.count(key)) throw InputError(where + key + " is set twice (first on line " +
                                           std::to_string(lines[key]) + ")");
    lines[key] = n;
  }
  return lines;
}

template <class ParseFn>
po::parsed_options parse_or_throw(ParseFn parse, const std::map<std::string, int>& lines,
                                  const std::string& origin) {
  auto place_of = [&](const po::error_with_option_name& e) {
    std::string key = e.get_option_name();
    while (!key.empty() && key.front() == '-') key.erase(0, 1);
    key = key.substr(0, key.find('='));
    auto it = lines.find(key);
    return std::make_pair(key, it == lines.end() ? origin : origin + ":" + std::to_string(it->second));
  };
  try {
    return parse();
  } catch (const po::unknown_option& e) {
    const auto [key, place] = place_of(e);
    std::vector<std::string> keys;
    for (const auto& k : scenario_keys()) keys.push_back(k.key);
    throw InputError(place + ": unknown key '" + clip(key) + "' (see `ddlsim keys` for the scenario schema)" +
                     did_you_mean(key, keys));
  } catch (const po::error_with_option_name& e) {
    const auto [key, place] = place_of(e);
    const std::string form = origin == "command line" ? "--" + key + "=VALUE" : key + " = VALUE";
    throw InputError(place + ": " + key + ": " + e.what() + " (expected " + form + ")");
  } catch (const po::error& e) {
    throw InputError(origin + ": " + e.what());
  }
}

void put(ScenarioInput& input, const std::string& key, const std::string& value, const std::string& origin) {
  if (key.rfind("sweep.", 0) == 0) {
    const std::vector<std::string> values = split(value, ',');
    if (trim(value).empty()) throw InputError(origin + ": " + key + " lists no values");
    for (const auto& v : values)
      if (v.empty())
        throw InputError(origin + ": " + key + " = '" + clip(value) + "': an empty value between commas; "
                         "expected values separated by commas, e.g. 1, 2, 4");
    input.sweep[key.substr(6)] = values;
    input.sweep_origin[key.substr(6)] = origin;
  } else {
    input.settings[key] = Setting{trim(value), origin, false};
  }
}

// One scenario-format text (a file or an overlay) on top of what `input` holds.
void add_text(ScenarioInput& input, const po::options_description& schema, const std::string& text,
              const std::string& origin) {
  const std::map<std::string, int> lines = index_lines(text, origin);
  std::istringstream in(text);
  const po::parsed_options from_file =
      parse_or_throw([&] { return po::parse_config_file(in, schema, false); }, lines, origin);
  for (const auto& o : from_file.options) {
    const auto line = lines.find(o.string_key);  // the two readers agree; a disagreement still names the file
    put(input, o.string_key, o.value.empty() ? "" : o.value.front(),
        line == lines.end() ? origin : origin + ":" + std::to_string(line->second));
  }
}

void fill_defaults(ScenarioInput& input) {
  for (const auto& k : scenario_keys())
    if (!input.settings.count(k.key)) input.settings[k.key] = Setting{k.default_value, "default", true};
}

}  // namespace

ScenarioInput parse_scenario_text(const std::string& text, const std::string& origin) {
  ScenarioInput input;
  input.file = origin;
  add_text(input, make_schema(), text, origin);
  fill_defaults(input);
  return input;
}

ScenarioInput read_scenario(const std::string& file, const std::vector<std::string>& overrides) {
  return read_scenario(file, {}, overrides);
}

ScenarioInput read_scenario(const std::string& file, const std::vector<std::string>& overlays,
                            const std::vector<std::string>& overrides) {
  const po::options_description schema = make_schema();
  ScenarioInput input;
  input.file = file;

  po::parsed_options cli = parse_or_throw(
      [&] {
        // No prefix guessing: --framework.mod=eager is a mistyped key, not framework.mode.
        return po::command_line_parser(overrides)
            .options(schema)
            .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
            .run();
      },
      {}, "command line");
  for (const auto& s : cli.options)
    if (!s.unregistered && s.position_key >= 0)
      throw InputError("command line: unexpected argument '" + s.original_tokens.front() + "'");

  // The scenario file, then each overlay (same format) on top, then the command line.
  std::vector<std::string> files;
  if (!file.empty()) files.push_back(file);
  files.insert(files.end(), overlays.begin(), overlays.end());
  for (const auto& f : files) add_text(input, schema, read_file(f), f);
  std::set<std::string> given;
  for (const auto& o : cli.options) {
    if (o.value.size() != 1) throw InputError("command line: --" + o.string_key + " needs a value (--" + o.string_key + "=VALUE)");
    if (!given.insert(o.string_key).second)
      throw InputError("command line: --" + o.string_key + " is given twice (expected one value)");
    put(input, o.string_key, o.value.front(), "command line");
  }
  fill_defaults(input);
  return input;
}

std::string where(const Settings& s, const std::string& key) {
  auto it = s.find(key);
  if (it == s.end() || it->second.origin == "default") return key;
  if (it->second.origin == "command line") return "command line: --" + key;
  return it->second.origin + ": " + key;
}

}  // namespace scenario_layer
}  // namespace ddlsim
