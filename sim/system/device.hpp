// System input: the accelerator of one rank, as datasheet peaks for the roofline compute model.
#pragma once
#include <string>
#include <vector>

#include "core/units.hpp"
#include "spec/precision.hpp"

namespace ddlsim {
inline namespace system_layer {

struct Device {
  std::string name;
  FlopsPerSecond peak_fp32 = 0;
  FlopsPerSecond peak_tf32 = 0;   // tensor-core TF32 (dense); = fp32 where there is none
  FlopsPerSecond peak_fp16 = 0;   // tensor-core FP16 with FP32 accumulate (dense)
  BytesPerSecond mem_bw_Bps = 0;
  Bytes memory_bytes = 0;         // device memory capacity (binary GiB as sold: "16 GB" HBM2 = 16 GiB)
  std::string source;             // where the figures come from
  int pcie_gen = 3;               // the host interface (PCIe generation, x16), same datasheets
  bool tensor_cores = true;       // Volta and later; K80 and P100 have none
  bool bf16 = false;              // BF16 tensor math: Ampere and later
  // CUDA peer-to-peer over PCIe: GeForce boards of the RTX 30, 40 and 50 series have none under
  // NVIDIA's driver (`nvidia-smi topo -p2p` reports GNS, "GPU not supported"): NCCL then routes
  // their traffic through host memory (docs/design.md "CPU sockets and PCIe switches").
  bool pcie_peer_to_peer = true;
  // Boards of two dies that share one power budget (the K80's two GK210): with both dies busy, a
  // die may run as slow as its base clock, this fraction of the boost clock the peaks assume (K80
  // datasheet: 560 of 875 MHz). 1 for a board of one die.
  double shared_board_clock_floor = 1;

  FlopsPerSecond peak(Precision p) const;
};

const std::vector<Device>& device_table();

// Streaming multiprocessors (one die), from NVIDIA's architecture whitepapers and datasheets; 0
// for a device the table does not list.
int streaming_multiprocessors(const std::string& device);
// Throws InputError naming `key` when the device is unknown.
const Device& find_device(const std::string& name, const std::string& key);

}  // namespace system_layer
}  // namespace ddlsim
