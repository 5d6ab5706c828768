#include "cost/library_costs.hpp"

#include <algorithm>

#include "cost/collectives.hpp"
#include "cost/decision.hpp"
#include "system/platform.hpp"

namespace ddlsim {
inline namespace cost_layer {

// Mean slow-down of compute kernels overlapped with NCCL collectives on A100 and H100, over GPT
// and LLaMA training workloads: 18.9 % (max 40 %). Source: "Characterizing Compute-Communication
// Overlap in GPU-Accelerated Distributed Deep Learning: Performance and Power Implications",
// arXiv 2507.03114 (2025), abstract and section 5. Libraries that reduce in host memory (MPI
// without CUDA-aware buffers, gloo, gRPC parameter servers) run no kernels beside the backward
// pass: their copies use the copy engines, so 0 on a GPU.
double default_interference(Library l) { return l == Library::Nccl ? 0.189 : 0; }

// NCCL's own cost model gives each ring call a base latency of 8.4 us (Simple protocol) before
// any per-step hop latency: NVIDIA/nccl src/graph/tuning.cc, baseLat[Ring][Simple] (NCCL 2.4 to
// 2.18). The hop latencies are the links' own (system/platform.cpp). The host libraries' call
// costs are part of their fitted per-message latency (ddlsim netfit), so 0 here.
Seconds default_per_call_s(Library l) { return l == Library::Nccl ? nccl_tuning::kRingBaseLatency_s : 0; }

// Host-side reduction: Horovod on plain (not CUDA-aware) MPI copies each fused buffer to host
// memory and back (Horovod docs, "GPU operations": HOROVOD_GPU_OPERATIONS=MPI needs a CUDA-aware
// MPI); PyTorch's gloo backend copies CUDA tensors to pinned host memory, reduces, copies back
// (ProcessGroupGloo, AsyncAllreduceCUDAWork), each serial with its exchange. NCCL and GPI-2 (its
// GPU variant) work on device memory. TensorFlow's gRPC parameter servers also read host copies,
// but each variable is its own send whose device copy runs while the previous one is on the
// wire (the executor runs copies and RecvTensor calls concurrently): the copies pipeline behind
// the network instead of adding to it, so they are not staged here.

namespace {

BytesPerSecond host_link_Bps(const System& sys) {
  return find_link_kind("pcie" + std::to_string(sys.device.pcie_gen), "compute.device", LinkPlace::Intra).bw_Bps;
}

}  // namespace

Seconds LibraryCosts::nccl_residual_s(Bytes bytes, Collective c) const { return nccl_exchange(bytes, c).residual_s; }

LibraryCosts::NcclExchange LibraryCosts::nccl_exchange(Bytes bytes, Collective c) const {
  NcclExchange x;
  if (!nccl || c == Collective::Alltoall || nccl->topo.ranks() <= 1 || bytes <= 0) return x;
  const LibraryCall k = library_call(nccl->method, c, nccl->topo, bytes);
  x.rounds_s = collective_time_s(c, k.algorithm, k.topo, k.bytes);
  x.algorithm = k.algorithm;
  const bool modelled = k.algorithm == Algorithm::Ring || (k.algorithm == Algorithm::DoubleBinaryTree && c == Collective::Allreduce);
  if (!modelled) return x;
  // The estimate as for NCCL's own transports: a plugin's reported latency steers the choice only
  // (protocol.hpp net_step_s), so it is left out of the time as it is of the rounds.
  CommTopology own = nccl->topo;
  own.net_plugin_latency_s = 0;
  const Seconds estimate = nccl_model_time_s(k.algorithm, own, bytes, k.protocol, c);
  x.residual_s = std::max(0.0, estimate - per_call_s - x.rounds_s);
  return x;
}

LibraryCosts library_costs(const Execution& e, const System& sys, const CommTopology* topo) {
  const StepCostOverrides& o = e.step_costs;
  const bool cpu = sys.compute.cpu_ranks();
  LibraryCosts c;
  // A calibration file that measured the slow-down on its own device (ddlsim calibrate
  // --interference) beats the library's default; the scenario key beats both.
  const double measured = sys.compute.calibration ? sys.compute.calibration->interference : -1;
  c.interference = o.interference >= 0 ? o.interference
                   : measured >= 0     ? measured
                   : cpu               ? 0
                                       : default_interference(e.library);
  c.per_call_s = o.per_call_s >= 0 ? o.per_call_s : default_per_call_s(e.library);
  if (staged_through_host(o.staging, e.library, cpu)) c.staging_Bps = host_link_Bps(sys);
  if (topo && topo->nccl_protocols && e.library == Library::Nccl) c.nccl = LibraryCosts::NcclCalls{e.comm(), *topo};
  c.time_factor = o.exchange_time_factor;
  return c;
}

}  // namespace cost_layer
}  // namespace ddlsim
