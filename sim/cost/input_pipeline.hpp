// Input pipeline cost: reading and decoding one micro-batch per GPU. It runs ahead of the GPU
// (prefetch), so a step only waits for it when it is slower than the rest of the step.
#pragma once
#include "core/units.hpp"
#include "spec/execution.hpp"
#include "system/system.hpp"

namespace ddlsim {
inline namespace cost_layer {

struct StorageKind {
  BytesPerSecond bw_Bps;  // read bandwidth a node sees (NFS: the server's, shared by all nodes)
  Seconds file_latency_s; // open + first byte of one file
  bool shared;            // one server for the whole cluster
};

StorageKind storage_kind(Storage s);

// Time to produce one micro-batch of `batch` samples on one GPU of a cluster of `nodes` nodes
// with `gpus_per_node` GPUs:
//   read   = batch x gpus_per_node x sample_bytes / node_bw   (node_bw = bw / nodes if shared)
//   open   = batch x file_latency / workers                   (only with one file per sample)
//   decode = batch x decode_s / workers                       (decoder = cpu)
//          = 0                                                 (decoder = dali: decoded on the GPU, a
//                                                               cost inside the step's measured compute)
//   workers = min(loader_workers, (cpu_cores - busy_cores) / gpus_per_node)
//             (a node's cores are its GPUs', less those its communication threads keep busy:
//             system/socket_transport.hpp socket_busy_cores; at least 1)
//   time   = max(read, open + decode)   (reading and decoding proceed in parallel)
Seconds input_batch_s(const StorageSpec& st, DataFormat format, int workers, int batch, int nodes,
                      int gpus_per_node, int busy_cores = 0);

}  // namespace cost_layer
}  // namespace ddlsim
