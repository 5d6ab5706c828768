#include "study/figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace ddlsim {
inline namespace study_layer {

std::string plot_text(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += (c < 0x20 || c >= 0x7f || c == '\'' || c == '"' || c == '`' || c == '\\') ? '?' : char(c);
  return out;
}

namespace {

std::string quoted(const std::string& s) { return "'" + plot_text(s) + "'"; }

std::string number(double v) { return fmt::format("{:.9g}", v); }

std::string header(const std::string& name, const std::string& what) {
  return "# " + what + "\n# Drawn by `ddlsim report`; run `gnuplot " + name + ".gp` in this folder to draw " + name +
         ".svg and " + name + ".png again\n# from " + name + ".dat (edit this script to restyle).\n";
}

// The terminal lines: SVG first, then the same plot as PNG.
std::string outputs(const std::string& name, int width, int height) {
  return fmt::format("set terminal svg size {},{} dynamic font 'sans,12' noenhanced background '#ffffff'\n"
                     "set output '{}.svg'\n",
                     width, height, name);
}

std::string png_replot(const std::string& name, int width, int height) {
  return fmt::format("set terminal pngcairo size {},{} font 'sans,10' noenhanced background '#ffffff'\n"
                     "set output '{}.png'\nreplot\nunset output\n",
                     width, height, name);
}

std::string series_data(const CurveSeries& s) {
  std::string out = "# " + plot_text(s.title) + "\n";
  for (const auto& p : s.points) {
    out += number(p.x) + " " + number(p.y);
    if (s.style == SeriesStyle::ErrorBars) out += " " + number(p.spread);
    if (s.style == SeriesStyle::Band) out += " " + number(p.lo) + " " + number(p.hi);
    out += "\n";
  }
  return out + "\n\n";
}

// Series `index` of the data file; `first` in its plot command (which names the file).
std::string series_plot(const CurveSeries& s, std::size_t index, bool first) {
  const std::string src = (first ? "'NAME.dat'" : "''") + fmt::format(" index {} ", index);
  const int dash = s.dash > 0 ? s.dash : 1 + (s.color - 1) / 8;
  switch (s.style) {
    case SeriesStyle::Line:
      return src + fmt::format("using 1:2 with linespoints lc {} dt {} pt 7 ps 0.8 lw 2 title {}", 1 + (s.color - 1) % 8,
                               dash, quoted(s.title));
    case SeriesStyle::ErrorBars:
      return src + fmt::format("using 1:2:3 with yerrorbars lc {} pt 4 ps 1.2 lw 2 title {}", 1 + (s.color - 1) % 8,
                               quoted(s.title));
    case SeriesStyle::Reference:
      return src + fmt::format("using 1:2 with lines lc rgb '#555555' dt 2 lw 1.5 title {}", quoted(s.title));
    case SeriesStyle::Band:
      return src + fmt::format("using 1:3:4 with filledcurves lc {} fs transparent solid 0.18 noborder title {}",
                               1 + (s.color - 1) % 8, quoted(s.title));
  }
  return "";
}

double max_x(const LineFigure& f) {
  double m = 1;
  for (const auto& panel : f.panels)
    for (const auto& s : panel.series)
      for (const auto& p : s.points) m = std::max(m, p.x);
  return m;
}

// The range of the values drawn (references included) where all of them are positive, a little
// wider; none otherwise (a log axis cannot show them).
std::optional<std::pair<double, double>> positive_range(const LineFigure& f) {
  double lo = HUGE_VAL, hi = 0;
  for (const auto& panel : f.panels)
    for (const auto& s : panel.series)
      for (const auto& p : s.points) {
        const double a = s.style == SeriesStyle::Band ? p.lo : p.y - p.spread;
        const double b = s.style == SeriesStyle::Band ? p.hi : p.y + p.spread;
        if (!(a > 0)) return std::nullopt;
        lo = std::min(lo, a), hi = std::max(hi, b);
      }
  if (!(hi > 0)) return std::nullopt;
  return std::make_pair(lo / 1.25, hi * 1.25);
}

// The same where they span more than a factor 10: a log axis over it; none otherwise.
std::optional<std::pair<double, double>> log_range(const LineFigure& f) {
  const auto r = positive_range(f);
  if (!r || !(r->second / 1.25 > 10 * (r->first * 1.25))) return std::nullopt;  // the values' own span
  return r;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

}  // namespace

FigureSource line_figure_source(const LineFigure& f) {
  const std::size_t n = f.panels.size();
  const bool multi = n > 1;
  const int cols = multi ? 2 : 1, rows = int((n + cols - 1) / cols);
  std::size_t entries = 0;
  for (const auto& p : f.panels) entries = std::max(entries, p.series.size());
  // A panel is half the width: its legend one column of smaller type.
  const int legend = multi ? 16 * int(entries) : 22 * int((entries + 1) / 2);
  const int width = multi ? 1040 : 960, height = multi ? rows * (300 + legend) + 40 : 480 + legend;
  std::string setup = "set xlabel " + quoted(f.xlabel) + "\nset ylabel " + quoted(f.ylabel) + "\n";
  setup += multi ? "set grid\nset key outside below center Left reverse maxcols 1 font ',11'\n"
                 : "set grid\nset key outside below left Left reverse maxcols 2 width 2\n";
  auto log_y = f.log == LogAxis::Linear ? std::nullopt : log_range(f);
  if (f.log == LogAxis::Log && !log_y) log_y = positive_range(f);
  setup += log_y ? fmt::format("set logscale y\nset yrange [{}:{}]\n", number(log_y->first), number(log_y->second))
                 : "set yrange [0:*]\n";
  setup += "set autoscale xfix\nset offsets graph 0.04, graph 0.04, graph 0.05, 0\n";
  if (max_x(f) <= 16) setup += "set xtics 1\n";
  // The plotting commands, run once for the SVG and once for the PNG (a multiplot cannot replot).
  std::string draw = multi ? fmt::format("set multiplot layout {},{} title {}\n", rows, cols, quoted(f.title))
                           : "set title " + quoted(f.title) + "\n";
  std::string data;
  std::size_t index = 0;
  for (const auto& panel : f.panels) {
    if (multi) draw += "set title " + quoted(panel.title) + "\n";
    std::string plot = "plot ";
    for (std::size_t i = 0; i < panel.series.size(); ++i, ++index) {
      plot += (i ? ", \\\n     " : "") + series_plot(panel.series[i], index, i == 0);
      data += series_data(panel.series[i]);
    }
    draw += replace_all(plot, "'NAME.dat'", "'" + f.name + ".dat'") + "\n";
  }
  if (multi) draw += "unset multiplot\n";
  std::string s = header(f.name, f.title) + setup + outputs(f.name, width, height) + draw;
  s += fmt::format("set terminal pngcairo size {},{} font 'sans,10' noenhanced background '#ffffff'\n"
                   "set output '{}.png'\n", width, height, f.name) + draw + "unset output\n";
  return {f.name, f.title, s, "# " + plot_text(f.title) + ": one block per line of the plot (x y [spread | lo hi])\n" + data, ""};
}

FigureSource bar_figure_source(const StackedBars& f) {
  std::size_t longest = 0;
  for (const auto& l : f.labels) longest = std::max(longest, l.size());
  const int width = std::max(960, 160 + 24 * int(f.labels.size()));
  const int height = 440 + 6 * int(longest);
  std::string s = header(f.name, f.title) + outputs(f.name, width, height);
  s += "set title " + quoted(f.title) + "\nset xlabel " + quoted(f.xlabel) + "\nset ylabel " + quoted(f.ylabel) + "\n";
  s += "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.85 border -1\n";
  s += "set boxwidth 0.75\nset grid ytics\nset yrange [0:*]\nset key outside right top Left reverse\n";
  s += "set xtics rotate by -90 scale 0 nomirror\n";
  std::string plot = "plot ";
  for (std::size_t p = 0; p < f.parts.size(); ++p)
    plot += (p ? ", \\\n     '' " : "'" + f.name + ".dat' ") + fmt::format("using {}", p + 2) +
            (p == 0 ? ":xtic(1)" : "") + fmt::format(" lc {} title {}", p + 1, quoted(f.parts[p]));
  s += plot + "\n" + png_replot(f.name, width, height);
  std::string data = "# configuration";
  for (const auto& p : f.parts) data += " | " + plot_text(p);
  data += "\n";
  for (std::size_t b = 0; b < f.labels.size(); ++b) {
    data += "\"" + plot_text(f.labels[b]) + "\"";
    for (double v : f.values[b]) data += " " + number(v);
    data += "\n";
  }
  return {f.name, f.title, s, data, ""};
}

}  // namespace study_layer
}  // namespace ddlsim
