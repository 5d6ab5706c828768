// `ddlsim map`: one result over a grid of two keys (the rest of the scenario fixed), as tidy CSV
// and a heat map with contour lines. Grid points are spaced evenly on a linear or log scale; an
// integer key's points are rounded. When x is model.params the zoo's models (built at the
// scenario's input size and classes) are marked at their parameter counts.
#pragma once
#include <string>
#include <vector>

#include "plan/evaluator.hpp"
#include "plan/plan_keys.hpp"

namespace ddlsim {
inline namespace plan_layer {

struct MapAxis {
  PlanKey key;
  double lo = 0, hi = 0;
  int points = 20;
  bool log = false;
};

// "KEY=LO..HI" for --x / --y; throws InputError naming `origin`, the key and what was expected.
MapAxis parse_map_axis(const std::string& text, const std::string& origin);
// "20x20" (x points by y points, each 2 to 1000).
std::pair<int, int> parse_points(const std::string& text);

struct ZooMark {
  std::string model;
  double params = 0;
};

struct MapGrid {
  MapAxis x, y;
  Metric z;
  std::vector<double> xs, ys;
  std::vector<double> values;       // row-major: values[iy * xs.size() + ix]; NaN where it failed
  std::vector<std::string> errors;  // same layout; "" where it succeeded
  std::vector<ZooMark> marks;       // x = model.params only
  std::string model_note;           // what model.params means here
  std::size_t failed = 0;

  double at(std::size_t ix, std::size_t iy) const { return values[iy * xs.size() + ix]; }
};

// The grid's coordinates along one axis.
std::vector<double> axis_points(const MapAxis& a);

// Throws InputError when both axes name the same key or no point can be predicted.
MapGrid compute_map(const Evaluator& ev, const MapAxis& x, const MapAxis& y, const Metric& z);

std::string map_csv(const MapGrid& g);
std::string map_summary(const MapGrid& g);
std::string map_svg(const MapGrid& g, const std::string& title);

}  // namespace plan_layer
}  // namespace ddlsim
