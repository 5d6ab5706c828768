// Predicted-vs-measured scatter plot as a standalone SVG (no library): log-log axes, the y = x
// diagonal and +-10 % bands, one marker style per series, a legend. Deterministic text output.
#pragma once
#include <string>
#include <vector>

namespace ddlsim {

struct PlotPoint {
  double measured = 0;
  double predicted = 0;
  int series = 0;      // index into the series names
  std::string label;   // shown as the point's tooltip (<title>)
};

struct ScatterPlot {
  std::string title;
  std::string unit;                  // axis unit, e.g. "samples_per_s"
  std::vector<std::string> series;   // legend names
  std::vector<bool> filled;          // per series; default: only the first is filled
  std::vector<PlotPoint> points;     // non-positive values are skipped (log axes)
};

std::string render_scatter_svg(const ScatterPlot& plot);

}  // namespace ddlsim
