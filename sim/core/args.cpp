#include "core/args.hpp"

#include <fmt/format.h>

#include <sstream>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace core_layer {

ParsedArgs parse_args(const std::vector<std::string>& args, const po::options_description& own,
                      const std::string& command) {
  ParsedArgs out;
  std::vector<std::string> mine;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool scenario_key = a.rfind("--", 0) == 0 && a.find('.') < a.find('=');
    if (!scenario_key) {
      mine.push_back(a);
    } else if (a.find('=') != std::string::npos) {
      out.overrides.push_back(a);
    } else if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) {  // --section.key VALUE
      out.overrides.push_back(a + "=" + args[++i]);
    } else {  // last, or followed by another option: no value
      throw InputError("command line: " + clip(a) + " needs a value (" + clip(a) + "=VALUE)");
    }
  }
  for (const auto& a : mine)
    if (a == "--help" || a == "-h") {
      std::ostringstream text;
      text << "usage: ddlsim " << command << " [options] [--section.key=value ...]\n\n" << own
           << "\nScenario keys are given as --section.key=value (`ddlsim keys` lists them).\n";
      throw HelpRequested(text.str());
    }
  try {
    po::options_description all = own;
    all.add_options()("positional", po::value<std::vector<std::string>>(), "");
    po::positional_options_description pos;
    pos.add("positional", -1);
    // No prefix guessing (--out for --output): a mistyped option is an error, as a mistyped key.
    po::store(po::command_line_parser(mine)
                  .options(all)
                  .positional(pos)
                  .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
                  .run(),
              out.vm);
    po::notify(out.vm);
  } catch (const po::error& e) {
    throw InputError("ddlsim " + command + ": " + e.what());
  }
  if (out.vm.count("positional")) out.positional = out.vm["positional"].as<std::vector<std::string>>();
  return out;
}

long integer_in_range(const std::string& text, long hi) { return long(parse_integer(text, 1, hi).value_or(0)); }

std::pair<int, int> size_option(const std::string& name, const std::string& text, long hi) {
  if (const auto v = parse_size(text, hi)) return *v;
  throw InputError(fmt::format("--{} '{}': expected N or HxW with integers from 1 to {}, e.g. 224x224", name,
                               clip(text), hi));
}

}  // namespace core_layer
}  // namespace ddlsim
