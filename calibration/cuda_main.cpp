// ddlsim_cuda: the GPU calibration harness, built only where nvcc was found. `ddlsim calibrate
// --device cuda:N` runs it; it shares every line of non-CUDA code with the CPU twin (the kernel
// list, the Google Benchmark harness, the calibration file) through run_calibrate().
#include <cstring>
#include <iostream>

#include "calibration/calibrate.hpp"
#include "calibration/cuda_interference.hpp"
#include "core/error.hpp"
#include "kernels/cuda_runner.hpp"

int main(int argc, char** argv) {
  using namespace ddlsim;
  if (argc < 2 || std::strcmp(argv[1], "calibrate") != 0) {
    std::cerr << "usage: ddlsim_cuda calibrate --device cuda:N --model NAME --batch 32,64 --out FILE\n";
    return 2;
  }
  const Args args(argv + 2, argv + argc);
  return exit_code_of([&] {
    return run_calibrate(
        args,
        [](const std::string& kind, int index) -> std::unique_ptr<KernelRunner> {
          if (kind == "cuda") return make_cuda_runner(index);
          return make_cpu_runner();
        },
        measure_cuda_interference);
  });
}
