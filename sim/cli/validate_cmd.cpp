// ddlsim validate [--set tf2017|published|convnets|all|nccl|batch] [--data DIR] [--format table|csv|json]
//                 [--output FILE] [--plot FILE.svg]
//                 [--section.key=value ...]   (applied to every group's scenario: ablations)
#include "core/args.hpp"
#include "cli/commands.hpp"
#include "core/output.hpp"
#include "compare/batch_validation.hpp"
#include "compare/collective_validation.hpp"
#include "compare/validation_report.hpp"
#include "core/error.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace cli_layer {

int cmd_validate(const Args& args) {
  po::options_description own("validate options");
  own.add_options()("data", po::value<std::string>()->default_value(default_validation_folder()),
                    "folder of the validation sets (CSV and scenario files)")(
      "set", po::value<std::string>()->default_value("tf2017"),
      "tf2017, published, convnets or all (every set's groups, totals over all their rows); nccl: published "
      "nccl-tests logs of real clusters (table or markdown, json); batch: one GPU's published throughput at several "
      "batches, calibrated at the largest (table or markdown, json)")(
      "format", po::value<std::string>()->default_value("table"), "table, markdown, csv or json")(
      "output,o", po::value<std::string>()->default_value(""), "write the report to FILE")(
      "plot", po::value<std::string>()->default_value(""), "write the predicted-vs-measured plot (SVG) to FILE");
  const ParsedArgs pa = parse_args(args, own, "validate");
  if (!pa.positional.empty())
    throw InputError("ddlsim validate: takes no scenario file (the set brings its own; --section.key=value "
                     "applies to every one of them)");
  const std::string set = pa.vm["set"].as<std::string>();
  if ((set == "nccl" || set == "batch") && !pa.vm["plot"].as<std::string>().empty())
    throw InputError("ddlsim validate: --plot draws the step-time sets (tf2017, published, convnets, all), not --set " + set);
  if (set == "nccl" || set == "batch") {  // markdown pages (docs/validation-*.md) or JSON
    const std::string fmt_name = pa.vm["format"].as<std::string>();
    const Format f = fmt_name == "markdown" ? Format::Table : parse_format(fmt_name);
    const std::string folder = pa.vm["data"].as<std::string>() + "/" + set;
    write_output(pa.vm["output"].as<std::string>(),
                 set == "nccl" ? render_collective_validation(run_collective_validation(folder, pa.overrides), f)
                               : render_batch_validation(run_batch_validation(folder, pa.overrides), f));
    return 0;
  }
  const std::string fmt_name = pa.vm["format"].as<std::string>();
  const Format format = fmt_name == "markdown" ? Format::Table : parse_format(fmt_name);
  const ValidationResult v =
      run_validation(pa.vm["data"].as<std::string>(), pa.vm["set"].as<std::string>(), pa.overrides);
  const std::string report = fmt_name == "markdown" ? render_validation_markdown(v) : render_validation(v, format);
  const std::string plot = pa.vm["plot"].as<std::string>();
  OutputSet out;
  if (!plot.empty()) out.add(plot, render_scatter_svg(validation_plot(v)));
  out.add(pa.vm["output"].as<std::string>(), report);
  out.commit();
  return 0;
}

}  // namespace cli_layer
}  // namespace ddlsim
