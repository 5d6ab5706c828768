// `ddlsim calibrate`: the command body is calibration/calibrate.cpp's, shared with the CUDA
// harness; here only the hand-over of --device cuda to that separate executable.
#include <unistd.h>

#include <iostream>

#include "calibration/calibrate.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/files.hpp"

namespace ddlsim {
inline namespace cli_layer {

namespace {

// The GPU harness lives in a separate executable, built only where nvcc was found, so that
// ddlsim itself never needs CUDA. `ddlsim calibrate --device cuda:N` hands over to it.
[[noreturn]] void exec_cuda_harness(const Args& args) {
  const std::string exe = executable_dir() + "/ddlsim_cuda";
  if (::access(exe.c_str(), X_OK) != 0)
    throw InputError("--device cuda: this ddlsim was built without CUDA (nvcc was not found when it was "
                     "configured, so " + exe + " does not exist); build it on a machine with the CUDA toolkit "
                     "(docs/your-cluster.md), or use --device cpu");
  std::vector<std::string> all = {exe, "calibrate"};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  ::execv(exe.c_str(), argv.data());
  throw InputError("--device cuda: cannot run " + exe);
}

}  // namespace

int cmd_calibrate(const Args& args) {
  return run_calibrate(args, [&args](const std::string& kind, int) -> std::unique_ptr<KernelRunner> {
    if (kind == "cuda") exec_cuda_harness(args);
    return make_cpu_runner();
  });
}

}  // namespace cli_layer
}  // namespace ddlsim
