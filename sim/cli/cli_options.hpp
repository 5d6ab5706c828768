// Command-line parsing shared by the sub-commands: the command's own options through
// Boost.Program_options; every other `--section.key=value` is a scenario override.
#pragma once
#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace ddlsim {

struct ParsedArgs {
  boost::program_options::variables_map vm;
  std::vector<std::string> positional;
  std::vector<std::string> overrides;  // --section.key=value
};

ParsedArgs parse_args(const std::vector<std::string>& args,
                      const boost::program_options::options_description& own, const std::string& command);

}  // namespace ddlsim
