// Runs gnuplot on figure sources: each script and its data are written to a private temporary
// folder, gnuplot runs there as a child process (execvp, no shell; its stdin is /dev/null) and
// the SVG and PNG it draws are read back. Nothing is written beside the report here: the caller
// adds the files to its all-or-nothing OutputSet.
#pragma once
#include <string>
#include <vector>

#include "study/figures.hpp"

namespace ddlsim {
inline namespace study_layer {

struct DrawnFigure {
  FigureSource source;
  std::string svg;
  std::string png;
};

// `program` is looked up on PATH. Throws InputError when gnuplot is missing ("install gnuplot-nox")
// or fails (its message), naming the figure's script.
std::vector<DrawnFigure> draw_figures(const std::vector<FigureSource>& figures, const std::string& program = "gnuplot");

}  // namespace study_layer
}  // namespace ddlsim
