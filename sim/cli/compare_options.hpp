// Options shared by `compare` and `fit`: the measured CSV, the base scenario, column maps.
#pragma once
#include <string>

#include "core/args.hpp"
#include "compare/comparison.hpp"

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

}  // namespace cli_layer
}  // namespace ddlsim
