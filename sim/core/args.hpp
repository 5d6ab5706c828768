// Command-line parsing shared by the sub-commands (and the CUDA harness's main): the command's own options through
// Boost.Program_options; every other `--section.key=value` is a scenario override.
#pragma once
#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace ddlsim {
inline namespace core_layer {

using Args = std::vector<std::string>;  // a command's arguments, after its name

struct ParsedArgs {
  boost::program_options::variables_map vm;
  std::vector<std::string> positional;
  std::vector<std::string> overrides;  // --section.key=value
};

// `--help` or `-h` among the command's own arguments throws HelpRequested with the options, their
// defaults and one line each, from the same description that parses them.
ParsedArgs parse_args(const std::vector<std::string>& args,
                      const boost::program_options::options_description& own, const std::string& command);

// An integer from 1 to hi written as plain digits, or 0 when `text` is anything else.
long integer_in_range(const std::string& text, long hi);

// Option `--name` as "N" or "HxW" (height x width), each an integer from 1 to hi; throws an
// InputError naming the option otherwise.
std::pair<int, int> size_option(const std::string& name, const std::string& text, long hi);

}  // namespace core_layer
}  // namespace ddlsim
