#include "system/device.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace ddlsim {
inline namespace system_layer {

namespace {
constexpr double T = kTera;
constexpr double G = kGB;
}  // namespace

FlopsPerSecond Device::peak(Precision p) const {
  switch (p) {
    case Precision::FP32: return peak_fp32;
    case Precision::TF32: return peak_tf32;
    case Precision::Mixed: return peak_fp16;
  }
  return peak_fp32;
}

// GeForce parts (Ada) run FP16 tensor math with FP32 accumulate at half the FP16-accumulate rate;
// the figures below are dense (no sparsity), boost clock. After the source: the host interface's
// PCIe generation (x16) from the same datasheets: Gen3 for K80/P100/V100/T4/RTX 2080 Ti, Gen4 for
// Ampere and Ada, Gen5 for H100; then whether it has tensor cores, and BF16 (Ampere and later:
// the Ampere, Ada, Hopper and Blackwell architecture whitepapers); last, whether the driver allows
// CUDA peer-to-peer over PCIe: not on GeForce RTX 30/40/50 boards (GNS in `nvidia-smi topo -p2p`
// on an RTX 5090 pair, noonghunna/club-3090 issue #1124; the RTX 4090's and 3090's PCIe P2P needs
// a patched kernel module, tinygrad/open-gpu-kernel-modules and aikitoria/open-gpu-kernel-modules,
// Puget Systems "Problems with RTX4090 MultiGPU"). The RTX 2080 Ti is left with it (no source).
const std::vector<Device>& device_table() {
  static const std::vector<Device> table = {
      {"rtx4090", 82.6 * T, 82.6 * T, 165.2 * T, 1008 * G, 24 * kGiB, "NVIDIA Ada whitepaper, RTX 4090", 4, true, true,
       false},
      {"rtx3090", 35.6 * T, 35.6 * T, 71 * T, 936 * G, 24 * kGiB,
       "NVIDIA Ampere GA102 whitepaper, RTX 3090 (tensor FP16 with FP32 accumulate, dense)", 4, true, true, false},
      {"rtx4070", 29.1 * T, 29.1 * T, 58.3 * T, 504 * G, 12 * kGiB, "NVIDIA Ada whitepaper, RTX 4070", 4, true, true,
       false},
      {"v100", 15.7 * T, 15.7 * T, 125 * T, 900 * G, 16 * kGiB, "V100 SXM2 16GB datasheet"},
      {"a100", 19.5 * T, 156 * T, 312 * T, 1555 * G, 40 * kGiB, "A100 SXM4 40GB datasheet", 4, true, true},
      {"a100-80gb", 19.5 * T, 156 * T, 312 * T, 2039 * G, 80 * kGiB, "A100 SXM4 80GB datasheet", 4, true, true},
      {"p100", 10.6 * T, 10.6 * T, 21.2 * T, 732 * G, 16 * kGiB, "P100 SXM2 datasheet (FP16 without tensor cores)", 3, false},
      {"k80", 4.37 * T, 4.37 * T, 4.37 * T, 240 * G, 12 * kGiB, "K80 datasheet, one of its two GK210 dies", 3, false,
       false, true, 560.0 / 875.0},
      {"h100", 67 * T, 494.7 * T, 989.4 * T, 3350 * G, 80 * kGiB, "H100 SXM5 datasheet (dense)", 5, true, true},
      {"v100-32gb", 15.7 * T, 15.7 * T, 125 * T, 900 * G, 32 * kGiB, "V100 SXM2 32GB datasheet"},
      {"v100-pcie", 14 * T, 14 * T, 112 * T, 900 * G, 16 * kGiB, "V100 PCIe 16GB datasheet"},
      {"a100-pcie", 19.5 * T, 156 * T, 312 * T, 1555 * G, 40 * kGiB, "A100 PCIe 40GB datasheet (dense)", 4, true, true},
      {"h100-pcie", 51 * T, 378 * T, 756 * T, 2000 * G, 80 * kGiB, "H100 PCIe datasheet (dense)", 5, true, true},
      {"l40s", 91.6 * T, 183 * T, 362 * T, 864 * G, 48 * kGiB, "L40S datasheet (dense)", 4, true, true},
      {"a10", 31.2 * T, 62.5 * T, 125 * T, 600 * G, 24 * kGiB, "A10 datasheet (dense)", 4, true, true},
      {"t4", 8.1 * T, 8.1 * T, 65 * T, 320 * G, 16 * kGiB, "T4 datasheet (Turing: no TF32; FP16 tensor, mixed)"},
      // RTX Blackwell whitepaper: 104.8 TFLOPS FP32; FP16 tensor 838 TFLOPS sparse = 419 dense with
      // FP16 accumulate, half of it with FP32 accumulate on GeForce parts; GDDR7 1792 GB/s; PCIe 5.
      {"rtx5090", 104.8 * T, 104.8 * T, 209.5 * T, 1792 * G, 32 * kGiB,
       "NVIDIA RTX Blackwell whitepaper, RTX 5090 (tensor FP16 with FP32 accumulate, dense)", 5, true, true, false},
      {"rtx2080ti", 13.4 * T, 13.4 * T, 53.8 * T, 616 * G, 11 * kGiB,
       "NVIDIA Turing TU102 whitepaper, RTX 2080 Ti (FP16 tensor with FP32 accumulate)"},
      // Datasheets list tensor rates with sparsity (*) beside the dense ones; these are dense.
      {"p100-pcie", 9.3 * T, 9.3 * T, 18.7 * T, 732 * G, 16 * kGiB, "Tesla P100 PCIe 16GB datasheet (FP16 without tensor cores)",
       3, false},
      {"v100s", 16.4 * T, 16.4 * T, 130 * T, 1134 * G, 32 * kGiB, "V100S PCIe datasheet"},
      {"a100-80gb-pcie", 19.5 * T, 156 * T, 312 * T, 1935 * G, 80 * kGiB, "A100 80GB PCIe datasheet (dense)", 4, true, true},
      {"a30", 10.3 * T, 82 * T, 165 * T, 933 * G, 24 * kGiB, "A30 datasheet (dense)", 4, true, true},
      {"a40", 37.4 * T, 74.8 * T, 149.7 * T, 696 * G, 48 * kGiB, "A40 datasheet (dense)", 4, true, true},
      {"l4", 30.3 * T, 60 * T, 121 * T, 300 * G, 24 * kGiB, "L4 datasheet (dense: half the sparse 120 / 242)", 4, true, true},
      {"h200", 67 * T, 494.7 * T, 989.4 * T, 4800 * G, 141 * kGiB, "H200 SXM datasheet (dense)", 5, true, true},
      {"rtx3080", 29.8 * T, 29.8 * T, 59.5 * T, 760 * G, 10 * kGiB,
       "NVIDIA Ampere GA102 whitepaper, RTX 3080 (tensor FP16 with FP32 accumulate, dense)", 4, true, true, false},
      {"rtx4080", 48.7 * T, 48.7 * T, 97.5 * T, 716.8 * G, 16 * kGiB,
       "NVIDIA Ada whitepaper, RTX 4080 (tensor FP16 with FP32 accumulate, dense)", 4, true, true, false},
  };
  return table;
}

int streaming_multiprocessors(const std::string& device) {
  // Kepler GK210 (K80: 13 a die), Pascal GP100 (P100 SXM2 and PCIe: 56), Volta GV100 (V100, V100S:
  // 80), Turing TU102 (RTX 2080 Ti: 68) and TU104 (T4: 40), Ampere GA100 (A100: 108; A30: 56) and
  // GA102 (RTX 3090: 82, 3080: 68, A40: 84, A10: 72), Ada AD102 (RTX 4090: 128, L40S: 142), AD103
  // (RTX 4080: 76), AD104 (RTX 4070: 46, L4: 58), Hopper GH100 (H100 and H200 SXM: 132, H100
  // PCIe: 114), Blackwell GB202 (RTX 5090: 170): the architecture whitepapers and product pages.
  static const std::vector<std::pair<std::string, int>> sms = {
      {"k80", 13},       {"p100", 56},      {"p100-pcie", 56},     {"v100", 80},      {"v100-32gb", 80},
      {"v100-pcie", 80}, {"v100s", 80},     {"rtx2080ti", 68},     {"t4", 40},        {"a100", 108},
      {"a100-80gb", 108}, {"a100-pcie", 108}, {"a100-80gb-pcie", 108}, {"a30", 56},   {"rtx3090", 82},
      {"rtx3080", 68},   {"a40", 84},       {"a10", 72},           {"rtx4090", 128},  {"l40s", 142},
      {"rtx4080", 76},   {"rtx4070", 46},   {"l4", 58},            {"h100", 132},     {"h200", 132},
      {"h100-pcie", 114}, {"rtx5090", 170}};
  for (const auto& [name, n] : sms)
    if (name == device) return n;
  return 0;
}

const Device& find_device(const std::string& name, const std::string& key) {
  const std::string n = to_lower(name);
  const auto& table = device_table();
  auto it = std::find_if(table.begin(), table.end(), [&](const Device& d) { return d.name == n; });
  if (it == table.end()) throw_unknown(key, name, "device", names_of(table, [](const Device& d) { return d.name; }));
  return *it;
}

}  // namespace system_layer
}  // namespace ddlsim
