#include "predict/rests_on.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "cost/compute.hpp"
#include "cost/input_pipeline.hpp"
#include "cost/library_costs.hpp"
#include "cost/stragglers.hpp"

namespace ddlsim {
inline namespace predict_layer {

namespace {

const char* storage_name(Storage s) {
  switch (s) {
    case Storage::Memory: return "memory";
    case Storage::LocalSSD: return "local_ssd";
    case Storage::NFS: return "nfs";
    case Storage::Blob: return "blob";
  }
  return "?";
}

}  // namespace

std::string socket_transport_name(const Scenario& sc) {
  const ClusterDescription& c = sc.system.cluster;
  if (!c.socket_transport) return "";
  if (sc.execution.library == Library::Nccl)
    return fmt::format("NCCL's socket transport ({} NIC)", to_string(c.socket_nic));
  return fmt::format("{}'s TCP transport, one thread a rank", to_string(sc.execution.library));
}

std::vector<RestsOn> rests_on(const Scenario& sc) {
  std::vector<RestsOn> out;
  const auto add = [&](const char* key, std::string what) {
    if (sc.left_default(key)) out.push_back({key, std::move(what)});
  };
  const System& sys = sc.system;
  const Execution& e = sc.execution;
  const ComputeTuning& c = sys.compute;
  if (!c.calibration && c.measured_samples_per_s <= 0 && sc.left_default("compute.calibration") &&
      sc.left_default("compute.throughput"))
    out.push_back({"compute.calibration",
                   fmt::format("none: the roofline on the {}'s datasheet peaks (or compute.throughput, a measured "
                               "1-GPU rate)", sys.device.name)});
  if (e.format != DataFormat::Synthetic) {
    const StorageSpec& st = sys.storage;
    add("input.storage", storage_name(st.storage));
    const BytesPerSecond bw = st.bw_Bps > 0 ? st.bw_Bps : storage_kind(st.storage).bw_Bps;
    if (std::isfinite(bw)) add("input.storage_GBps", fmt::format("{:.4g} GB/s, the storage kind's", bw / kGB));
    add("input.sample_kb", fmt::format("{:.4g} KiB a stored sample", st.sample_bytes / kKiB));
    if (st.decoder == Decoder::Cpu) {
      add("input.cpu_cores", "not limiting: every GPU runs its input.loader_workers");
      add("input.decode_ms", fmt::format("{:.3g} ms an image, the loader measured on the build machine's core",
                                         st.decode_s * 1e3));
    }
  }
  if (sys.nodes > 1) {
    add("cluster.inter_bw_GBps", fmt::format("{:.4g} GB/s a rail, {}'s {}", sys.cluster.inter.bw_Bps / kGB,
                                             sys.cluster.name, sys.cluster.inter.name));
    add("cluster.inter_latency_us", fmt::format("{:.3g} us a hop", sys.cluster.inter.latency_s * 1e6));
    if (sys.cluster.socket_transport)
      add("cluster.tcp_thread_GBps",
          fmt::format("{:.3g} GB/s a CPU thread: {} moves at most {:.3g} GB/s a GPU across nodes",
                      sys.cluster.tcp_thread_Bps / kGB, socket_transport_name(sc), sys.cluster.transport_Bps() / kGB));
  }
  if (sys.cluster.gpus_per_node > 1)
    add("cluster.intra_bw_GBps", fmt::format("{:.4g} GB/s, {}'s {}", sys.cluster.intra.bw_Bps / kGB,
                                             sys.cluster.name, sys.cluster.intra.name));
  // Nodes of NVLink 3 or 4 count as NVSwitch boards; a board of four GPUs or fewer may join them
  // directly (HGX 4-GPU boards, GH200 nodes), with no NVLink SHARP or CollNet for NCCL.
  if (sys.cluster.gpus_per_node > 1 && sys.cluster.gpus_per_node <= 4 && sys.cluster.nvswitch() &&
      e.library == Library::Nccl)
    add("cluster.nvswitch", fmt::format("assumed: {}'s {} nodes share an NVSwitch; off where {} GPUs are joined "
                                        "directly",
                                        sys.cluster.name, sys.cluster.intra.name, sys.cluster.gpus_per_node));
  if (sys.cluster.gpus_per_node > 1 && sys.cluster.host_exchange_Bps > 0)
    add("comm.host_exchange_GBps",
        fmt::format("{:.3g} GB/s a rank through host memory inside a node, {}'s as measured on the build machine",
                    sys.cluster.host_exchange_Bps / kGB, to_string(e.library)));
  if (sys.ranks() > 1) {
    add("comm.per_call_us", fmt::format("{:.3g} us a call, {}'s default", default_per_call_s(e.library) * 1e6,
                                        to_string(e.library)));
    if (e.overlap) add("comm.interference", fmt::format("{:.3g}, {}'s default", default_interference(e.library),
                                                        to_string(e.library)));
    add("compute.jitter_cv", fmt::format("{:.3g}, a rank's step-to-step variation", jitter_cv(c)));
    add("compute.device_spread", fmt::format("{:.3g}, the speed spread between devices of one model", device_spread(c)));
    if (e.sharding != Sharding::None) {
      add("comm.bucket_mb", fmt::format("{:.4g} MiB of gradients a sharded unit (FSDP's wrap size)", e.bucket_bytes / kMiB));
      if (shards_parameters(e.sharding))
        add("comm.prefetch", e.prefetch_forward ? "forward+backward: the next unit's gather issued as one starts"
                                                : e.prefetch_backward ? "backward" : "none");
    }
  }
  const Seconds host = host_kernel_s(c, e.fw);
  if (host > 0 && c.host_step_s <= 0)
    add("compute.host_kernel_us", fmt::format("{:.3g} us of host time a layer kernel (PyTorch 2.11 on two lent GPU machines, measured)",
                                              host * 1e6));
  return out;
}

}  // namespace predict_layer
}  // namespace ddlsim
