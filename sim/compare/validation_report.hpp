// `ddlsim validate` output: per row and per platform group, table, CSV or JSON, and the plot.
#pragma once
#include <string>

#include "compare/validation.hpp"
#include "report/plot_svg.hpp"
#include "report/report.hpp"

namespace ddlsim {
inline namespace compare_layer {

std::string render_validation(const ValidationResult& v, Format f);
// The page docs/validation-training.md: every group's MAPE and bias, out of sample, the roofline.
std::string render_validation_markdown(const ValidationResult& v);
ScatterPlot validation_plot(const ValidationResult& v);

}  // namespace compare_layer
}  // namespace ddlsim
