// `ddlsim report SWEEP.csv [--measured M.csv ...] -o report.html`: the page and, in report_files/
// beside it, each figure's PNG, SVG, gnuplot script and data; written all or nothing.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "study/study_figures.hpp"

namespace ddlsim {
inline namespace study_layer {

struct StudyOptions {
  std::string sweep_csv;
  std::string measured_csv;         // "" = no measured runs
  std::vector<std::string> maps;    // --map column=section.key
  std::vector<std::string> values;  // --value column:cell=value
  std::string metric;               // --metric, as compare reads it
  std::string output;               // the page, e.g. out/report.html
  std::string gnuplot = "gnuplot";  // looked up on PATH
  LayoutRequest layout;             // --facets, --colour, --log
};

struct StudyReport {
  std::string files_dir;                                    // out/report_files
  std::vector<std::pair<std::string, std::string>> files;  // path, bytes; the page last
  int measured_unmatched = 0;                               // measured configurations not in the sweep
};

// "out/report.html" -> "out/report_files".
std::string files_dir_for(const std::string& output);

// The page's path: a file name (not "-" or a folder) in a folder this user can write to. Throws
// InputError naming it; `sweep --report` checks it before the sweep runs.
void check_report_output(const std::string& output);

// Reads, checks and draws everything; writes nothing. Throws InputError on bad input.
StudyReport build_study_report(const StudyOptions& opts);

// Creates files_dir when missing and writes every file (OutputSet); on failure removes the folder
// again if it created it, and rethrows.
void write_study_report(const StudyReport& report);

}  // namespace study_layer
}  // namespace ddlsim
