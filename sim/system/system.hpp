// System input: the cluster, its node count, the device of every rank, how the device computes
// (roofline tuning, a measured throughput or a calibration) and where the training data lives.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "spec/framework.hpp"
#include "system/calibration.hpp"
#include "system/device.hpp"
#include "system/platform.hpp"

namespace ddlsim {
inline namespace system_layer {

enum class Storage { Memory, LocalSSD, NFS, Blob };
// Where images are decoded: on the host's CPU workers, or on the GPU (NVIDIA DALI with nvJPEG).
enum class Decoder { Cpu, Dali };

// Per-kernel costs inside CUDA graphs (framework.cuda_graphs), measured by
// calibration/torch/kernel_sweep.py on an H100 SXM replaying each kernel in a CUDA graph
// (calibration/measured/h100-kernel-sweep.csv): an FP16 add of 1,024 elements takes 1.53 us (the
// floor of a kernel, launch included), and a 64^3 FP16 GEMM 2.42 us, so the roofline's extra for a
// kernel with operations, half_efficiency / efficiency, is 0.89 us: 0.53 us at efficiency 0.6. No
// host time a kernel: the graph is launched once.
constexpr Seconds kGraphKernelOverhead_s = 1.53e-6;
constexpr Seconds kGraphHalfEfficiency_s = 0.53e-6;

struct ComputeTuning {
  // Best fraction of peak a large GEMM or convolution reaches, and the kernel length (at peak) that
  // reaches half of it (compute.efficiency, compute.half_efficiency_us): the first version's
  // figures, checked against DeepBench's published cuDNN convolutions (a 5x5 layer on a TitanX
  // Pascal: 0.588 measured, 0.568 modelled; docs/design.md, "An outside check of the convolution
  // roofline"). On an H100 cuBLAS's GEMMs reach 72-80 % of peak and half of it at about 2 us
  // ("An outside check on H100"): not taken, since the 20 us stands in for uncounted host time.
  double max_efficiency = 0.6;
  Seconds half_efficiency_work_s = 20e-6;
  double memory_efficiency = 0.8;     // fraction of memory bandwidth a streaming kernel reaches
  Seconds kernel_overhead_s = 5e-6;   // launch and framework cost per kernel
  Seconds host_step_s = 0;            // the host's time to issue one step (cost/host_dispatch.hpp); 0: none
  Seconds host_kernel_s = -1;         // ... or a layer kernel's (host_step_s wins); 0: none; < 0: the
                                      // framework's default (cost/host_dispatch.hpp)
  bool winograd = true;               // FP32 3x3 convolutions by Winograd (cost/compute.cpp)
  bool nchw = false;                  // activations channels-first: tensor-core convolutions transpose
  bool per_kind_traffic = true;       // each kind of layer's kernels and passes (cost/compute.cpp)
  bool fork_sums = true;              // ... and the gradient sums where a layer's output forks
  bool autocast = true;               // mixed precision's activation types by PyTorch's autocast
                                      // lists (cost/autocast.hpp), not FP16 throughout
  bool fused_attention = true;        // attention as one fused kernel each way (FlashAttention), not
                                      // matrix products and a softmax over stored scores
  bool bn_channel_blocks = true;      // channels-first FP16 batch norm a block a channel (cost/compute.cpp)
  bool pointwise_fusion = false;      // chains of pointwise layers as one kernel each way
                                      // (torch.compile, XLA: cost/fusion.hpp)
  double jitter_cv = -1;              // per-rank compute variation (cost/stragglers.hpp); < 0: default
  double device_spread = -1;          // speed spread between devices (cost/stragglers.hpp); < 0: default
  double time_factor = 1;             // every compute time times this: what an uncertainty range
                                      // sets (predict/uncertainty.hpp); no key
  int threads_per_rank = 1;           // CPU ranks: compute threads each (as calibrated)
  int node_cores = 0;                 // CPU ranks: a node's cores, shared by its ranks; 0 = not limiting
  double measured_samples_per_s = 0;  // single-GPU throughput measured by the user (0: none)
  int measured_batch = 0;             // batch size of that measurement
  // compute.calibration: per-layer times measured by `ddlsim calibrate` (null: none); the top tier.
  std::shared_ptr<const Calibration> calibration;
  std::string calibration_origin;     // the file, for messages

  // The ranks are CPU cores (a `cpu` calibration file): no GPU, no host apart from the device.
  bool cpu_ranks() const { return calibration && calibration->device_kind == "cpu"; }
};

// Default CPU time of one image on one loader worker (input.decoder = cpu) where input.decode_ms
// is not given: measured on the build machine, one core of its AMD EPYC, idle (round 16; median of
// three runs each). An input of 64 x 64 and more is an ImageNet-like JPEG (375 x 500, about 94
// KiB) decoded once, then cropped, resized, flipped and normalised to the model's input in
// proportion to its pixels; a smaller one is a raw array: no JPEG, the rest in proportion.
//   graph (tf.data's native ops): `ddlsim calibrate-input`, libjpeg-turbo: decode 0.872 ms,
//     the rest 0.382 ms at 224 x 224;
//   eager (a PyTorch DataLoader worker: PIL, torchvision's RandomResizedCrop, RandomHorizontalFlip,
//     ToTensor, Normalize, batches of 64 collated and handed to the main process):
//     calibration/torch/loader_cost.py: 2.119 ms an image through one worker, of which PIL's
//     decode 0.976 ms; the rest 1.143 ms at 224 x 224.
// Servers' cores may be slower: measure yours with either tool.
// How a dataset's images are stored (input.dataset): Auto takes an input of 64 x 64 and more as an
// ImageNet-like JPEG and a smaller one as raw values; Tiny ImageNet's are 64 x 64 JPEGs, which
// PIL decodes in 0.147 / 1.859 of an ImageNet-like one's time (calibration/measured/
// loader-jpeg-sizes.csv, loader_cost.py --jpeg-size 64x64, the same run: most of it fixed costs).
enum class StoredImage { Auto, ImagenetJpeg, TinyJpeg, Raw };
Seconds default_decode_s(FrameworkMode mode, int input_h, int input_w, StoredImage stored = StoredImage::Auto);

// An automatic augmentation policy after the standard crop and flip (input.augment): torchvision's
// on the crop, before ToTensor, as its ImageNet recipes run them (references/classification
// presets.py). Measured with torchvision 0.14 on one core of the build machine beside the standard
// transform (crop, flip, ToTensor, Normalize) in the same run (calibration/torch/augment_cost.py;
// calibration/measured/augment-cost.csv; augment_ratio: each policy's time over the standard's),
// since the machine's cores differ from day to day (that day's loader ran 2.3 to 2.7 times slower
// than default_decode_s's). A policy adds its ratio times
// default_decode_s's time besides decoding, in proportion to the pixels; `standard` adds none.
enum class Augment { Standard, AutoAugment, RandAugment, TrivialAugment, AugMix };
double augment_ratio(Augment a);
Seconds augment_s(Augment a, FrameworkMode mode, int input_h, int input_w);

struct StorageSpec {
  Storage storage = Storage::LocalSSD;
  Bytes sample_bytes = 0;        // stored size of one sample
  Seconds decode_s = 0;          // CPU decode + augment time of one sample on one worker
  Decoder decoder = Decoder::Cpu;
  int cpu_cores = 0;             // a node's cores for its GPUs' loader workers; 0 = not limiting
  BytesPerSecond bw_Bps = 0;     // storage read bandwidth (a node's, or a shared server's); 0 = the kind's
};

// Mixed clusters (cluster.nodes = tupi:2, poti:1): consecutive nodes of one built-in cluster each,
// in rank order.
struct NodeGroup {
  std::string cluster;  // built-in cluster name
  Device device;
  int nodes = 0;
};

struct System {
  ClusterDescription cluster;  // mixed: the first group's, with the slowest of the groups' links
  int nodes = 1;
  Device device;               // mixed: the first group's
  std::vector<NodeGroup> groups;  // mixed clusters only (empty: every node is `device`)
  ComputeTuning compute;
  StorageSpec storage;

  int ranks() const { return nodes * cluster.gpus_per_node; }
};

// One kind of rank: its device, and how much longer its host takes than the fastest rank host of a
// platform file (max speed / own speed; 1 on built-in clusters).
struct RankKind {
  Device device;
  double slowdown = 1;
};

// The distinct kinds of rank of a system, in order of first rank, and which kind each rank is
// (`of_rank` empty when there is one kind: every rank alike).
struct RankKinds {
  std::vector<RankKind> kinds;
  std::vector<int> of_rank;
  int kind_of(int rank) const { return of_rank.empty() ? 0 : of_rank[std::size_t(rank)]; }
};

// Node groups give a kind per distinct device; a platform file's host speeds (ranks as the SimGrid
// backend places them: the first gpus_per_node hosts of each node) a kind per distinct speed.
RankKinds rank_kinds(const System& sys);

// Where the ranks of `sys` are, with the cluster's routes, on `nodes` nodes of `gpus_per_node`.
CommTopology comm_topology(const System& sys, int nodes, int gpus_per_node, int ps_servers);

}  // namespace system_layer
}  // namespace ddlsim
