// Compute cost model: per-layer forward and backward time of one micro-batch on one GPU.
// Roofline per kernel: max(flops / (peak x efficiency(work)), bytes / (mem_bw x mem_eff)) plus a
// fixed launch overhead, where efficiency(work) = max_eff x work / (work + half_work) rises with
// kernel size (small kernels cannot fill the GPU). When the user measured a single-GPU throughput,
// every time is scaled so the modelled step matches it. A calibration file (compute.calibration,
// made by `ddlsim calibrate`) comes first: its measured per-layer times replace the model (between
// and beyond several measured batches by system/calibration.hpp's rule; from a single batch each
// layer follows the roofline's shape).
#pragma once
#include <string>
#include <vector>

#include "core/units.hpp"
#include "model/model.hpp"
#include "spec/optimizer.hpp"
#include "spec/execution.hpp"
#include "spec/framework.hpp"
#include "system/system.hpp"

namespace ddlsim {
inline namespace cost_layer {

struct LayerCost {
  Seconds fwd_s = 0;
  Seconds bwd_s = 0;
  double grad_elems = 0;  // trainable gradient elements (parameters) this layer exchanges
  int grad_tensors = 0;   // in how many tensors (model.hpp Layer::trainable_tensors)
  int norm_channels = 0;  // a batch norm's channels (its statistics, exchanged under model.sync_bn)
  int fwd_kernels = 0;    // kernels the layer launches forward and backward (the roofline's
  int bwd_kernels = 0;    // count; cost/host_dispatch.hpp spreads the host's time over them)
};

// CPU ranks sharing a node's cores (a `cpu` calibration file): when ranks x threads_per_rank
// exceed the node's cores, each compute thread gets cores / (ranks x threads) of a core, so compute
// takes max(1, ranks x threads / cores) times as long as the one rank alone that was calibrated.
// 1 for GPU compute or when node_cores is not given.
double host_contention(const ComputeTuning& t, int ranks_per_node);

struct ComputeProfile {
  std::vector<LayerCost> layers;  // in model order
  Seconds optimizer_s = 0;        // weight update after a synchronisation
  Seconds accumulate_s = 0;       // adding a micro-batch's gradients into the accumulator
  int optimizer_kernels = 0;      // the update's kernel launches
  Seconds optimizer_host_s = 0;   // the host's time to issue them (eager; cost/framework_costs.hpp)
  Seconds step_overhead_s = 0;    // the framework's host time per micro-batch (not scaled by scale_by)
  double scale = 1;               // factor applied from a measured throughput (1: none)
  int extrapolated_from_batch = 0;  // a calibration of this one batch, extrapolated with the
                                    // roofline's shape per layer (0: none)
  double host_wait_share = 0;     // the part of forward + backward + update the GPU waits for its host
                                  // (cost/host_dispatch.hpp; 0: none)
  void scale_by(double f);        // every compute time x f

  Seconds forward_s() const;
  Seconds backward_s() const;
  // Both passes' sums in one walk over the layers (each as forward_s() and backward_s() give it).
  struct Passes {
    Seconds forward_s = 0, backward_s = 0;
  };
  Passes passes() const;
  double gradient_elems() const;
};

// One kernel as the roofline prices it (ops/layer_ops.hpp names it): its time, cuDNN's
// channels-first transposes around it included (then 2 launches).
struct KernelTime {
  std::string name;
  bool backward = false;
  Seconds s = 0;
  int launches = 1;
};
struct LayerKernelTimes {
  std::string layer;
  std::vector<KernelTime> kernels;  // forward kernels, then backward, in launch order
};
// Every layer's kernels at `batch`, in model order, as the roofline prices them eager (kernel by
// kernel, before compute.fusion's chains, the host's floor or a measured throughput's scale).
std::vector<LayerKernelTimes> roofline_kernel_times(const Model& model, const Device& device, Precision precision,
                                                    int batch, const ComputeTuning& tuning,
                                                    const FrameworkSpec& fw = FrameworkSpec{});

// `optimizer` sets the update's memory traffic (spec/optimizer.hpp) and, with the framework's
// mode, its kernel launches; a measured throughput covers the framework's per-step overhead too,
// so the device's times are scaled to the measured step less that overhead.
// The host's time per layer kernel: given, else an eager framework's default on a GPU (none for
// CPU ranks of a `cpu` calibration: their host is the device).
Seconds host_kernel_s(const ComputeTuning& t, const FrameworkSpec& fw);

ComputeProfile compute_profile(const Model& model, const Device& device, Precision precision,
                               int batch, const ComputeTuning& tuning, Optimizer optimizer = Optimizer::Momentum,
                               const FrameworkSpec& fw = FrameworkSpec{});

}  // namespace cost_layer
}  // namespace ddlsim
