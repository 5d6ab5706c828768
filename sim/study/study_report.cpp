#include "study/study_report.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "compare/csv_table.hpp"
#include "compare/measurements.hpp"
#include "core/error.hpp"
#include "core/output.hpp"
#include "study/gnuplot_runner.hpp"
#include "study/html_page.hpp"
#include "study/measured_match.hpp"
#include "study/study_figures.hpp"
#include "study/sweep_results.hpp"

namespace ddlsim {
inline namespace study_layer {

std::string files_dir_for(const std::string& output) {
  const auto slash = output.rfind('/');
  const auto dot = output.rfind('.');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
  return (has_ext ? output.substr(0, dot) : output) + "_files";
}

namespace {

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

void check_report_output(const std::string& output) {
  if (output.empty() || output == "-")
    throw InputError("ddlsim report: -o FILE.html is required (the figures are written to a folder beside it)");
  if (output.back() == '/') throw InputError("ddlsim report: -o " + output + ": expected a file name, not a folder");
  const auto slash = output.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : output.substr(0, slash);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || ::access(dir.c_str(), W_OK) != 0)
    throw InputError("ddlsim report: -o " + output + ": " + dir + " is not a folder this user can write to");
}


StudyReport build_study_report(const StudyOptions& o) {
  check_report_output(o.output);
  const SweepResults sweep = read_sweep_results(o.sweep_csv);
  std::optional<MeasuredMatch> measured;
  if (!o.measured_csv.empty())
    measured = match_measured(read_measured(read_csv_file(o.measured_csv), o.maps, o.metric, o.values), sweep);
  else if (!o.maps.empty() || !o.values.empty() || !o.metric.empty())
    throw InputError("ddlsim report: --map, --value and --metric describe --measured FILE.csv, which is missing");
  const ReportLayout layout = report_layout(sweep, o.layout);
  const std::vector<DrawnFigure> figures =
      draw_figures(study_figures(sweep, measured ? &*measured : nullptr, layout), o.gnuplot);
  StudyReport r;
  r.files_dir = files_dir_for(o.output);
  for (const auto& f : figures) {
    const std::string base = r.files_dir + "/" + f.source.name;
    r.files.push_back({base + ".gp", f.source.script});
    r.files.push_back({base + ".dat", f.source.data});
    r.files.push_back({base + ".svg", f.svg});
    r.files.push_back({base + ".png", f.png});
  }
  if (measured)
    for (const auto& run : measured->runs) r.measured_unmatched += !run.row;
  r.files.push_back(
      {o.output, render_study_page({&sweep, measured ? &*measured : nullptr, &figures, &layout, base_name(r.files_dir)})});
  return r;
}

void write_study_report(const StudyReport& report) {
  OutputSet out;
  for (const auto& [path, bytes] : report.files) out.add(path, bytes);
  const bool created = ::mkdir(report.files_dir.c_str(), 0777) == 0;
  if (!created && errno != EEXIST)
    throw InputError(report.files_dir + ": cannot create the folder for the figures: " + std::strerror(errno));
  try {
    out.commit();
  } catch (...) {
    if (created) ::rmdir(report.files_dir.c_str());
    throw;
  }
}

}  // namespace study_layer
}  // namespace ddlsim
