// Options shared by `compare` and `fit`: the measured CSV, the base scenario, column maps.
#pragma once
#include <string>

#include "core/args.hpp"
#include "compare/comparison.hpp"
#include "compare/effective_fit.hpp"
#include "report/report.hpp"

namespace ddlsim {
inline namespace cli_layer {

struct MeasuredInput {
  std::string scenario_file;
  Settings base;                    // the base scenario with overlays and command-line keys
  MeasuredSet set;
  std::vector<Scenario> scenarios;  // one per configuration
};

boost::program_options::options_description measured_options(const std::string& command);
// Reads and checks everything before any output is written; throws InputError.
MeasuredInput read_measured_input(const ParsedArgs& pa, const std::string& command);

// `fit`'s pieces that its nccl-tests form shares (fit_cmd.cpp): the fitted parameters as JSON and
// as table lines, and --strict (a value outside its physical range or at its search range's edge).
nlohmann::ordered_json effective_json(const EffectiveFit& eff);
std::string render_effective(const EffectiveFit& eff);
void check_strict(const EffectiveFit& eff);
// `fit LOG... --scenario BASE.ini`: nccl-tests logs (fit_logs.cpp).
int fit_collective_logs(const ParsedArgs& pa, Format format);

}  // namespace cli_layer
}  // namespace ddlsim
