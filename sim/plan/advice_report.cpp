#include "plan/advice_report.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "core/text.hpp"

namespace ddlsim {
inline namespace plan_layer {

using nlohmann::ordered_json;

namespace {

// The figures shown for each candidate: the usual three, the target's metric and the objective.
std::vector<std::string> shown_metrics(const Advice& a) {
  std::vector<std::string> m{"epoch_time_s", "efficiency", "comm_overhead", "gpu_hours"};
  // Where a listed value does not fit, how much memory each needs.
  const auto short_of_memory = [](const Candidate& c) {
    return c.outcome.prediction && !c.outcome.prediction->fits_in_memory;
  };
  if (std::any_of(a.ranked.begin(), a.ranked.end(), short_of_memory)) m.push_back("memory_per_gpu_bytes");
  for (const std::string& extra : {a.target ? a.target->metric.name : std::string(), a.objective.name})
    if (!extra.empty() && std::find(m.begin(), m.end(), extra) == m.end()) m.push_back(extra);
  return m;
}

ordered_json candidate_json(const Advice& a, const Candidate& c) {
  ordered_json j;
  j["value"] = c.value;
  if (!c.outcome.prediction) {
    j["error"] = c.outcome.error;
    return j;
  }
  j["backend"] = c.outcome.prediction->backend;
  for (const auto& m : shown_metrics(a)) j[m] = metric_value(*c.outcome.prediction, m);
  if (a.target) j["reaches_target"] = c.reaches;
  return j;
}

ordered_json advice_json(const Advice& a) {
  ordered_json j;
  j["key"] = a.key.name;
  if (a.target) {
    j["target"] = {{"metric", a.target->metric.name},
                   {"relation", a.target->metric.higher_is_better ? ">=" : "<="},
                   {"value", a.target->value}};
  }
  j["objective"] = a.objective.name;
  j["method"] = a.method;
  j["searched"] = a.searched;
  j["reachable"] = a.reachable;
  j["answer"] = a.answer;
  if (a.boundary) j["boundary"] = *a.boundary;
  if (a.interval) {
    const auto text = [](const std::string& v) { return v.empty() ? ordered_json() : ordered_json(v); };
    j["answer_interval"] = {{"optimistic", text(a.interval->optimistic)}, {"pessimistic", text(a.interval->pessimistic)}};
  }
  j["conclusion"] = a.conclusion;
  j["notes"] = a.notes;
  if (!a.ranked.empty()) {
    j["ranked"] = ordered_json::array();
    for (const auto& c : a.ranked) j["ranked"].push_back(candidate_json(a, c));
  }
  j["check"] = candidate_json(a, a.check);
  if (a.simgrid_check) j["simgrid_check"] = candidate_json(a, *a.simgrid_check);
  return j;
}

std::string csv_text(const Advice& a) {
  const auto metrics = shown_metrics(a);
  std::string out = "row,rank,key,value,backend";
  for (const auto& m : metrics) out += "," + m;
  out += ",reaches_target,error\n";
  auto row = [&](const std::string& kind, const std::string& rank, const Candidate& c) {
    std::string line = kind + "," + rank + "," + csv_escape(a.key.name) + "," + csv_escape(c.value) + ",";
    const auto& p = c.outcome.prediction;
    line += p ? p->backend : "";
    for (const auto& m : metrics) line += "," + (p ? format_number(metric_value(*p, m)) : "");
    line += "," + std::string(a.target && p ? (c.reaches ? "true" : "false") : "");
    line += "," + csv_escape(c.outcome.error) + "\n";
    out += line;
  };
  for (std::size_t i = 0; i < a.ranked.size(); ++i) row("candidate", std::to_string(i + 1), a.ranked[i]);
  row("check", "", a.check);
  if (a.simgrid_check) row("check", "", *a.simgrid_check);
  return out;
}

std::string table_rows(const Advice& a, const std::vector<const Candidate*>& rows, bool ranks) {
  const auto metrics = shown_metrics(a);
  std::size_t width = ranks ? a.key.name.size() + 2 : 16;
  for (const Candidate* c : rows) width = std::max(width, c->value.size() + 2);
  std::string out = fmt::format("{}{:<{}}", ranks ? "rank  " : "", ranks ? a.key.name : std::string("backend"), width);
  for (const auto& m : metrics) out += fmt::format(" {:>14}", m);
  if (a.target) out += "  target";
  out += "\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Candidate& c = *rows[i];
    const auto& p = c.outcome.prediction;
    const std::string head = ranks ? c.value : (p ? p->backend : "");
    out += fmt::format("{}{:<{}}", ranks ? fmt::format("{:<6}", i + 1) : "", head, width);
    if (!p) {
      out += "  failed: " + c.outcome.error + "\n";
      continue;
    }
    for (const auto& m : metrics) out += fmt::format(" {:>14.6g}", metric_value(*p, m));
    if (a.target) out += c.reaches ? "  reached" : "  missed";
    out += "\n";
  }
  return out;
}

std::string table_text(const Advice& a) {
  std::string out = fmt::format("advise: {}", a.key.name);
  if (a.target)
    out += fmt::format(" for {} {} {}", a.target->metric.name, a.target->metric.higher_is_better ? ">=" : "<=",
                       format_number(a.target->value));
  out += fmt::format("\nmethod: {} over {}\n", a.method, a.searched);
  for (const auto& n : a.notes) out += "note: " + n + "\n";
  out += "answer: " + a.conclusion + "\n";
  if (!a.ranked.empty()) {
    std::vector<const Candidate*> rows;
    for (const auto& c : a.ranked) rows.push_back(&c);
    out += "\n" + table_rows(a, rows, true);
  }
  std::vector<const Candidate*> checks{&a.check};
  if (a.simgrid_check) checks.push_back(&*a.simgrid_check);
  out += a.key.name == kModelParamsKey
             ? fmt::format("\nforward check: the scenario with its model widened to {} parameters\n", a.answer)
             : fmt::format("\nforward check: simulate --{}={}\n", a.key.name, a.answer);
  out += table_rows(a, checks, false);
  return out;
}

}  // namespace

std::string render_advice(const Advice& a, Format f) {
  switch (f) {
    case Format::Json: return advice_json(a).dump(2) + "\n";
    case Format::Csv: return csv_text(a);
    case Format::Table: return table_text(a);
  }
  return "";
}

}  // namespace plan_layer
}  // namespace ddlsim
