#include "study/sweep_results.hpp"

#include <set>
#include <stdexcept>

#include "compare/csv_table.hpp"
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

const std::vector<std::pair<std::string, std::string>>& assumption_columns() {
  static const std::vector<std::pair<std::string, std::string>> cols = {
      {"model", "model"},
      {"framework", "framework preset"},
      {"library", "communication library"},
      {"algorithm", "allreduce algorithm"},
      {"precision", "numeric precision"},
      {"optimizer", "optimizer"},
      {"platform", "platform (nodes, links)"},
      {"device", "device (GPU or CPU)"},
      {"gpus_per_node", "GPUs per node"},
      {"backend", "simulation backend"},
      {"interference", "compute slow-down while an exchange overlaps backward, fraction"},
      {"per_call_s", "fixed cost of one collective call, s"},
      {"staging_GBps", "host staging rate, GB/s (0: none)"},
      {"host_contention", "CPU ranks' host contention factor"},
  };
  return cols;
}

std::string short_key(const std::string& key) {
  const auto dot = key.find('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

namespace {

// The results kept as numbers: the required ones, and what the figures and a measured metric read.
const std::set<std::string>& number_columns() {
  static const std::set<std::string> cols = [] {
    std::set<std::string> c(required_sweep_columns().begin(), required_sweep_columns().end());
    c.erase("error");
    c.insert({"host_wait_s", "samples_per_s"});
    // `sweep --intervals`: the 80 % interval of the figures drawn.
    c.insert({"epoch_time_p10_s", "epoch_time_p90_s", "step_time_p10_s", "step_time_p90_s", "samples_per_s_p10",
              "samples_per_s_p90", "efficiency_p10", "efficiency_p90"});
    return c;
  }();
  return cols;
}

// The resolved columns kept as text: the assumptions, and the ranks as written (the bars' labels).
const std::set<std::string>& text_columns() {
  static const std::set<std::string> cols = [] {
    std::set<std::string> c = {"ranks"};
    for (const auto& [column, meaning] : assumption_columns()) c.insert(column);
    return c;
  }();
  return cols;
}

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

// A row `ddlsim sweep` wrote has positive times, ranks, speed-up and efficiency, and no negative
// share of a step: anything else was edited or made elsewhere, and would draw a wrong page.
double checked_number(const CsvTable& t, const CsvRow& row, const std::string& column) {
  static const std::set<std::string> positive = {"ranks", "epoch_time_s", "speedup", "efficiency", "step_time_s",
                                                  "compute_time_s"};
  const int c = t.column(column);
  const double v = csv_number(t, row, c);
  const bool strict = positive.count(column) > 0;
  if (strict ? v > 0 : v >= 0) return v;
  throw InputError(t.where(row, c) + " = '" + clip(row.cells[c]) + "': expected a number " + (strict ? "> 0" : ">= 0") +
                   " (as `ddlsim sweep` writes it)");
}

// Pass 1: which key columns take one value among the rows that ran, and that value.
struct KeyValues {
  std::string first;
  bool varies = false, seen = false;
  bool mixed = false;  // cluster.nodes names a mixed cluster (tupi:2+poti:1) somewhere
};

}  // namespace

bool SweepResults::has_column(const std::string& column) const { return header_.count(column) > 0; }

const std::string& SweepResults::cell(std::size_t i, const std::string& column) const {
  if (column == "error") {
    static const std::string none;
    const auto e = errors_.find(i);
    return e == errors_.end() ? none : e->second;
  }
  if (const auto s = single_.find(column); s != single_.end()) return s->second;
  if (const auto t = text_.find(column); t != text_.end()) return t->second.values[t->second.index[i]];
  throw std::logic_error("SweepResults::cell: column '" + column + "' is not kept");
}

double SweepResults::number(std::size_t i, const std::string& column) const {
  const auto n = numbers_.find(column);
  if (n == numbers_.end()) throw std::logic_error("SweepResults::number: column '" + column + "' is not kept");
  return n->second[i];
}

std::string SweepResults::factor_label(std::size_t i) const {
  std::string s;
  for (const auto& f : factors) s += (s.empty() ? "" : " ") + short_key(f) + "=" + cell(i, f);
  return s.empty() ? "all configurations" : s;
}

SweepResults read_sweep_results(const std::string& path) {
  SweepResults r;
  r.file = path;
  std::map<std::string, KeyValues> keys;
  std::size_t rows = 0, ran = 0;
  stream_csv_file(path, "sweep CSV", [&](const CsvTable& t, CsvRow& row) {
    if (rows++ == 0) {
      check_is_sweep_csv(t);
      r.header_.insert(t.header.begin(), t.header.end());
      for (const auto& k : scenario_keys())
        if (t.column(k.key) >= 0) keys[k.key];
    }
    if (!row.cells[t.column("error")].empty()) return;
    ++ran;
    for (const auto& c : number_columns())
      if (t.column(c) >= 0) checked_number(t, row, c);
    for (auto& [key, v] : keys) {
      const std::string& x = row.cells[t.column(key)];
      if (!v.seen) v.first = x, v.seen = true;
      else if (x != v.first) v.varies = true;
      if (x.find(':') != std::string::npos) v.mixed = true;
    }
  });
  if (ran == 0)
    throw InputError(path + ": no configuration ran (" + std::to_string(rows) + " rows, each with an error); nothing to report");
  for (const auto& k : scenario_keys()) {  // in the schema's order, as the page lists them
    const auto v = keys.find(k.key);
    if (v == keys.end()) continue;
    if (v->second.varies) {
      // A mixed cluster's composition is a series of its own, not only a rank count.
      (is_rank_key(k.key) && !v->second.mixed ? r.rank_keys : r.factors).push_back(k.key);
      r.text_[k.key];
    } else {
      r.single_[k.key] = v->second.first;
      if (!v->second.first.empty()) r.constant_keys.push_back(k.key);
    }
  }
  // Both vary: nodes make the x axis, GPUs per node a line each (else 2 x 1 and 1 x 2 share a line).
  if (r.rank_keys.size() == 2) {
    r.rank_keys = {"cluster.nodes"};
    r.factors.insert(r.factors.begin(), "cluster.gpus_per_node");
  }
  // Pass 2: what the page draws.
  std::size_t i = 0;
  std::map<std::string, std::map<std::string, std::uint32_t>> ids;
  stream_csv_file(path, "sweep CSV", [&](const CsvTable& t, CsvRow& row) {
    if (i == 0) {
      for (const auto& c : text_columns())
        if (t.column(c) >= 0) r.text_[c];
      for (const auto& c : number_columns())
        if (t.column(c) >= 0) r.numbers_[c];
    }
    r.lines_.push_back(row.line);
    const std::string& error = row.cells[t.column("error")];
    const bool ok = error.empty();
    (ok ? r.ok : r.failed).push_back(i);
    if (!ok && r.failed.size() <= kListedFailures) r.errors_[i] = error;
    for (auto& [c, col] : r.text_) {
      const std::string& x = ok ? row.cells[t.column(c)] : std::string();
      const auto [it, added] = ids[c].emplace(x, std::uint32_t(col.values.size()));
      if (added) col.values.push_back(x);
      col.index.push_back(it->second);
    }
    for (auto& [c, col] : r.numbers_) col.push_back(ok ? checked_number(t, row, c) : 0.0);
    ++i;
  });
  if (i != rows) throw InputError(path + ": changed while it was read; run the report again");
  return r;
}

}  // namespace study_layer
}  // namespace ddlsim
