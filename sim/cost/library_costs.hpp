// What a communication library costs the step beyond the network time of its rounds
// (docs/design.md "Per-library step costs"):
//   * interference: while an exchange overlaps the backward pass, compute runs slower by this
//     fraction (NCCL's kernels occupy SMs and memory bandwidth);
//   * per-call overhead: a fixed cost of each collective call (launch, bookkeeping);
//   * host staging: a library that reduces in host memory copies each bucket device -> host
//     before and host -> device after the exchange, over the GPU's PCIe link, on the
//     communication stream's critical path.
// Defaults come from the library, the device and the calibration file; scenario keys override.
#pragma once
#include "core/units.hpp"
#include "spec/execution.hpp"
#include "system/system.hpp"

namespace ddlsim {
inline namespace cost_layer {

struct LibraryCosts {
  double interference = 0;     // compute slow-down while overlapped, fraction (0.2: 20 % slower)
  Seconds per_call_s = 0;      // per collective call
  BytesPerSecond staging_Bps = 0;  // host staging copy rate each way; 0: no staging

  // The copies around one exchange of `bytes`: there and back.
  Seconds staging_s(Bytes bytes) const { return staging_Bps > 0 ? 2 * bytes / staging_Bps : 0; }
};

// Defaults of library `l` on a GPU (no calibration, or a CUDA one).
double default_interference(Library l);
Seconds default_per_call_s(Library l);
bool stages_through_host(Library l);

LibraryCosts library_costs(const Execution& e, const System& sys);

}  // namespace cost_layer
}  // namespace ddlsim
