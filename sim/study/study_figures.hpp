// The figures of a study report, from a sweep's rows (and measured runs matched to them):
//  * epoch time, speed-up and scaling efficiency against ranks, one line per combination of the
//    other swept factors; measured means with their standard deviation as error bars beside the
//    prediction of the metric that was measured;
//  * one stacked bar per configuration of where a step's time goes.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "study/figures.hpp"
#include "study/measured_match.hpp"
#include "study/sweep_results.hpp"

namespace ddlsim {
inline namespace study_layer {

constexpr std::size_t kMaxPlottedLines = 24;  // combinations of factors drawn as lines
constexpr std::size_t kMaxPlottedBars = 160;  // configurations drawn as bars

// The parts of a step (legend order, bottom to top) and their values for sweep row i, in seconds;
// they add up to step_time_s.
const std::vector<std::string>& step_parts();
std::vector<double> step_breakdown(const SweepResults& sweep, std::size_t i);

// How the line figures are laid out: the swept factors drawn as panels (small multiples), the one
// whose values take the colours (the others a line style, then more colours), and the y axis.
struct ReportLayout {
  std::vector<std::string> facets;
  std::string colour;  // "": the series factor with the most values
  LogAxis log = LogAxis::Auto;
};
// What `report` was asked for (--facets K1,K2 or none, --colour K, --log auto|y|none); unset: the
// defaults. Throws InputError naming the option for a key the sweep does not vary.
struct LayoutRequest {
  std::optional<std::vector<std::string>> facets;
  std::string colour;
  std::string log = "auto";
};
// The default facets are the slow factors: model.name, model.file, cluster.platform and
// compute.device where the sweep varies them, in that order.
ReportLayout report_layout(const SweepResults& sweep, const LayoutRequest& request);
// "model.name x cluster.platform".
std::string panel_words(const ReportLayout& layout);
// Row i's panel, "name=resnet50 platform=poti" ("" without facets).
std::string panel_label(const SweepResults& sweep, std::size_t row, const ReportLayout& layout);

// measured may be null.
std::vector<FigureSource> study_figures(const SweepResults& sweep, const MeasuredMatch* measured,
                                        const ReportLayout& layout);

}  // namespace study_layer
}  // namespace ddlsim
