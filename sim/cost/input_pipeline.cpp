#include "cost/input_pipeline.hpp"

#include <algorithm>
#include <limits>

namespace ddlsim {
inline namespace cost_layer {

StorageKind storage_kind(Storage s) {
  switch (s) {
    case Storage::Memory: return {std::numeric_limits<double>::infinity(), 0, false};
    case Storage::LocalSSD: return {2.0e9, 100e-6, false};   // NVMe SSD
    case Storage::NFS: return {117.5e6, 1e-3, true};         // one NFS server behind 1 GbE
    case Storage::Blob: return {250e6, 30e-3, false};        // object storage over HTTP
  }
  return {2.0e9, 100e-6, false};
}

Seconds input_batch_s(const StorageSpec& st, DataFormat format, int workers, int batch, int nodes,
                      int gpus_per_node, int busy_cores) {
  if (format == DataFormat::Synthetic) return 0;
  StorageKind k = storage_kind(st.storage);
  if (st.bw_Bps > 0) k.bw_Bps = st.bw_Bps;
  const BytesPerSecond node_bw = k.shared ? k.bw_Bps / nodes : k.bw_Bps;
  const Seconds read = double(batch) * gpus_per_node * st.sample_bytes / node_bw;
  if (st.cpu_cores > 0) workers = std::max(1, std::min(workers, (st.cpu_cores - busy_cores) / gpus_per_node));
  const Seconds open = format == DataFormat::Files ? batch * k.file_latency_s / workers : 0;
  const Seconds decode = st.decoder == Decoder::Dali ? 0 : batch * st.decode_s / workers;
  return std::max(read, open + decode);
}

}  // namespace cost_layer
}  // namespace ddlsim
