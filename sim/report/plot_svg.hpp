// Predicted-vs-measured scatter plot as a standalone SVG (no library): log-log axes, the y = x
// diagonal and +-10 % bands, one marker style per series, a legend. Deterministic text output.
#pragma once
#include <string>
#include <vector>

namespace ddlsim {
inline namespace report_layer {

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

}  // namespace report_layer
}  // namespace ddlsim

namespace ddlsim {
inline namespace report_layer {

// A heat map with contour lines (report/heatmap_svg.cpp): one value per grid point, coloured on a
// linear scale from the least to the greatest (viridis-like), black contour lines at "nice" levels
// (1, 2, 5 x 10^k steps, marching squares between grid points), a colour bar with the levels, and
// optional labelled vertical markers (e.g. known models on a model-size axis). Deterministic text.
struct HeatMap {
  std::string title;
  std::string x_label, y_label, z_label;
  std::vector<double> xs, ys;  // grid coordinates, increasing
  bool x_log = false, y_log = false;
  std::vector<double> values;  // values[iy * xs.size() + ix]; NaN: no value (drawn grey)
  std::vector<std::pair<std::string, double>> x_marks;  // label, x
};

std::string render_heatmap_svg(const HeatMap& map);

}  // namespace report_layer
}  // namespace ddlsim
