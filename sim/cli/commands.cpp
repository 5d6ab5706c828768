#include "cli/commands.hpp"

#include <fmt/format.h>

namespace ddlsim {

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      {"simulate", cmd_simulate, "simulate FILE.ini [--section.key=value ...] [--format table|csv|json] [--output FILE]"},
      {"sweep", cmd_sweep, "sweep FILE.ini [--jobs N] [--output FILE.csv]   full-factorial [sweep] section"},
      {"models", cmd_models, "models [NAME] [--input-size N] [--classes N] [--format table|csv|json]"},
      {"keys", cmd_keys, "keys   every scenario key, its default and meaning"},
  };
  return list;
}

std::string usage() {
  std::string out = "usage: ddlsim COMMAND [ARGS]\n\ncommands:\n";
  for (const auto& c : commands()) out += fmt::format("  {}\n", c.summary);
  return out;
}

}  // namespace ddlsim
