#include "cli/commands.hpp"

#include <fmt/format.h>

#include "core/text.hpp"
#include "engine/version.hpp"

namespace ddlsim {
inline namespace cli_layer {

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      {"simulate", cmd_simulate, "simulate FILE.ini [--section.key=value ...] [--format table|csv|json] [--output FILE]"},
      {"sweep", cmd_sweep, "sweep FILE.ini [--jobs N] [--output FILE.csv] [--report FILE.html]   full-factorial [sweep] section"},
      {"collective", cmd_collective, "collective [FILE.ini] [--op allreduce|reduce_scatter|allgather|broadcast|reduce|alltoall] [-b 8 -e 128M -f 2 | --sizes LIST] [--format nccl|osu|table|csv|json]   one collective over sizes, like nccl-tests / OSU"},
      {"models", cmd_models, "models [NAME] [--input-size N] [--classes N] [--format table|csv|json]"},
      {"profile", cmd_profile, "profile [FILE.ini] [--kernels] [--top N] [--format table|csv|json] [--output FILE]   one micro-batch's compute, layer by layer"},
      {"keys", cmd_keys, "keys   every scenario key, its default and meaning"},
      {"kernels", cmd_kernels, "kernels [--format table|markdown]   the kernels of each kind of layer, as calibration files name them"},
      {"calibrate", cmd_calibrate, "calibrate --device cpu|cuda:N --model NAME|FILE.model --batch 32,64 --out FILE   measure per-layer kernel times"},
      {"calibrate-input", cmd_calibrate_input, "calibrate-input [--images DIR] [--input-size 224] [--out FILE.ini]   time JPEG decode and augmentation per sample"},
      {"netbench", cmd_netbench, "netbench --np N [--library mpi|gloo] [--hosts a,b,..] [--sizes ...] [--csv FILE]   latency, bandwidth, allreduce"},
      {"netfit", cmd_netfit, "netfit MEASURED.csv --out PLATFORM.xml [--merge OLD.xml]   fit latency, bandwidth, duplex factor (per library)"},
      {"platform", cmd_platform, "platform generate|show|list   write a SimGrid platform XML for N nodes x G GPUs; summarise one; list the built-in ones"},
      {"report", cmd_report, "report SWEEP.csv [--measured M.csv [--map column=section.key ...] [--metric ...]] -o report.html   scaling figures, where a step's time goes, assumptions: one HTML page"},
      {"compare", cmd_compare, "compare MEASURED.csv --scenario BASE.ini [--map column=section.key ...] [--value column:cell=value ...] [--format table|csv|json] [--output FILE] [--plot FILE.svg]"},
      {"fit", cmd_fit, "fit MEASURED.csv|NCCL_TESTS.log... --scenario BASE.ini [--map ...] [--params LIST] [--train-max-nodes N] [--overlay-out FILE.ini] [--format table|csv|json] [--strict]   values with 95 % intervals"},
      {"advise", cmd_advise, "advise FILE.ini --vary KEY [--target efficiency=0.8] [--range LO..HI | --values A,B] [--objective epoch_time|efficiency|gpu_hours] [--nodes-optimum] [--verify simgrid] [--format table|csv|json]   the value of a key that reaches a target, or values ranked"},
      {"map", cmd_map, "map FILE.ini --x KEY=LO..HI --y KEY=LO..HI [--z comm_overhead] [--points 20x20] [--log x,y] [--csv FILE] [--svg FILE]   one result over a grid of two keys"},
      {"validate", cmd_validate, "validate [--set tf2017|published|convnets|all] [--data DIR] [--format table|csv|json] [--output FILE] [--plot FILE.svg] [--section.key=value ...]   published runs, a priori and fitted"},
  };
  return list;
}

std::string version_text() { return fmt::format("ddlsim {} (SimGrid {})\n", DDLSIM_VERSION, simgrid_version()); }

std::string unknown_command(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& c : commands()) names.push_back(c.name);
  return "unknown command '" + clip(name) + "'" + did_you_mean(name, names);
}

std::string usage() {
  std::string out = "usage: ddlsim COMMAND [ARGS]   (ddlsim COMMAND --help: its options; ddlsim --version)\n\ncommands:\n";
  for (const auto& c : commands()) out += fmt::format("  {}\n", c.summary);
  return out;
}

}  // namespace cli_layer
}  // namespace ddlsim
