// The figures of a study report, from a sweep's rows (and measured runs matched to them):
//  * epoch time, speed-up and scaling efficiency against ranks, one line per combination of the
//    other swept factors; measured means with their standard deviation as error bars beside the
//    prediction of the metric that was measured;
//  * one stacked bar per configuration of where a step's time goes.
#pragma once
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

// The slow factors a line figure draws one panel for (small multiples): model.name, model.file,
// cluster.platform and compute.device where the sweep varies them, in that order; none otherwise.
std::vector<std::string> panel_factors(const SweepResults& sweep);
// "model.name x cluster.platform".
std::string panel_words(const SweepResults& sweep);
// Row i's panel, "name=resnet50 platform=poti" ("" where no slow factor varies).
std::string panel_label(const SweepResults& sweep, std::size_t row);

// measured may be null.
std::vector<FigureSource> study_figures(const SweepResults& sweep, const MeasuredMatch* measured);

}  // namespace study_layer
}  // namespace ddlsim
