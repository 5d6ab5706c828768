#include "compare/measurements.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.hpp"
#include "core/text.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {
inline namespace compare_layer {

const char* to_string(Metric m) {
  switch (m) {
    case Metric::EpochTime: return "epoch_time_s";
    case Metric::StepTime: return "step_time_s";
    case Metric::SamplesPerSecond: return "samples_per_s";
  }
  return "?";
}

const std::vector<std::pair<std::string, Metric>>& metric_columns() {
  static const std::vector<std::pair<std::string, Metric>> cols = {
      {"epoch_time_s", Metric::EpochTime}, {"step_time_s", Metric::StepTime}, {"samples_per_s", Metric::SamplesPerSecond}};
  return cols;
}

std::string MeasuredConfig::label() const {
  std::string s;
  for (const auto& v : values) s += (s.empty() ? "" : " ") + v.key + "=" + v.value;
  return s;
}

const std::string* MeasuredConfig::find(const std::string& key) const {
  for (const auto& v : values)
    if (v.key == key) return &v.value;
  return nullptr;
}

namespace {

bool is_scenario_key(const std::string& key) {
  for (const auto& k : scenario_keys())
    if (k.key == key) return true;
  return false;
}

// column index -> scenario key, from --map and from columns named after keys.
std::map<int, std::string> column_keys(const CsvTable& t, const std::vector<std::string>& maps) {
  std::map<int, std::string> keys;
  for (const auto& m : maps) {
    const auto eq = m.find('=');
    const std::string col = trim(m.substr(0, eq)), key = eq == std::string::npos ? "" : trim(m.substr(eq + 1));
    if (col.empty() || key.empty()) throw InputError("--map " + m + ": expected column=section.key");
    if (!is_scenario_key(key))
      throw InputError("--map " + m + ": unknown scenario key '" + clip(key) + "' (see `ddlsim keys`)");
    const int c = t.column(col);
    if (c < 0) throw InputError(t.file + ":1: missing column '" + clip(col) + "' (named in --map " + m + ")");
    if (keys.count(c)) throw InputError("--map " + m + ": column '" + clip(col) + "' is already mapped to " + keys[c]);
    keys[c] = key;
  }
  for (std::size_t c = 0; c < t.header.size(); ++c)
    if (!keys.count(int(c)) && is_scenario_key(t.header[c])) keys[int(c)] = t.header[c];
  // One column per key: two would contradict each other on every row.
  std::map<std::string, int> column_of;
  for (const auto& [c, key] : keys) {
    auto [it, fresh] = column_of.emplace(key, c);
    if (!fresh)
      throw InputError(t.file + ":1: columns '" + t.header[it->second] + "' and '" + t.header[c] + "' both give " +
                       key + " (by name or --map); keep one");
  }
  return keys;
}

int metric_column(const CsvTable& t, const std::string& asked, Metric& metric) {
  const auto eq = asked.find('=');
  if (eq != std::string::npos) {  // COLUMN=NAME
    const std::string col = trim(asked.substr(0, eq)), name = trim(asked.substr(eq + 1));
    const auto& all = metric_columns();
    const auto it = std::find_if(all.begin(), all.end(), [&](const auto& m) { return m.first == name; });
    if (col.empty() || it == all.end())
      throw InputError("--metric " + clip(asked) + ": expected COLUMN=NAME, NAME one of epoch_time_s, step_time_s, "
                       "samples_per_s");
    const int c = t.column(col);
    if (c < 0) throw InputError(t.file + ":1: missing column '" + clip(col) + "' (named in --metric " + clip(asked) + ")");
    metric = it->second;
    return c;
  }
  const std::string& wanted = asked;
  std::string names;
  for (const auto& [name, m] : metric_columns()) {
    names += (names.empty() ? "" : ", ") + name;
    if (!wanted.empty() && wanted != name) continue;
    const int c = t.column(name);
    if (c >= 0) {
      metric = m;
      return c;
    }
  }
  if (!wanted.empty() && wanted != "epoch_time_s" && wanted != "step_time_s" && wanted != "samples_per_s")
    throw InputError("--metric " + wanted + ": expected one of " + names);
  throw InputError(t.file + ":1: missing column: expected a measured metric column (" +
                   (wanted.empty() ? "one of " + names : wanted) + ")");
}

// (column index, cell text) -> scenario value, from "column:cell=value".
using ValueMap = std::map<std::pair<int, std::string>, std::string>;

ValueMap value_map(const CsvTable& t, const std::vector<std::string>& values, const std::map<int, std::string>& keys) {
  ValueMap out;
  for (const auto& v : values) {
    const auto colon = v.find(':'), eq = v.find('=', colon == std::string::npos ? 0 : colon);
    if (colon == std::string::npos || eq == std::string::npos || colon == 0 || eq == colon + 1)
      throw InputError("--value " + clip(v) + ": expected column:cell=value (e.g. strategy:fit=tf_mirrored)");
    const std::string col = trim(v.substr(0, colon)), cell = trim(v.substr(colon + 1, eq - colon - 1)),
                      to = trim(v.substr(eq + 1));
    const int c = t.column(col);
    if (c < 0) throw InputError(t.file + ":1: missing column '" + clip(col) + "' (named in --value " + clip(v) + ")");
    if (!keys.count(c))
      throw InputError("--value " + clip(v) + ": column '" + clip(col) + "' sets no scenario key; map it with --map " +
                       clip(col) + "=section.key");
    out[{c, cell}] = to;
  }
  return out;
}

}  // namespace

void add_row(MeasuredSet& set, std::vector<ConfigValue> values, int line, double value) {
  for (auto& c : set.configs) {
    bool same = c.values.size() == values.size();
    for (std::size_t i = 0; same && i < values.size(); ++i)
      same = c.values[i].key == values[i].key && c.values[i].value == values[i].value;
    if (!same) continue;
    c.lines.push_back(line);
    c.samples.push_back(value);
    return;
  }
  MeasuredConfig c;
  c.values = std::move(values);
  c.lines = {line};
  c.samples = {value};
  set.configs.push_back(std::move(c));
}

void finish_groups(MeasuredSet& set) {
  for (auto& c : set.configs) {
    double sum = 0;
    for (double v : c.samples) sum += v;
    c.mean = sum / c.count();
    double ss = 0;
    for (double v : c.samples) ss += (v - c.mean) * (v - c.mean);
    c.stddev = c.count() > 1 ? std::sqrt(ss / (c.count() - 1)) : 0;
  }
}

MeasuredSet read_measured(const CsvTable& t, const std::vector<std::string>& maps, const std::string& metric,
                          const std::vector<std::string>& values) {
  MeasuredSet set;
  set.file = t.file;
  const int mcol = metric_column(t, metric, set.metric);
  set.metric_column = t.header[mcol];
  const std::map<int, std::string> keys = column_keys(t, maps);
  if (keys.empty())
    throw InputError(t.file + ":1: no column names a scenario key; name columns after keys (cluster.nodes) "
                              "or map them with --map column=section.key");
  for (const auto& [c, key] : keys) set.keys.push_back(key);
  const ValueMap mapped = value_map(t, values, keys);
  for (const auto& row : t.rows) {
    const double v = csv_number(t, row, mcol);
    // Bounded so that ratios and logarithms of predictions over measurements stay finite.
    if (!(v >= 1e-9 && v <= 1e15))
      throw InputError(t.where(row, mcol) + " = '" + row.cells[mcol] + "': expected a positive number from 1e-9 to 1e15");
    std::vector<ConfigValue> cfg;
    for (const auto& [c, key] : keys) {
      if (row.cells[c].empty()) continue;  // empty: the base scenario's value (as in a sweep CSV)
      const auto m = mapped.find({c, trim(row.cells[c])});
      if (m == mapped.end()) cfg.push_back({key, row.cells[c], t.where(row, c)});
      else cfg.push_back({key, m->second, t.where(row, c) + " ('" + clip(row.cells[c]) + "' by --value)"});
    }
    add_row(set, std::move(cfg), row.line, v);
  }
  finish_groups(set);
  return set;
}

}  // namespace compare_layer
}  // namespace ddlsim
