// Sub-commands of `ddlsim`. Each takes its arguments (after the command name), writes its
// output, and returns the exit code; InputError escapes to main(), which prints it and exits 2.
#pragma once
#include <string>
#include <vector>

namespace ddlsim {

using Args = std::vector<std::string>;

int cmd_simulate(const Args& args);
int cmd_sweep(const Args& args);
int cmd_models(const Args& args);
int cmd_keys(const Args& args);

struct Command {
  const char* name;
  int (*run)(const Args&);
  const char* summary;
};

const std::vector<Command>& commands();
std::string usage();

}  // namespace ddlsim
