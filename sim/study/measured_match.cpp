#include "study/measured_match.hpp"

#include <cstdlib>

#include "core/error.hpp"
#include "core/text.hpp"

namespace ddlsim {
inline namespace study_layer {

namespace {

// Equal as text, or as numbers ("2" and "2.0").
bool same_value(const std::string& a, const std::string& b) {
  if (a == b) return true;
  char* ea = nullptr;
  char* eb = nullptr;
  const double x = std::strtod(a.c_str(), &ea), y = std::strtod(b.c_str(), &eb);
  return !a.empty() && !b.empty() && *ea == '\0' && *eb == '\0' && x == y;
}

bool row_matches(const SweepResults& sweep, std::size_t i, const MeasuredConfig& c) {
  for (const auto& v : c.values)
    if (!same_value(trim(sweep.cell(i, v.key)), trim(v.value))) return false;
  return true;
}

std::string lines_of(const MeasuredSet& set, const MeasuredConfig& c) {
  std::string s = set.file + ":";
  for (std::size_t k = 0; k < c.lines.size(); ++k) s += (k ? "," : "") + std::to_string(c.lines[k]);
  return s;
}

}  // namespace

MeasuredMatch match_measured(const MeasuredSet& set, const SweepResults& sweep) {
  for (const auto& key : set.keys)
    if (!sweep.has_column(key))
      throw InputError(set.file + ": column mapped to '" + key + "', which " + sweep.file + " has no column for");
  MeasuredMatch m{set.file, set.metric, {}};
  for (const auto& c : set.configs) {
    MatchedRun run{c, std::nullopt, 0};
    int matches = 0;
    for (auto i : sweep.ok)
      if (row_matches(sweep, i, c)) {
        ++matches;
        run.row = i;
      }
    if (matches > 1)
      throw InputError(lines_of(set, c) + ": the configuration '" + c.label() + "' matches " + std::to_string(matches) +
                       " rows of " + sweep.file + "; map more columns (--map column=section.key) so that it names one");
    if (run.row) run.predicted = sweep.number(*run.row, to_string(set.metric));
    m.runs.push_back(run);
  }
  return m;
}

}  // namespace study_layer
}  // namespace ddlsim
