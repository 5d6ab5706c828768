// Sub-commands of `ddlsim`. Each takes its arguments (after the command name), writes its
// output, and returns the exit code; InputError escapes to main(), which prints it and exits 2.
#pragma once
#include <string>
#include <vector>

#include "core/args.hpp"

namespace ddlsim {
inline namespace study_layer {
struct StudyOptions;  // study/study_report.hpp
}  // namespace study_layer
inline namespace cli_layer {

int cmd_simulate(const Args& args);
int cmd_sweep(const Args& args);
int cmd_collective(const Args& args);
int cmd_models(const Args& args);
int cmd_keys(const Args& args);
int cmd_kernels(const Args& args);
int cmd_calibrate(const Args& args);
int cmd_calibrate_input(const Args& args);
int cmd_netbench(const Args& args);
int cmd_netfit(const Args& args);
int cmd_platform(const Args& args);
int cmd_compare(const Args& args);
int cmd_fit(const Args& args);
int cmd_validate(const Args& args);
int cmd_advise(const Args& args);
int cmd_map(const Args& args);
int cmd_report(const Args& args);
int cmd_profile(const Args& args);

// `report`'s options and the run that `sweep --report` shares (cli/report_cmd.cpp).
boost::program_options::options_description study_report_options();
void report_study(const StudyOptions& o);

struct Command {
  const char* name;
  int (*run)(const Args&);
  const char* summary;
};

const std::vector<Command>& commands();
std::string usage();
// `ddlsim --version`: ddlsim's version and the SimGrid library it runs with.
std::string version_text();
// "unknown command" with a suggestion.
std::string unknown_command(const std::string& name);

}  // namespace cli_layer
}  // namespace ddlsim
