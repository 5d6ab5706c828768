#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "report/plot_svg.hpp"

#include "core/text.hpp"

namespace ddlsim {
inline namespace report_layer {

namespace {

constexpr double kW = 720, kH = 560;
constexpr double kLeft = 90, kRight = 130, kTop = 50, kBottom = 70;

// Maps [lo, hi] (log or linear) onto pixels [p0, p1].
struct Scale {
  double lo, hi, p0, p1;
  bool log;
  double t(double v) const { return log ? std::log10(v) : v; }
  double at(double v) const { return p0 + (p1 - p0) * (t(v) - t(lo)) / (t(hi) - t(lo)); }
};

// A step of 1, 2 or 5 x 10^k giving about `n` intervals over `span`.
double nice_step(double span, int n) {
  const double raw = span / n;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

std::vector<double> axis_ticks(const Scale& s) {
  std::vector<double> t;
  if (s.log) {
    const bool decades = s.hi / s.lo > 1e3;
    for (int k = int(std::floor(std::log10(s.lo))); k <= int(std::ceil(std::log10(s.hi))); ++k)
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * std::pow(10.0, k);
        if ((!decades || m == 1.0) && v >= s.lo * (1 - 1e-9) && v <= s.hi * (1 + 1e-9)) t.push_back(v);
      }
    return t;
  }
  const double step = nice_step(s.hi - s.lo, 5);
  for (double v = std::ceil(s.lo / step) * step; v <= s.hi + step * 1e-9; v += step) t.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return t;
}

// Viridis at five stops, interpolated.
std::string colour(double f) {
  static const double stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  f = std::clamp(f, 0.0, 1.0) * 4;
  const int i = std::min(3, int(f));
  const double u = f - i;
  int rgb[3];
  for (int c = 0; c < 3; ++c) rgb[c] = int(std::lround(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * u));
  return fmt::format("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
}

// Cell edges around grid point i: halfway (in the scale's coordinates) to its neighbours.
double edge(const Scale& s, const std::vector<double>& v, std::size_t i, int side) {
  if (v.size() == 1) return side < 0 ? s.p0 : s.p1;
  const std::size_t j = side < 0 ? (i == 0 ? 0 : i - 1) : std::min(i + 1, v.size() - 1);
  if (j == i) return s.at(v[i]);
  return (s.at(v[i]) + s.at(v[j])) / 2;
}

void cells(std::string& out, const HeatMap& m, const Scale& x, const Scale& y, double lo, double hi) {
  for (std::size_t iy = 0; iy < m.ys.size(); ++iy)
    for (std::size_t ix = 0; ix < m.xs.size(); ++ix) {
      const double v = m.values[iy * m.xs.size() + ix];
      const double x0 = edge(x, m.xs, ix, -1), x1 = edge(x, m.xs, ix, +1);
      const double y0 = edge(y, m.ys, iy, +1), y1 = edge(y, m.ys, iy, -1);
      const std::string fill = std::isfinite(v) ? colour(hi > lo ? (v - lo) / (hi - lo) : 0.5) : "#cccccc";
      out += fmt::format(R"(<rect x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="{}"/>)", x0, y0,
                         x1 - x0 + 0.3, y1 - y0 + 0.3, fill) + "\n";
    }
}

struct Pt {
  double x, y;
};

// Marching squares at one level over the grid points' pixel positions; the level written on the
// line at the middle one of its segments (in the grid's order), on a white halo.
void contour(std::string& out, const HeatMap& m, const Scale& x, const Scale& y, double level) {
  std::string path;
  std::vector<Pt> mids;
  const std::size_t nx = m.xs.size();
  auto val = [&](std::size_t ix, std::size_t iy) { return m.values[iy * nx + ix]; };
  auto pos = [&](std::size_t ix, std::size_t iy) { return Pt{x.at(m.xs[ix]), y.at(m.ys[iy])}; };
  for (std::size_t iy = 0; iy + 1 < m.ys.size(); ++iy)
    for (std::size_t ix = 0; ix + 1 < nx; ++ix) {
      const std::size_t cx[4] = {ix, ix + 1, ix + 1, ix}, cy[4] = {iy, iy, iy + 1, iy + 1};
      double v[4];
      bool ok = true;
      for (int k = 0; k < 4; ++k) ok = ok && std::isfinite(v[k] = val(cx[k], cy[k]));
      if (!ok) continue;
      std::vector<Pt> hits;
      for (int k = 0; k < 4; ++k) {
        const int l = (k + 1) % 4;
        if ((v[k] < level) == (v[l] < level)) continue;
        const double f = (level - v[k]) / (v[l] - v[k]);
        const Pt a = pos(cx[k], cy[k]), b = pos(cx[l], cy[l]);
        hits.push_back({a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f});
      }
      for (std::size_t h = 0; h + 1 < hits.size(); h += 2) {
        path += fmt::format("M{:.1f},{:.1f}L{:.1f},{:.1f}", hits[h].x, hits[h].y, hits[h + 1].x, hits[h + 1].y);
        mids.push_back({(hits[h].x + hits[h + 1].x) / 2, (hits[h].y + hits[h + 1].y) / 2});
      }
    }
  if (path.empty()) return;
  out += fmt::format(R"(<path d="{}" fill="none" stroke="black" stroke-width="1"><title>{:g}</title></path>)", path,
                     level) + "\n";
  const Pt at = mids[mids.size() / 2];
  out += fmt::format(R"(<text class="contour-label" x="{:.1f}" y="{:.1f}" text-anchor="middle" font-size="11" )"
                     R"(stroke="white" stroke-width="3" paint-order="stroke">{:.3g}</text>)",
                     at.x, at.y + 4, level) + "\n";
}

std::vector<double> levels(double lo, double hi) {
  std::vector<double> out;
  if (!(hi > lo)) return out;
  const double step = nice_step(hi - lo, 6);
  for (double v = std::floor(lo / step) * step + step; v < hi - step * 1e-9; v += step)
    out.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return out;
}

void axes(std::string& out, const HeatMap& m, const Scale& x, const Scale& y) {
  for (double v : axis_ticks(x))
    out += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="#333"/><text x="{0:.1f}" y="{3:.1f}" text-anchor="middle" font-size="12">{4:g}</text>)",
                       x.at(v), y.p0, y.p0 + 5, y.p0 + 18, v) + "\n";
  for (double v : axis_ticks(y))
    out += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{2:.1f}" y2="{1:.1f}" stroke="#333"/><text x="{3:.1f}" y="{4:.1f}" text-anchor="end" font-size="12">{5:g}</text>)",
                       x.p0 - 5, y.at(v), x.p0, x.p0 - 8, y.at(v) + 4, v) + "\n";
  out += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="none" stroke="#333"/>)", x.p0,
                     y.p1, x.p1 - x.p0, y.p0 - y.p1) + "\n";
  out += fmt::format(R"(<text x="{:.1f}" y="28" text-anchor="middle" font-size="16">{}</text>)", kW / 2, markup_escape(m.title)) + "\n";
  out += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle" font-size="13">{}</text>)", (x.p0 + x.p1) / 2,
                     kH - 22, markup_escape(m.x_label)) + "\n";
  out += fmt::format(R"X(<text transform="translate(22,{:.1f}) rotate(-90)" text-anchor="middle" font-size="13">{}</text>)X",
                     (y.p0 + y.p1) / 2, markup_escape(m.y_label)) + "\n";
}

