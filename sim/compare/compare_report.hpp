// `ddlsim compare` output: a table, a tidy CSV (one row per configuration) or JSON, and the
// predicted-vs-measured plot.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "compare/comparison.hpp"
#include "report/plot_svg.hpp"
#include "report/report.hpp"

namespace ddlsim {
inline namespace compare_layer {

nlohmann::ordered_json stats_record(const ErrorStats& s);
nlohmann::ordered_json comparison_json(const Comparison& c);
std::string render_comparison(const Comparison& c, Format f);
// Model predictions (filled) and the linear-scaling baseline (hollow) against the measurements.
ScatterPlot comparison_plot(const Comparison& c, const std::string& title);
// "MAPE 3.1 %  max 7.9 %  bias -1.2 %  (n = 12)"
std::string stats_line(const ErrorStats& s);
// "12.3 % (-4.5)": MAPE and bias in percent, for tables; "-" when there are no points.
std::string mape_bias_cell(const ErrorStats& s);

}  // namespace compare_layer
}  // namespace ddlsim
