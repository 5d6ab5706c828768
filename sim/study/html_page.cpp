#include "study/html_page.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/text.hpp"
#include "scenario/settings.hpp"
#include "study/study_answer.hpp"
#include "study/study_figures.hpp"

namespace ddlsim {
inline namespace study_layer {

namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

std::string key_help(const std::string& key) {
  for (const auto& k : scenario_keys())
    if (k.key == key) return k.help;
  return "";
}

// The distinct values of a column among the rows that ran, in order of first appearance.
std::vector<std::string> distinct(const SweepResults& sw, const std::string& column) {
  std::vector<std::string> v;
  std::set<std::string> seen;
  for (auto i : sw.ok) {
    const std::string x = trim(sw.cell(i, column));
    if (seen.insert(x).second) v.push_back(x);
  }
  return v;
}

std::string joined(const std::vector<std::string>& v, std::size_t most) {
  std::string s;
  for (std::size_t k = 0; k < v.size() && k < most; ++k) s += (k ? ", " : "") + (v[k].empty() ? "(derived)" : v[k]);
  return v.size() > most ? s + fmt::format(", ... ({} values)", v.size()) : s;
}

std::string row3(const std::string& a, const std::string& b, const std::string& c) {
  return "<tr><td><code>" + markup_escape(a) + "</code></td><td>" + markup_escape(b) + "</td><td>" + markup_escape(c) +
         "</td></tr>\n";
}

std::string table(const std::string& id, const std::string& head, const std::string& rows) {
  return "<table id=\"" + id + "\">\n<thead>" + head + "</thead>\n<tbody>\n" + rows + "</tbody>\n</table>\n";
}

std::string factors_section(const SweepResults& sw) {
  std::string rows;
  for (const auto& k : sw.rank_keys) rows += row3(k, joined(distinct(sw, k), 12), key_help(k));
  for (const auto& k : sw.factors) rows += row3(k, joined(distinct(sw, k), 12), key_help(k));
  if (rows.empty()) return "<p>No scenario key varies between the configurations.</p>\n";
  return "<h3>Factors varied</h3>\n" + table("factors", "<tr><th>key</th><th>values</th><th>meaning</th></tr>", rows);
}

std::string scenario_section(const SweepResults& sw) {
  std::string rows;
  for (const auto& k : sw.constant_keys) rows += row3(k, trim(sw.cell(sw.ok.front(), k)), key_help(k));
  return "<h3>Scenario (every key with one value in all configurations, as written or its default)</h3>\n" +
         table("scenario", "<tr><th>key</th><th>value</th><th>meaning</th></tr>", rows) +
         "<p>Keys not listed here and not varied were left empty: derived from the framework "
         "preset, the platform or the model, as resolved below.</p>\n";
}

std::string assumptions_section(const SweepResults& sw) {
  std::string rows;
  for (const auto& [column, meaning] : assumption_columns()) {
    if (!sw.has_column(column)) continue;
    const auto v = distinct(sw, column);
    rows += row3(column, v.size() == 1 ? v.front() : "varies: " + joined(v, 8), meaning);
  }
  return "<h3>Assumptions that decide the answer (as resolved by ddlsim)</h3>\n" +
         table("assumptions", "<tr><th>field</th><th>value</th><th>meaning</th></tr>", rows);
}

std::string figure_block(const DrawnFigure& f, std::size_t k, const std::string& dir) {
  const std::string base = dir + "/" + f.source.name;
  return "<figure id=\"fig-" + f.source.name + "\">\n" + inline_svg(f.svg, fmt::format("f{}_", k), f.source.title) +
         "\n<figcaption>Figure " + std::to_string(k + 1) + ". " + markup_escape(f.source.caption) + " Files: <a href=\"" +
         markup_escape(base) + ".png\">PNG</a>, <a href=\"" + markup_escape(base) + ".svg\">SVG</a>, <a href=\"" +
         markup_escape(base) + ".gp\">gnuplot script</a>, <a href=\"" + markup_escape(base) +
         ".dat\">data</a>.</figcaption>\n</figure>\n";
}

std::string num(double v) { return fmt::format("{:.4g}", v); }

std::string pct(double v) { return fmt::format("{:.1f} %", 100 * v); }

// Per panel: ddlsim's MAPE and bias against the measured runs, beside linear scaling's.
std::string scores_table(const SweepResults& sw, const MeasuredMatch& m, const ReportLayout& l) {
  std::string rows;
  for (const MeasuredScore& s : measured_scores(sw, m, l))
    rows += "<tr><td>" + markup_escape(s.panel.empty() ? "all" : s.panel) + "</td><td>" + std::to_string(s.n) + "</td><td>" +
            pct(s.mape) + "</td><td>" + fmt::format("{:+.1f} %", 100 * s.bias) + "</td><td>" + std::to_string(s.linear_n) +
            "</td><td>" + (s.linear_n ? pct(s.linear_mape) : "-") + "</td><td>" +
            (s.linear_n ? fmt::format("{:+.1f} %", 100 * s.linear_bias) : "-") + "</td></tr>\n";
  return "<p>How far off, per panel: MAPE and bias (mean signed error, (predicted - measured) / measured) of ddlsim, "
         "beside linear scaling from the smallest rank count measured on the same line (the runs on more ranks "
         "than that).</p>\n" +
         table("measured-scores", "<tr><th>panel</th><th>runs</th><th>ddlsim MAPE</th><th>ddlsim bias</th>"
                                  "<th>runs beyond the smallest</th><th>linear scaling MAPE</th><th>linear bias</th></tr>",
               rows);
}

std::string measured_section(const SweepResults& sw, const MeasuredMatch& m, const ReportLayout& l) {
  std::string rows;
  int unmatched = 0;
  for (const auto& r : m.runs) {
    const std::string label = markup_escape(r.measured.label());
    if (!r.row) {
      ++unmatched;
      rows += "<tr><td>" + label + "</td><td>" + num(r.measured.mean) + "</td><td>" + num(r.measured.stddev) +
              "</td><td>" + std::to_string(r.measured.count()) + "</td><td colspan=\"2\">not in the sweep</td></tr>\n";
      continue;
    }
    const double err = (r.predicted - r.measured.mean) / r.measured.mean * 100;
    rows += "<tr><td>" + label + "</td><td>" + num(r.measured.mean) + "</td><td>" + num(r.measured.stddev) +
            "</td><td>" + std::to_string(r.measured.count()) + "</td><td>" + num(r.predicted) + "</td><td>" +
            fmt::format("{:+.1f} %", err) + "</td></tr>\n";
  }
  const std::string metric = to_string(m.metric);
  return "<h2>Measured against predicted</h2>\n<p>Measured runs from <code>" + markup_escape(m.file) +
         "</code>, metric <code>" + metric + "</code>; replications of one configuration are grouped (mean, sample " +
         "standard deviation, count)" + (unmatched ? fmt::format("; {} configuration(s) are not in the sweep", unmatched) : "") +
         ".</p>\n" + scores_table(sw, m, l) +
         table("measured", "<tr><th>configuration</th><th>measured mean</th><th>sd</th><th>n</th><th>predicted</th>"
                           "<th>error (predicted - measured) / measured</th></tr>",
               rows);
}

// Row i's swept keys but its panel's, "framework=tf_mirrored batch_per_gpu=32", and its ranks.
std::string configuration(const SweepResults& sw, std::size_t i, const ReportLayout& l) {
  const std::vector<std::string>& slow = l.facets;
  std::string s;
  for (const auto& f : sw.factors)
    if (std::find(slow.begin(), slow.end(), f) == slow.end()) s += short_key(f) + "=" + trim(sw.cell(i, f)) + " ";
  return s + "on " + trim(sw.cell(i, "ranks")) + " rank(s)";
}

std::string ratio_text(double r) { return r >= 10 ? fmt::format("{:.0f}x", r) : fmt::format("{:.1f}x", r); }

std::string effect_text(const FactorEffect& e) {
  const std::string spread = e.pairs > 1 ? fmt::format(", {}-{}", ratio_text(e.min_ratio), ratio_text(e.max_ratio)) : "";
  return fmt::format("{}: {} {} faster than {} ({} pair{}{})", short_key(e.key), e.best, ratio_text(e.mean_ratio), e.other,
                     e.pairs, e.pairs == 1 ? "" : "s", spread);
}

// The study in one sentence, and per panel its fastest and slowest configuration and what each swept
// factor does (study_answer.hpp).
std::string answer_section(const SweepResults& sw, const ReportLayout& l) {
  std::string swept;
  for (const auto& f : sw.factors) swept += (swept.empty() ? "" : "; ") + f + " (" + joined(distinct(sw, f), 8) + ")";
  std::string ranks;
  for (const auto& k : sw.rank_keys) ranks += (ranks.empty() ? "" : ", ") + k + " " + joined(distinct(sw, k), 12);
  std::string out = "<h2>Answer</h2>\n<p id=\"study\">Swept: " + markup_escape(swept.empty() ? "no scenario key" : swept) +
                    (ranks.empty() ? "" : "; on " + markup_escape(ranks)) +
                    ". Every other setting is held as listed under Settings at the end.</p>\n";
  std::string rows, over;
  for (const PanelAnswer& a : study_answer(sw, l)) {
    std::string effects;
    for (const FactorEffect& e : a.effects) effects += (effects.empty() ? "" : "<br>") + markup_escape(effect_text(e));
    if (!a.effects.empty())
      over = a.min_ranks == a.max_ranks ? num(a.min_ranks) : num(a.min_ranks) + "-" + num(a.max_ranks);
    rows += "<tr><td>" + markup_escape(a.panel.empty() ? "all" : a.panel) + "</td><td>" +
            markup_escape(configuration(sw, a.fastest, l)) + ": " + num(sw.number(a.fastest, "epoch_time_s")) + " s</td><td>" +
            markup_escape(configuration(sw, a.slowest, l)) + ": " + num(sw.number(a.slowest, "epoch_time_s")) + " s</td><td>" +
            (effects.empty() ? "-" : effects) + "</td></tr>\n";
  }
  return out +
         table("answer", "<tr><th>panel</th><th>fastest (epoch time)</th><th>slowest (epoch time)</th>"
                         "<th>what each swept factor does to the epoch time</th></tr>",
               rows) +
         (over.empty() ? ""
                       : "<p class=\"note\">A factor's effect: the epoch time of one value over the best one's, the "
                         "geometric mean over the pairs of configurations that differ only in that factor (least-most), "
                         "on " + over + " ranks.</p>\n");
}

// Every configuration's predicted numbers (the first kMaxNumberRows).
constexpr std::size_t kMaxNumberRows = 500;
std::string numbers_section(const SweepResults& sw) {
  const bool interval = sw.has_column("epoch_time_p10_s") && sw.has_column("epoch_time_p90_s");
  std::string head = "<tr>";
  for (const auto& f : sw.factors) head += "<th>" + markup_escape(short_key(f)) + "</th>";
  head += "<th>ranks</th><th>epoch time (s)</th>" + std::string(interval ? "<th>80 % interval (s)</th>" : "") +
          "<th>speed-up</th><th>efficiency</th><th>exposed communication (s a step)</th></tr>";
  std::string rows;
  for (std::size_t k = 0; k < sw.ok.size() && k < kMaxNumberRows; ++k) {
    const std::size_t i = sw.ok[k];
    rows += "<tr>";
    for (const auto& f : sw.factors) rows += "<td>" + markup_escape(trim(sw.cell(i, f))) + "</td>";
    rows += "<td>" + markup_escape(trim(sw.cell(i, "ranks"))) + "</td><td>" + num(sw.number(i, "epoch_time_s")) + "</td>";
    if (interval)
      rows += "<td>" + num(sw.number(i, "epoch_time_p10_s")) + " - " + num(sw.number(i, "epoch_time_p90_s")) + "</td>";
    rows += "<td>" + num(sw.number(i, "speedup")) + "</td><td>" + num(sw.number(i, "efficiency")) + "</td><td>" +
            num(sw.number(i, "exposed_comm_s")) + "</td></tr>\n";
  }
  const std::string more = sw.ok.size() > kMaxNumberRows
                               ? fmt::format("<p>The first {} of {} configurations; the sweep CSV has them all.</p>\n",
                                             kMaxNumberRows, sw.ok.size())
                               : "";
  return "<h2>Predicted numbers</h2>\n" + table("numbers", head, rows) + more;
}

std::string failed_section(const SweepResults& sw) {
  if (sw.failed.empty()) return "";
  std::string items;
  for (std::size_t k = 0; k < sw.failed.size() && k < kListedFailures; ++k)
    items += "<li>line " + std::to_string(sw.line(sw.failed[k])) + ": " + markup_escape(sw.cell(sw.failed[k], "error")) +
             "</li>\n";
  if (sw.failed.size() > kListedFailures)
    items += fmt::format("<li>... and {} more (the sweep CSV's rows with an error)</li>\n", sw.failed.size() - kListedFailures);
  return "<h2>Configurations that failed</h2>\n<ul id=\"failed\">\n" + items + "</ul>\n";
}

const char* kStyle =
    "body{font-family:sans-serif;max-width:1200px;margin:0.5em auto;padding:0 1em;color:#222}"
    "h1{margin:0.2em 0;font-size:1.6em}h2{margin:0.5em 0 0.3em;font-size:1.3em}p{margin:0.4em 0}"
    ".note{font-size:0.85em;color:#444}"
    "#answer{font-size:0.85em;width:100%}#answer td{padding:0.1em 0.4em}#answer td:last-child{width:45%}"
    "table{border-collapse:collapse;margin:0.5em 0 1em}td,th{border:1px solid #bbb;padding:0.2em 0.5em;"
    "text-align:left;vertical-align:top}th{background:#eee}figure{margin:1em 0}figure svg{width:100%;height:auto}"
    "figcaption{font-size:0.9em;color:#444}code{font-size:0.95em}";

}  // namespace

std::string inline_svg(const std::string& svg, const std::string& prefix, const std::string& title) {
  const auto start = svg.find("<svg");
  std::string s = start == std::string::npos ? svg : svg.substr(start);
  s = replace_all(s, "<title>Gnuplot</title>", "<title>" + markup_escape(title) + "</title>");
  s = replace_all(s, "id='", "id='" + prefix);
  s = replace_all(s, "id=\"", "id=\"" + prefix);
  s = replace_all(s, "href='#", "href='#" + prefix);
  s = replace_all(s, "href=\"#", "href=\"#" + prefix);
  s = replace_all(s, "url(#", "url(#" + prefix);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string render_study_page(const PageInputs& in) {
  const SweepResults& sw = *in.sweep;
  std::string body = "<h1>Study report</h1>\n<p class=\"note\">Predictions by ddlsim from <code>" + markup_escape(sw.file) +
                     "</code>: " + std::to_string(sw.ok.size()) + " configurations" +
                     (sw.failed.empty() ? "" : fmt::format(" ({} more failed, listed at the end)", sw.failed.size())) +
                     ". Ranks are nodes x GPUs per node; speed-up is over the same scenario on one GPU with the same "
                     "batch per GPU.</p>\n";
  body += answer_section(sw, *in.layout);
  for (std::size_t k = 0; k < in.figures->size(); ++k) body += figure_block((*in.figures)[k], k, in.files_dir);
  if (in.measured) body += measured_section(sw, *in.measured, *in.layout);
  body += numbers_section(sw);
  body += failed_section(sw);
  body += "<h2>Settings</h2>\n" + factors_section(sw) + scenario_section(sw) + assumptions_section(sw);
  body += "<p>Each figure's PNG, SVG, gnuplot script and data are in <code>" + markup_escape(in.files_dir) +
          "/</code> beside this page: run <code>gnuplot NAME.gp</code> there to redraw after editing.</p>\n";
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ddlsim study report: " +
         markup_escape(sw.file) + "</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>" + kStyle +
         "</style>\n</head>\n<body>\n" + body + "</body>\n</html>\n";
}

}  // namespace study_layer
}  // namespace ddlsim
