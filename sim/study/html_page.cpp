#include "study/html_page.hpp"

#include <fmt/format.h>

#include <set>

#include "core/text.hpp"
#include "scenario/settings.hpp"

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

std::string measured_section(const MeasuredMatch& m) {
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
         ".</p>\n" +
         table("measured", "<tr><th>configuration</th><th>measured mean</th><th>sd</th><th>n</th><th>predicted</th>"
                           "<th>error (predicted - measured) / measured</th></tr>",
               rows);
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
    "body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222}"
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
  std::string body = "<h1>Study report</h1>\n<p>Predictions by ddlsim from <code>" + markup_escape(sw.file) +
                     "</code>: " + std::to_string(sw.ok.size()) + " configurations" +
                     (sw.failed.empty() ? "" : fmt::format(" ({} more failed, listed at the end)", sw.failed.size())) +
                     ". Ranks are nodes x GPUs per node; speed-up is over the same scenario on one GPU with the same "
                     "batch per GPU.</p>\n";
  body += "<h2>Scenario and assumptions</h2>\n" + factors_section(sw) + scenario_section(sw) + assumptions_section(sw);
  body += "<h2>Figures</h2>\n";
  for (std::size_t k = 0; k < in.figures->size(); ++k) body += figure_block((*in.figures)[k], k, in.files_dir);
  if (in.measured) body += measured_section(*in.measured);
  body += failed_section(sw);
  body += "<p>Each figure's PNG, SVG, gnuplot script and data are in <code>" + markup_escape(in.files_dir) +
          "/</code> beside this page: run <code>gnuplot NAME.gp</code> there to redraw after editing.</p>\n";
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ddlsim study report: " +
         markup_escape(sw.file) + "</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>" + kStyle +
         "</style>\n</head>\n<body>\n" + body + "</body>\n</html>\n";
}

}  // namespace study_layer
}  // namespace ddlsim
