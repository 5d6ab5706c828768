// The calibration harness, shared by the GPU and the CPU twin: every distinct kernel of a model's
// training step is registered as a Google Benchmark with manual time (the runner's device clock:
// CUDA events, or thread CPU time), warmed up, measured, and the per-kernel times are summed into
// per-layer forward, backward, update and accumulation times.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "system/calibration.hpp"
#include "kernels/runner.hpp"

namespace ddlsim {
inline namespace kernels_layer {

struct HarnessOptions {
  double min_time_s = 0.05;     // Google Benchmark's MinTime per kernel
  double warmup_s = 0.01;       // MinWarmUpTime per kernel
  std::string* benchmark_json = nullptr;  // where set, receives Google Benchmark's JSON report
  bool progress = false;        // one line per kernel on stderr
};

// Fills device, kind, model, precision, clock and the rows; the caller adds tool, host and date.
Calibration calibrate_model(KernelRunner& runner, const Model& model, const std::vector<int>& batches,
                            Precision precision, const HarnessOptions& opts);

// Bytes of the scratch buffers a runner holds once every kernel of `specs` is prepared: each of the
// three buffers grows to its largest kernel's need (kernel_plan.hpp, kernel_buffers).
double buffer_bytes(const std::map<std::string, KernelSpec>& specs);

// A real training step on one device, timed end to end: forward kernels in layer order, backward
// kernels in reverse layer order, then every update kernel. The fastest of `passes` after one warm-up.
Seconds measure_step_s(KernelRunner& runner, const Model& model, int batch, Precision precision, int passes);

}  // namespace kernels_layer
}  // namespace ddlsim
