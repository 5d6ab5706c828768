// ddlsim report SWEEP.csv [--measured M.csv [--map column=section.key ...] [--value ...] [--metric ...]] -o report.html
#include <iostream>

#include "cli/commands.hpp"
#include "core/args.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "study/study_report.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace cli_layer {

namespace {

std::vector<std::string> list_option(const ParsedArgs& pa, const char* name) {
  return pa.vm.count(name) ? pa.vm[name].as<std::vector<std::string>>() : std::vector<std::string>{};
}

}  // namespace

po::options_description study_report_options() {
  po::options_description own("report options");
  own.add_options()("output,o", po::value<std::string>()->default_value(""),
                    "write the page to FILE.html; figures go to FILE_files/ beside it")(
      "measured", po::value<std::string>()->default_value(""), "measured runs (CSV) shown with error bars")(
      "map", po::value<std::vector<std::string>>()->composing(), "column=section.key: a measured column that sets a key")(
      "value", po::value<std::vector<std::string>>()->composing(),
      "column:cell=value: a measured cell's text stands for this scenario value (strategy:fit=tf_mirrored)")(
      "metric", po::value<std::string>()->default_value(""),
      "measured metric: epoch_time_s, step_time_s or samples_per_s; COLUMN=NAME for a column named otherwise")(
      "facets", po::value<std::string>(),
      "swept keys drawn as panels, comma-separated, or none (default: model.name, model.file, cluster.platform, "
      "compute.device where swept)")(
      "colour", po::value<std::string>()->default_value(""),
      "the swept key whose values take the colours (default: the one with the most values)")(
      "log", po::value<std::string>()->default_value("auto"),
      "y axis: auto (logarithmic where values span more than 10x), y or none");
  return own;
}

StudyOptions study_options(const ParsedArgs& pa, const std::string& sweep_csv, const std::string& output) {
  StudyOptions o;
  o.sweep_csv = sweep_csv;
  o.measured_csv = pa.vm["measured"].as<std::string>();
  o.maps = list_option(pa, "map");
  o.values = list_option(pa, "value");
  o.metric = pa.vm["metric"].as<std::string>();
  o.output = output;
  if (pa.vm.count("facets")) {
    const std::string f = pa.vm["facets"].as<std::string>();
    o.layout.facets = std::vector<std::string>{};
    if (trim(f) != "none")
      for (const auto& k : split(f, ',')) o.layout.facets->push_back(trim(k));
  }
  o.layout.colour = pa.vm["colour"].as<std::string>();
  o.layout.log = pa.vm["log"].as<std::string>();
  return o;
}

void report_study(const StudyOptions& o) {
  const StudyReport r = build_study_report(o);
  write_study_report(r);
  std::cout << "wrote " << o.output << " and " << r.files.size() - 1 << " files in " << r.files_dir << "/\n";
  if (r.measured_unmatched)
    std::cerr << "ddlsim report: " << r.measured_unmatched << " measured configuration(s) of " << o.measured_csv
              << " are not in the sweep (listed in the page; --value column:cell=value maps cells worded otherwise)\n";
}

int cmd_report(const Args& args) {
  const ParsedArgs pa = parse_args(args, study_report_options(), "report");
  if (pa.positional.size() != 1) throw InputError("ddlsim report: expected one sweep CSV (from `ddlsim sweep -o FILE.csv`)");
  if (!pa.overrides.empty())
    throw InputError("ddlsim report: unknown option " + pa.overrides.front() + " (the sweep CSV holds every setting)");
  report_study(study_options(pa, pa.positional.front(), pa.vm["output"].as<std::string>()));
  return 0;
}

}  // namespace cli_layer
}  // namespace ddlsim
