// `ddlsim profile --kernels`: the roofline's price of each kernel beside the time a calibration
// file measured for it (format 2 lists each layer's kernels, named as ops/layer_ops.cpp names them).
#pragma once
#include <string>
#include <vector>

#include "cost/compute.hpp"
#include "report/report.hpp"
#include "system/calibration.hpp"

namespace ddlsim {
inline namespace report_layer {

struct KernelComparison {
  std::string layer, phase, kernel;
  Seconds roofline_s = -1;  // < 0: the roofline runs no such kernel
  Seconds measured_s = -1;  // < 0: the calibration timed no such kernel
};

// Forward and backward kernels of each layer, matched by phase, name and occurrence in the layer
// (model order, launch order). Throws InputError (naming `origin`) when the calibration has no
// kernel table or did not time `batch`.
std::vector<KernelComparison> compare_kernels(const std::vector<LayerKernelTimes>& roofline, const Calibration& cal,
                                              int batch, const std::string& origin);

struct KernelProfileContext {
  std::string model, roofline_device, measured_device, precision;
  int batch = 0;
};
// A table (the `top` kernels the calibration measured longest when top > 0, then totals by kernel
// name and the spread of the per-kernel ratio), CSV (one row a kernel) or JSON (both).
std::string render_kernel_profile(const std::vector<KernelComparison>& rows, const KernelProfileContext& c, Format f,
                                  int top = 0);

}  // namespace report_layer
}  // namespace ddlsim