void colour_bar(std::string& out, const HeatMap& m, double lo, double hi, const std::vector<double>& lv) {
  const double x0 = kW - kRight + 30, top = kTop, bottom = kH - kBottom, n = 50;
  for (int i = 0; i < n; ++i) {
    const double y = bottom - (bottom - top) * (i + 1) / n;
    out += fmt::format(R"(<rect x="{:.1f}" y="{:.2f}" width="16" height="{:.2f}" fill="{}"/>)", x0, y,
                       (bottom - top) / n + 0.3, colour((i + 0.5) / n)) + "\n";
  }
  auto ypos = [&](double v) { return hi > lo ? bottom - (bottom - top) * (v - lo) / (hi - lo) : (top + bottom) / 2; };
  std::vector<double> marks{lo, hi};
  marks.insert(marks.end(), lv.begin(), lv.end());
  for (double v : marks)
    out += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{2:.1f}" y2="{1:.1f}" stroke="black"/><text x="{3:.1f}" y="{4:.1f}" font-size="11">{5:.3g}</text>)",
                       x0, ypos(v), x0 + 20, x0 + 23, ypos(v) + 4, v) + "\n";
  out += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="12">{}</text>)", x0 - 10, top - 10, markup_escape(m.z_label)) + "\n";
}

// Dashed vertical lines with rotated labels, at the top; a label too close to the previous top one
// goes to the bottom instead.
void markers(std::string& out, const HeatMap& m, const Scale& x, const Scale& y) {
  std::vector<std::pair<double, std::string>> shown;
  for (const auto& [label, v] : m.x_marks)
    if (v >= x.lo && v <= x.hi) shown.emplace_back(x.at(v), label);
  std::sort(shown.begin(), shown.end());
  double last_top = -1e9;
  for (const auto& [px, label] : shown) {
    out += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="white" stroke-dasharray="4,3"/>)",
                       px, y.p0, y.p1) + "\n";
    const bool top = px - last_top >= 14;
    if (top) last_top = px;
    out += fmt::format(R"X(<text transform="translate({:.1f},{:.1f}) rotate(-90)" text-anchor="{}" font-size="11" fill="white">{}</text>)X",
                       px - 3, top ? y.p1 + 6 : y.p0 - 6, top ? "end" : "start", markup_escape(label)) + "\n";
  }
}

}  // namespace

std::string render_heatmap_svg(const HeatMap& m) {
  double lo = INFINITY, hi = -INFINITY;
  for (double v : m.values)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  const Scale x{m.xs.front(), m.xs.back(), kLeft, kW - kRight, m.x_log};
  const Scale y{m.ys.front(), m.ys.back(), kH - kBottom, kTop, m.y_log};
  std::string out = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0:.0f}" height="{1:.0f}" viewBox="0 0 {0:.0f} {1:.0f}" font-family="sans-serif">)",
      kW, kH) + "\n";
  out += R"(<rect width="100%" height="100%" fill="white"/>)" "\n";
  cells(out, m, x, y, lo, hi);
  const std::vector<double> lv = levels(lo, hi);
  for (double level : lv) contour(out, m, x, y, level);
  markers(out, m, x, y);
  axes(out, m, x, y);
  colour_bar(out, m, lo, hi, lv);
  out += "</svg>\n";
  return out;
}

}  // namespace report_layer
}  // namespace ddlsim
