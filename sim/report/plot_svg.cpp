#include "report/plot_svg.hpp"

#include "core/text.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace ddlsim {
inline namespace report_layer {

namespace {

constexpr double kWidth = 640, kHeight = 560;
constexpr double kLeft = 80, kRight = 20, kTop = 50, kBottom = 70;
const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};

// Log-scale mapping of [lo, hi] onto a pixel range.
struct Axis {
  double lo, hi, p0, p1;
  double at(double v) const { return p0 + (p1 - p0) * (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)); }
};

// Ticks at 1, 2, 5 x 10^k inside [lo, hi] (only decades when the range spans more than three).
std::vector<double> ticks(double lo, double hi) {
  std::vector<double> t;
  const bool decades_only = hi / lo > 1e3;
  for (int k = int(std::floor(std::log10(lo))); k <= int(std::ceil(std::log10(hi))); ++k)
    for (double m : {1.0, 2.0, 5.0}) {
      if (decades_only && m != 1.0) continue;
      const double v = m * std::pow(10.0, k);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) t.push_back(v);
    }
  return t;
}

std::string tick_label(double v) { return fmt::format("{:g}", v); }

void frame(std::string& s, const Axis& x, const Axis& y, const ScatterPlot& p) {
  for (double v : ticks(x.lo, x.hi)) {
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="#ddd"/>)", x.at(v), y.p0, y.p1) + "\n";
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle" font-size="12">{}</text>)", x.at(v), y.p0 + 18,
                     tick_label(v)) + "\n";
  }
  for (double v : ticks(y.lo, y.hi)) {
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{2:.1f}" y2="{1:.1f}" stroke="#ddd"/>)", x.p0, y.at(v), x.p1) + "\n";
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="end" font-size="12">{}</text>)", x.p0 - 6, y.at(v) + 4,
                     tick_label(v)) + "\n";
  }
  s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="none" stroke="#333"/>)", x.p0, y.p1,
                   x.p1 - x.p0, y.p0 - y.p1) + "\n";
  s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle" font-size="16">{}</text>)", kWidth / 2, 28.0,
                   markup_escape(p.title)) + "\n";
  s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle" font-size="13">measured {}</text>)",
                   (x.p0 + x.p1) / 2, kHeight - 20, markup_escape(p.unit)) + "\n";
  s += fmt::format(R"X(<text transform="translate(20,{:.1f}) rotate(-90)" text-anchor="middle" font-size="13">predicted {}</text>)X",
                   (y.p0 + y.p1) / 2, markup_escape(p.unit)) + "\n";
}

// y = x and y = (1 +- 10 %) x, clipped to the square plot range.
void diagonals(std::string& s, const Axis& x, const Axis& y) {
  for (double f : {1.0, 1.1, 0.9}) {
    const double a = std::max(x.lo, y.lo / f), b = std::min(x.hi, y.hi / f);
    if (a >= b) continue;
    s += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#888" stroke-dasharray="{}"/>)",
                     x.at(a), y.at(a * f), x.at(b), y.at(b * f), f == 1.0 ? "none" : "4,4") + "\n";
  }
}

bool is_filled(const ScatterPlot& p, int series) {
  return std::size_t(series) < p.filled.size() ? bool(p.filled[series]) : series == 0;
}

}  // namespace

std::string render_scatter_svg(const ScatterPlot& p) {
  double lo = 0, hi = 0;
  for (const auto& pt : p.points) {
    if (pt.measured <= 0 || pt.predicted <= 0) continue;
    const double a = std::min(pt.measured, pt.predicted), b = std::max(pt.measured, pt.predicted);
    lo = lo == 0 ? a : std::min(lo, a);
    hi = std::max(hi, b);
  }
  if (lo == 0) lo = 1, hi = 10;
  lo = std::pow(10.0, std::floor(std::log10(lo) * 10) / 10);  // pad a little, on a tenth of a decade
  hi = std::pow(10.0, std::ceil(std::log10(hi) * 10) / 10);
  if (hi <= lo * 1.0001) hi = lo * 10;
  const Axis x{lo, hi, kLeft, kWidth - kRight}, y{lo, hi, kHeight - kBottom, kTop};
  std::string s = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" viewBox="0 0 {:.0f} {:.0f}" font-family="sans-serif">)",
      kWidth, kHeight, kWidth, kHeight) + "\n";
  s += R"(<rect width="100%" height="100%" fill="white"/>)" "\n";
  frame(s, x, y, p);
  diagonals(s, x, y);
  for (const auto& pt : p.points) {
    if (pt.measured <= 0 || pt.predicted <= 0) continue;
    const char* colour = kColours[pt.series % 6];
    const bool filled = is_filled(p, pt.series);
    s += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="4" fill="{}" stroke="{}"><title>{}</title></circle>)",
                     x.at(pt.measured), y.at(pt.predicted), filled ? colour : "none", colour, markup_escape(pt.label)) + "\n";
  }
  for (std::size_t i = 0; i < p.series.size(); ++i) {
    const double ly = kTop + 14 + 18.0 * i;
    const char* colour = kColours[i % 6];
    s += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="4" fill="{}" stroke="{}"/>)", kLeft + 14, ly,
                     is_filled(p, int(i)) ? colour : "none", colour) + "\n";
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="12">{}</text>)", kLeft + 24, ly + 4, markup_escape(p.series[i])) + "\n";
  }
  s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="11" fill="#555">solid: y = x; dashed: +-10 %</text>)",
                   kLeft + 10, kTop + 14 + 18.0 * p.series.size()) + "\n";
  s += "</svg>\n";
  return s;
}

}  // namespace report_layer
}  // namespace ddlsim
