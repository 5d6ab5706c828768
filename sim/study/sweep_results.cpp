#include "study/sweep_results.hpp"

#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {
inline namespace study_layer {

const std::vector<std::string>& required_sweep_columns() {
  static const std::vector<std::string> cols = {
      "ranks",           "epoch_time_s",   "speedup",        "efficiency",   "step_time_s",
      "compute_time_s",  "contention_s",   "interference_s", "exposed_comm_s", "input_wait_s",
      "straggler_wait_s", "error"};
  return cols;
}

std::string short_key(const std::string& key) {
  const auto dot = key.find('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

namespace {

bool is_rank_key(const std::string& key) { return key == "cluster.nodes" || key == "cluster.gpus_per_node"; }

void check_is_sweep_csv(const CsvTable& t) {
  int key_columns = 0;
  for (const auto& k : scenario_keys()) key_columns += t.column(k.key) >= 0;
  if (key_columns == 0 && t.column("error") < 0)
    throw InputError(t.file + ": not a sweep CSV (expected the header `ddlsim sweep` writes: one column per "
                     "scenario key, the results and an `error` column)");
  for (const auto& c : required_sweep_columns())
    if (t.column(c) < 0)
      throw InputError(t.file + ":1: column '" + c + "' is missing (a sweep CSV from `ddlsim sweep` has it)");
}

// The distinct values of a column among `rows`.
std::set<std::string> values_of(const CsvTable& t, int column, const std::vector<std::size_t>& rows) {
  std::set<std::string> v;
  for (auto i : rows) v.insert(trim(t.rows[i].cells[column]));
  return v;
}

void classify_keys(SweepResults& r) {
  for (const auto& k : scenario_keys()) {
    const int c = r.table.column(k.key);
    if (c < 0) continue;
    const auto v = values_of(r.table, c, r.ok);
    if (v.size() > 1) (is_rank_key(k.key) ? r.rank_keys : r.factors).push_back(k.key);
    if (v.size() == 1 && !v.begin()->empty()) r.constant_keys.push_back(k.key);
  }
  // Both vary: nodes make the x axis, GPUs per node a line each (else 2 x 1 and 1 x 2 share a line).
  if (r.rank_keys.size() == 2) {
    r.rank_keys = {"cluster.nodes"};
    r.factors.insert(r.factors.begin(), "cluster.gpus_per_node");
  }
}

}  // namespace

const std::string& SweepResults::cell(std::size_t i, const std::string& column) const {
  return table.rows[i].cells[table.column(column)];
}

double SweepResults::number(std::size_t i, const std::string& column) const {
  return csv_number(table, table.rows[i], table.column(column));
}

std::string SweepResults::factor_label(std::size_t i) const {
  std::string s;
  for (const auto& f : factors) s += (s.empty() ? "" : " ") + short_key(f) + "=" + trim(cell(i, f));
  return s.empty() ? "all configurations" : s;
}

SweepResults read_sweep_results(CsvTable table) {
  check_is_sweep_csv(table);
  SweepResults r;
  r.table = std::move(table);
  const int error = r.table.column("error");
  for (std::size_t i = 0; i < r.table.rows.size(); ++i)
    (trim(r.table.rows[i].cells[error]).empty() ? r.ok : r.failed).push_back(i);
  if (r.ok.empty())
    throw InputError(r.table.file + ": no configuration ran (" + std::to_string(r.failed.size()) +
                     " rows, each with an error); nothing to report");
  // A row `ddlsim sweep` wrote has positive times, ranks, speed-up and efficiency, and no negative
  // share of a step: anything else was edited or made elsewhere, and would draw a wrong page.
  static const std::set<std::string> positive = {"ranks", "epoch_time_s", "speedup", "efficiency", "step_time_s",
                                                  "compute_time_s"};
  for (auto i : r.ok)
    for (const auto& c : required_sweep_columns()) {
      if (c == "error") continue;
      const double v = r.number(i, c);
      const bool strict = positive.count(c) > 0;
      if (strict ? v > 0 : v >= 0) continue;
      throw InputError(r.table.where(r.table.rows[i], r.table.column(c)) + " = '" + clip(trim(r.cell(i, c))) +
                       "': expected a number " + (strict ? "> 0" : ">= 0") + " (as `ddlsim sweep` writes it)");
    }
  classify_keys(r);
  return r;
}

}  // namespace study_layer
}  // namespace ddlsim
