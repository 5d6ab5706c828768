// A compute calibration: per-layer kernel times measured on one device for one model instance
// at one or more batch sizes (docs/calibration.md). Read and written by calibration_file.cpp;
// used by the cost model (sim/cost/compute.cpp) as its top tier.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "model/model.hpp"
#include "spec/precision.hpp"

namespace ddlsim {
inline namespace system_layer {

// Version 2 adds the kernel table; version 1 files (layer times only) are still read.
constexpr int kCalibrationVersion = 2;

struct LayerTiming {
  std::string layer;
  int batch = 0;
  Seconds fwd_s = 0;       // forward kernels
  Seconds bwd_s = 0;       // data- and weight-gradient kernels
  Seconds update_s = 0;    // optimizer update of this layer's weights (after a synchronisation)
  Seconds accum_s = 0;     // adding a micro-batch's gradients into the accumulator
  int kernels = 0;         // distinct kernels launched per step (forward + backward + update)
  int line = 0;            // its line in the calibration file (0: not read from a file)
};

// One kernel of a layer as the harness timed it, named as ops/layer_ops.cpp names it
// (sgd_update and grad_accumulate for the update and the accumulation).
struct KernelTiming {
  std::string layer;
  int batch = 0;
  std::string phase;  // forward, backward, update or accumulate
  std::string kernel;
  Seconds s = 0;
  int line = 0;       // its line in the calibration file (0: not read from a file)
};

struct Calibration {
  int version = kCalibrationVersion;
  std::string device;        // what was measured ("cpu: ..." or "cuda:0: NVIDIA ...")
  std::string device_kind;   // cpu or cuda
  std::string model;         // model name
  std::int64_t model_params = 0;       // total parameters: identifies the instance ...
  double model_fwd_flops = 0;          // ... with the forward operations per sample
  std::string precision = "fp32";
  std::string clock;         // how kernels were timed
  std::string tool;          // the command that wrote it
  std::string host;
  std::string date;          // UTC, ISO 8601
  // Compute slow-down while an allreduce runs beside it, measured by `ddlsim calibrate
  // --interference` (cost/library_costs.hpp); -1: not measured.
  double interference = -1;
  std::vector<LayerTiming> rows;  // layer-major, batches ascending within a layer
  std::vector<KernelTiming> kernels;  // (version 2) each layer's kernels in launch order, same order as rows

  std::vector<int> batches() const;  // distinct measured batch sizes, ascending
};

// Per-layer cost at a batch size, from the measured batches (the rule in docs/calibration.md):
//  * a measured batch: its times;
//  * between two measured batches: linear interpolation between them;
//  * outside: the straight line through the two nearest measured batches (t = a + c b: a fixed
//    launch cost plus a per-sample cost), never below min(1, b / b_near) x t(b_near);
//  * one measured batch: proportional to the batch, t(b) = t(b1) x b / b1 (compute_profile then
//    follows the roofline's shape from there instead: cost/compute.cpp follow_roofline_shape).
// Update and accumulation do not depend on the batch: the nearest measured batch's value.
// Throws InputError (naming `origin`) when the layer has no rows.
LayerTiming layer_timing_at(const Calibration& cal, const std::string& layer, int batch, const std::string& origin);

// Throws InputError (naming `origin`) unless the calibration was made for this model instance
// (name, parameter count and forward operations per sample), at this precision, and holds rows
// for every layer of it and for no other layer.
void check_calibration_matches(const Calibration& cal, const Model& model, Precision precision,
                               const std::string& origin);

}  // namespace system_layer
}  // namespace ddlsim
