#include "study/study_answer.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/text.hpp"
#include "study/study_figures.hpp"

namespace ddlsim {
inline namespace study_layer {

namespace {

// The cells of row i over every factor but `skip`, and its ranks: the configurations that differ
// only in `skip` share it.
std::string others_key(const SweepResults& sw, std::size_t i, const std::string& skip) {
  std::string s;
  for (const auto& f : sw.factors)
    if (f != skip) s += f + "=" + sw.cell(i, f) + "\n";
  return s + "ranks=" + sw.cell(i, "ranks");
}

// The effects of `key` over `rows` (one panel's): its best value by the geometric mean of the
// epoch time against the first value's, then every other value against the best.
std::vector<FactorEffect> effects_of(const SweepResults& sw, const std::vector<std::size_t>& rows, const std::string& key) {
  std::vector<std::string> values;
  std::map<std::string, std::map<std::string, double>> groups;  // others -> value -> epoch time
  for (auto i : rows) {
    const std::string v = trim(sw.cell(i, key));
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    groups[others_key(sw, i, key)][v] = sw.number(i, "epoch_time_s");
  }
  if (values.size() < 2) return {};
  // Each value's mean log epoch time against the first value's, over the groups holding both.
  const auto log_ratios = [&](const std::string& a, const std::string& b) {
    std::vector<double> out;
    for (const auto& [others, by_value] : groups) {
      const auto x = by_value.find(a), y = by_value.find(b);
      if (x != by_value.end() && y != by_value.end()) out.push_back(std::log(x->second / y->second));
    }
    return out;
  };
  std::string best = values.front();
  double best_mean = 0;
  for (const auto& v : values) {
    const auto r = log_ratios(v, values.front());
    if (r.empty()) continue;
    double mean = 0;
    for (double x : r) mean += x / double(r.size());
    if (mean < best_mean) best = v, best_mean = mean;
  }
  std::vector<FactorEffect> out;
  for (const auto& v : values) {
    if (v == best) continue;
    const auto r = log_ratios(v, best);
    if (r.empty()) continue;
    FactorEffect e{key, best, v, 0, HUGE_VAL, 0, int(r.size())};
    double sum = 0;
    for (double x : r) {
      sum += x;
      e.min_ratio = std::min(e.min_ratio, std::exp(x));
      e.max_ratio = std::max(e.max_ratio, std::exp(x));
    }
    e.mean_ratio = std::exp(sum / double(r.size()));
    out.push_back(e);
  }
  return out;
}

}  // namespace

std::vector<PanelAnswer> study_answer(const SweepResults& sw, const ReportLayout& layout) {
  std::vector<std::string> panels;
  std::map<std::string, std::vector<std::size_t>> rows_of;
  for (auto i : sw.ok) {
    const std::string p = panel_label(sw, i, layout);
    if (!rows_of.count(p)) panels.push_back(p);
    rows_of[p].push_back(i);
  }
  const std::vector<std::string>& slow = layout.facets;
  std::vector<PanelAnswer> out;
  for (const auto& p : panels) {
    const std::vector<std::size_t>& rows = rows_of[p];
    PanelAnswer a;
    a.panel = p;
    const auto by_epoch = [&](auto x, auto y) { return sw.number(x, "epoch_time_s") < sw.number(y, "epoch_time_s"); };
    a.fastest = *std::min_element(rows.begin(), rows.end(), by_epoch);
    a.slowest = *std::max_element(rows.begin(), rows.end(), by_epoch);
    // The scaling question: the rows on more than one rank, where there are such rows.
    std::vector<std::size_t> scaled;
    for (auto i : rows)
      if (sw.number(i, "ranks") > 1) scaled.push_back(i);
    const std::vector<std::size_t>& over = scaled.empty() ? rows : scaled;
    a.min_ranks = HUGE_VAL;
    for (auto i : over) {
      a.min_ranks = std::min(a.min_ranks, sw.number(i, "ranks"));
      a.max_ranks = std::max(a.max_ranks, sw.number(i, "ranks"));
    }
    for (const auto& f : sw.factors) {
      if (std::find(slow.begin(), slow.end(), f) != slow.end()) continue;
      const auto e = effects_of(sw, over, f);
      a.effects.insert(a.effects.end(), e.begin(), e.end());
    }
    out.push_back(a);
  }
  return out;
}

std::vector<MeasuredScore> measured_scores(const SweepResults& sw, const MeasuredMatch& m, const ReportLayout& layout) {
  // Each line's (factors but ranks) smallest measured rank count and its mean.
  std::map<std::string, std::pair<double, double>> smallest;  // line -> (ranks, measured mean)
  for (const auto& run : m.runs) {
    if (!run.row) continue;
    const double r = sw.number(*run.row, "ranks");
    auto [it, fresh] = smallest.emplace(sw.factor_label(*run.row), std::make_pair(r, run.measured.mean));
    if (!fresh && r < it->second.first) it->second = {r, run.measured.mean};
  }
  std::vector<MeasuredScore> out;
  std::map<std::string, std::size_t> index;
  for (const auto& run : m.runs) {
    if (!run.row) continue;
    const std::string p = panel_label(sw, *run.row, layout);
    const auto [it, fresh] = index.emplace(p, out.size());
    if (fresh) out.push_back({p});
    MeasuredScore& s = out[it->second];
    const double err = (run.predicted - run.measured.mean) / run.measured.mean;
    s.n += 1, s.mape += std::fabs(err), s.bias += err;
    const auto& [r0, m0] = smallest.at(sw.factor_label(*run.row));
    const double r = sw.number(*run.row, "ranks");
    if (r <= r0) continue;
    const double linear = m.metric == Metric::EpochTime        ? m0 * r0 / r
                          : m.metric == Metric::SamplesPerSecond ? m0 * r / r0
                                                                 : m0;
    const double lerr = (linear - run.measured.mean) / run.measured.mean;
    s.linear_n += 1, s.linear_mape += std::fabs(lerr), s.linear_bias += lerr;
  }
  for (auto& s : out) {
    s.mape /= s.n, s.bias /= s.n;
    if (s.linear_n) s.linear_mape /= s.linear_n, s.linear_bias /= s.linear_n;
  }
  return out;
}

}  // namespace study_layer
}  // namespace ddlsim
