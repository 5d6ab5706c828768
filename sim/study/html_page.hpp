// The study report as one self-contained HTML page: figures inlined as SVG (ids made unique per
// figure), tables of the scenario, the assumptions and the measured runs. No date, no absolute
// path that was not given: the same inputs give the same bytes.
#pragma once
#include <string>
#include <vector>

#include "study/gnuplot_runner.hpp"
#include "study/measured_match.hpp"
#include "study/study_figures.hpp"
#include "study/sweep_results.hpp"

namespace ddlsim {
inline namespace study_layer {

struct PageInputs {
  const SweepResults* sweep = nullptr;
  const MeasuredMatch* measured = nullptr;  // may be null
  const std::vector<DrawnFigure>* figures = nullptr;
  const ReportLayout* layout = nullptr;  // the facets the answer is given per
  std::string files_dir;  // the folder beside the page, relative to it ("report_files")
};

std::string render_study_page(const PageInputs& in);

// gnuplot's SVG made fit to sit in a page: no XML prolog, every id and reference prefixed.
std::string inline_svg(const std::string& svg, const std::string& prefix, const std::string& title);

}  // namespace study_layer
}  // namespace ddlsim
