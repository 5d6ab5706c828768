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
#include <optional>

#include "core/units.hpp"
#include "spec/comm.hpp"
#include "spec/execution.hpp"
#include "system/system.hpp"

namespace ddlsim {
inline namespace cost_layer {

struct LibraryCosts {
  double interference = 0;     // compute slow-down while overlapped, fraction (0.2: 20 % slower)
  Seconds per_call_s = 0;      // per collective call
  BytesPerSecond staging_Bps = 0;  // host staging copy rate each way; 0: no staging
  double time_factor = 1;      // the rounds, the call and NCCL's residual times this (an
                               // uncertainty range's, StepCostOverrides::exchange_time_factor)

  // With NCCL and its own latencies on: the calls' method and topology, so that a call lasts at
  // least NCCL's own estimate of it (nccl_residual_s).
  struct NcclCalls {
    CommMethod method;
    CommTopology topo;
  };
  std::optional<NcclCalls> nccl;

  // The copies around one exchange of `bytes`: there and back.
  Seconds staging_s(Bytes bytes) const { return staging_Bps > 0 ? 2 * bytes / staging_Bps : 0; }
  // What NCCL's own model (tuning.cc, the time ncclGroupSimulateEnd reports: decision.hpp
  // nccl_model_time_s) gives a ring or dbtree call of collective `c` beyond the call's cost and
  // the closed form of its rounds: NCCL's channels, chunks and tree corrections, which the rounds
  // do not model, as the library's own time (a network plugin's reported latency left out: it
  // steers NCCL's choice only). 0 for other algorithms, libraries, or where NCCL's latencies are off.
  Seconds nccl_residual_s(Bytes bytes, Collective c = Collective::Allreduce) const;

  // One exchange as NCCL's call runs it on `nccl`'s topology: the algorithm library_call chose,
  // the closed form of its rounds (collective_time_s of that call) and the residual above.
  // rounds_s < 0 where the residual needs no call (nccl_residual_s's zero cases).
  struct NcclExchange {
    Seconds rounds_s = -1;
    Seconds residual_s = 0;
    Algorithm algorithm = Algorithm::Ring;
  };
  NcclExchange nccl_exchange(Bytes bytes, Collective c = Collective::Allreduce) const;
};

// Defaults of library `l` on a GPU (no calibration, or a CUDA one).
double default_interference(Library l);
Seconds default_per_call_s(Library l);

// `topo`: the calls' ranks and routes (comm_topology), for NCCL's own estimate; null: none.
LibraryCosts library_costs(const Execution& e, const System& sys, const CommTopology* topo = nullptr);

}  // namespace cost_layer
}  // namespace ddlsim
