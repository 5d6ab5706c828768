// The calibration entry point: `ddlsim calibrate`'s whole body, parameterised by how a device name
// becomes a kernel runner, so that the CUDA build's executable (calibration/cuda_main.cpp) runs the
// very same code.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "calibration/interference.hpp"
#include "core/args.hpp"
#include "kernels/runner.hpp"

namespace ddlsim {
inline namespace calibration_layer {

// device: "cpu" or "cuda:N" (already validated). Throws InputError when it cannot be had.
using RunnerFactory = std::function<std::unique_ptr<KernelRunner>(const std::string& device, int index)>;

// --interference on a GPU (device index, options): the CUDA build's measurement
// (calibration/cuda_interference.hpp); empty where there is none.
using GpuInterference = std::function<InterferenceMeasurement(int index, const InterferenceOptions& o)>;

int run_calibrate(const Args& args, const RunnerFactory& make_runner, const GpuInterference& gpu_interference = {});

// "cpu" -> {"cpu", 0}; "cuda" or "cuda:N" -> {"cuda", N}; anything else: InputError.
std::pair<std::string, int> parse_device(const std::string& text);

}  // namespace calibration_layer
}  // namespace ddlsim
