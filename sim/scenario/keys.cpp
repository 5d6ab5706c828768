// Every scenario key, declared once: its type, unit, default, allowed range or values, help text,
// and where `advise` and `map` may move it. Parsing (settings.cpp), the typed reads of resolve.cpp,
// `ddlsim keys` and docs/keys.md, and the planning commands' keys (plan/plan_keys.cpp) all come
// from this table. A new key is one entry here plus the code that uses its value.
#include <cmath>
#include <map>
#include <stdexcept>

#include "core/text.hpp"
#include "model/model.hpp"
#include "scenario/presets.hpp"
#include "scenario/settings.hpp"
#include "system/platform.hpp"
#include "system/system.hpp"
#include "system/variability.hpp"

namespace ddlsim {
inline namespace scenario_layer {

namespace {

KeySpec text(const char* key, const char* def, const char* help) {
  KeySpec k;
  k.key = key;
  k.default_value = def;
  k.help = help;
  return k;
}

KeySpec file(const char* key, const char* help) {
  KeySpec k = text(key, "", help);
  k.type = KeyType::File;
  return k;
}

KeySpec integer(const char* key, const char* def, long long min, long long max, const char* help) {
  KeySpec k = text(key, def, help);
  k.type = KeyType::Integer;
  k.min = double(min);
  k.max = double(max);
  return k;
}

// A real number in [min, max] (min_open: in (min, max]), in `unit` ("" for fractions and factors).
KeySpec real(const char* key, const char* def, double min, double max, const char* unit, const char* help,
             bool min_open = false) {
  KeySpec k = text(key, def, help);
  k.type = KeyType::Real;
  k.min = min;
  k.max = max;
  k.min_open = min_open;
  k.unit = unit;
  return k;
}

KeySpec choice(const char* key, const char* def, std::vector<std::string> values, const char* help) {
  KeySpec k = text(key, def, help);
  k.type = KeyType::Choice;
  k.choices = std::move(values);
  return k;
}

KeySpec flag(const char* key, const char* def, const char* help) {
  KeySpec k = text(key, def, help);
  k.type = KeyType::Bool;
  return k;
}

// Where the planning commands move a key: a numeric range (log-spaced or not) ...
KeySpec vary(KeySpec k, double lo, double hi, bool log = false) {
  k.vary = KeyRange{lo, hi, log, {}};
  return k;
}
// ... or a list of values (a choice's own when none is given).
KeySpec vary(KeySpec k, std::vector<std::string> values = {}) {
  k.vary = KeyRange{0, 0, false, values.empty() ? k.choices : std::move(values)};
  return k;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (const auto& p : framework_presets()) out.push_back(p.name);
  return out;
}

std::vector<std::string> cpu_names() {
  std::vector<std::string> out;
  for (const auto& k : cpu_kinds()) out.push_back(k.name);
  return out;
}

std::vector<std::string> link_names(bool intra) {
  std::vector<std::string> out;
  for (const auto& k : link_kinds()) {
    const bool is_intra = k.name.rfind("pcie", 0) == 0 || k.name.rfind("nvlink", 0) == 0;
    if (is_intra == intra) out.push_back(k.name);
  }
  return out;
}

// "2 x 8": NCCL's helper threads a connection and sockets a thread on `nic` (system/socket_transport.hpp).
std::string socket_threads_text(SocketNic nic) {
  const SocketThreads s = nccl_socket_threads(nic);
  return std::to_string(s.threads) + " x " + std::to_string(s.socks_per_thread);
}

std::string socket_nic_help() {
  return "the NIC as NCCL's socket transport tells it apart (TCP link kinds): its helper threads and sockets by "
         "default, aws-ena " + socket_threads_text(SocketNic::AwsEna) + ", gcp-gvnic " +
         socket_threads_text(SocketNic::GcpGvnic) +
         ", generic none (the proxy thread); default auto, the platform's (aws-ena on AWS's TCP instances)";
}

std::string host_exchange_help() {
  return "inside a node, what one rank of MPI or gloo moves per direction through host memory where it exchanges "
         "host buffers (host-staged GPU buffers, CPU ranks): bounds the routes between a node's GPUs; default the "
         "library's, measured on the build machine: mpi " + format_number(kMpiSharedMemory_Bps / 1e9) +
         " (shared memory), gloo " + format_number(kGlooLoopback_Bps / 1e9) + " (TCP over loopback)";
}

constexpr bool kLog = true;

// `digits` significant digits, for a help text.
double significant(double x, int digits) {
  const double scale = std::pow(10.0, digits - 1 - std::floor(std::log10(x)));
  return std::round(x * scale) / scale;
}

std::vector<KeySpec> declare_keys() {
  // The graph-measured costs as system.hpp holds them (the help outlives the call: a static).
  static const std::string graphs_help =
      "the step replays as CUDA graphs (torch.cuda.graphs, torch.compile's reduce-overhead mode, MLPerf's MXNet and "
      "PyTorch submissions): no host time a kernel, and the device's per-kernel costs as measured inside CUDA graphs "
      "on an H100 (calibration/measured/h100-kernel-sweep.csv) where compute.host_kernel_us, "
      "compute.kernel_overhead_us and compute.half_efficiency_us are not given: 0, " +
      format_number(kGraphKernelOverhead_s * 1e6) + " and " + format_number(kGraphHalfEfficiency_s * 1e6) + " us";
  // The GPUs' variation as system/variability.hpp holds it.
  static const std::string jitter_help =
      "step-to-step variation of a rank's forward + backward time (coefficient of variation): each synchronisation "
      "waits for the slowest rank; default " + format_number(kGpuStepJitterCv) +
      " for GPUs (the median of 43 steps measured on an H100 and an H200), 0 for CPU ranks of a cpu calibration";
  static const std::string device_spread_help =
      "speed spread between devices of one model (standard deviation, fraction): a synchronous step waits for the "
      "slowest device; default " + format_number(significant(kGpuDeviceSpread, 3)) +
      " for GPUs (Sinha et al., SC22), 0 for CPU ranks of a cpu calibration";
  // The policies' ratios as system.cpp holds them.
  static const std::string augment_help =
      "standard (the crop and flip input.decode_ms covers), autoaugment (ImageNet policy), randaugment (2 ops, "
      "magnitude 9), trivialaugment or augmix: an automatic policy on each crop, torchvision's, adding its CPU time a "
      "worker per image as measured with torchvision 0.14 beside the standard transform (" +
      format_number(significant(augment_ratio(Augment::AutoAugment), 2)) + ", " +
      format_number(significant(augment_ratio(Augment::RandAugment), 2)) + ", " +
      format_number(significant(augment_ratio(Augment::TrivialAugment), 2)) + " and " +
      format_number(significant(augment_ratio(Augment::AugMix), 2)) +
      " times the decode default's time besides decoding); with input.decoder = dali it runs on the GPU and is not "
      "charged";
  return {
      vary(text("model.name", "resnet50", "zoo model (see `ddlsim models`); ignored when model.file is set"),
           zoo_model_names()),
      file("model.file", "model file, one layer a row (docs/model-file.md)"),
      text("model.input_size", "", "input height x width in pixels (N or HxW), a language model's sequence length; "
                                   "default: the model's own"),
      integer("model.channels", "", 1, 4096, "input channels; default: the model's own (3)"),
      vary(integer("model.classes", "", 1, 10000000,
                   "output classes, a language model's vocabulary; default: the model's own (1000)"),
           2, 100000, kLog),
      real("model.dropout", "", 0, 0.99, "", "transformers of the zoo: dropout rate in training (after the "
           "embeddings, on the attention probabilities, on each sublayer's output); default: the model's own (BERT "
           "and GPT-2 0.1 as Hugging Face's, ViT 0 as torchvision's)"),
      real("model.drop_path", "", 0, 0.99, "", "stochastic depth's rate at the last block of the zoo's "
           "EfficientNets, ConvNeXts and Swins (any rate > 0 costs the same: one multiply a residual branch); "
           "default: the layout's own (Keras and torchvision 0.2, ConvNeXt 0.1 to 0.5, Swin 0.2 to 0.5); 0 as "
           "timm's create_model"),
      vary(flag("model.sync_bn", "false",
                "batch norms synchronised across the ranks (torch.nn.SyncBatchNorm.convert_sync_batchnorm): each "
                "one's statistics all-gathered in the forward pass and its gradient sums all-reduced in the "
                "backward, on the gradients' stream, the pass waiting for each"),
           {"false", "true"}),
      vary(text("model.precision", "fp32", "fp32, tf32 or mixed (FP16 tensor cores, FP32 master weights; fp16 and "
                                           "amp are other names for it); bf16 is costed as mixed, on Ampere and "
                                           "later GPUs"),
           {"fp32", "tf32", "mixed"}),
      vary(text("training.framework", "horovod",
                "preset: horovod, pytorch_ddp, tf_mirrored, tf_custom_accum, tf_ps, lbann, tarantella, tf1_ps, "
                "tf1_replicated, tf1_distributed_replicated"),
           preset_names()),
      vary(choice("training.recompute", "none", {"none", "full"},
                  "none or full: activations recomputed in the backward pass (torch.utils.checkpoint on every "
                  "block, Megatron-LM's full recomputation): each layer's forward kernels run again before its "
                  "backward ones, and only the blocks' inputs are kept (the memory estimate)")),
      vary(choice("training.sharding", "none",
                  {"none", "zero1", "zero2", "zero3", "fsdp_full", "fsdp_grad_op", "fsdp_hybrid"},
                  "model state sharded over the data-parallel ranks: none (replicated, DDP/Horovod), zero1 "
                  "(optimizer state and FP32 master weights), zero2 (+ gradients: reduce-scattered), zero3 and "
                  "fsdp_full (+ parameters: all-gathered unit by unit before the forward and the backward pass), "
                  "fsdp_grad_op (parameters gathered for the forward pass and kept through the backward), "
                  "fsdp_hybrid (fsdp_full inside a node, replicas across nodes all-reduce their shards); a unit "
                  "is comm.bucket_mb of parameters (FSDP's size-based wrap policy); fsdp_hybrid with the analytic backend "
                  "only")),
      vary(flag("training.no_sync", "false",
                "with gradient accumulation under an FSDP mode, the micro-batches between updates run under "
                "FSDP's no_sync(): whole gradients accumulate on each rank and are reduce-scattered once an "
                "update (Hugging Face Accelerate's and Trainer's way unless sync_each_batch); false: reduce-"
                "scattered every micro-batch into the rank's shard (PyTorch's default)"),
           {"false", "true"}),
      vary(integer("training.samples", "1281167", 1, 1000000000000LL, "training samples per epoch"), 1000, 1e9,
           kLog),
      vary(integer("training.epochs", "1", 1, 1000000, "epochs"), 1, 1000, kLog),
      vary(flag("training.drop_last", "false", "drop an epoch's last partial step (PyTorch's DataLoader and "
                                               "DistributedSampler drop_last=True, Keras' steps_per_epoch = "
                                               "samples // global batch): floor instead of ceil of samples / "
                                               "global batch steps"),
           {"false", "true"}),
      vary(integer("training.batch_per_gpu", "64", 1, 1000000, "samples per GPU per step (micro-batch)"), 1, 1024,
           kLog),
      vary(integer("training.sync_period", "", 1, 1000000, "allreduce every k micro-batches (gradient "
                                                           "accumulation); preset"),
           1, 64),
      vary(choice("training.optimizer", "momentum", {"sgd", "momentum", "adam"},
                  "sgd, momentum or adam: update time and optimizer memory")),
      text("cluster.platform", "poti", "built-in platform (`ddlsim platform list`: tupi, poti, dgx1, dgx-a100, "
                                       "dgx-h100, aws-p4d-24xlarge, ...) or a SimGrid platform file NAME.xml"),
      vary(integer("cluster.nodes", "1", 1, kMaxNodes,
                   "nodes used; or a mixed cluster of built-in platforms' nodes NAME:COUNT, ... (tupi:2, poti:1 "
                   "or, in a sweep list, tupi:2+poti:1: each node its platform's GPU; links the slowest of the "
                   "groups')"),
           1, 64),
      vary(integer("cluster.gpus_per_node", "", 1, kMaxGpusPerNode, "GPUs used per node; default: all of the "
                                                                     "platform's"),
           1, 64),
      vary(integer("cluster.nics", "", 1, 64, "inter-node NICs (rails) per node, aggregated into its uplink; "
                                              "platform"),
           1, 16),
      vary(text("cluster.intra", "", "intra-node link kind override (pcie3..5, nvlink1..4, nvlink-bridge)"),
           link_names(true)),
      vary(text("cluster.cpu", "", "host CPU family of a PCIe node (broadwell, skylake, ..., sapphire-rapids, "
                                   "epyc-rome, ..., epyc-turin; `ddlsim platform list`): its root complex and "
                                   "socket link bound the GPUs' ring; default: not described (the intra link "
                                   "alone); platform"),
           cpu_names()),
      vary(integer("cluster.gpus_per_socket", "", 1, kMaxGpusPerNode,
                   "GPUs attached to each CPU socket (local ranks fill socket 0 first); needs cluster.cpu; default: "
                   "all on one socket; platform"),
           1, 64),
      vary(integer("cluster.gpus_per_switch", "", 1, kMaxGpusPerNode,
                   "GPUs behind one PCIe switch (peer-to-peer without the root complex); needs cluster.cpu; "
                   "default 1 (each GPU on a root port); platform"),
           1, 64),
      choice("cluster.peer_to_peer", "", {"auto", "on", "off"},
             "auto, on or off: CUDA peer-to-peer between a node's GPUs over PCIe; default auto, the device's "
             "(GeForce RTX 30/40/50 have none). Off, NCCL routes every hop through the CPU: with cluster.cpu an "
             "Intel root complex costs 6/5, and the GPUs behind one PCIe switch share its uplink"),
      vary(choice("cluster.nvswitch", "auto", {"auto", "on", "off"},
                  "auto, on or off: the node's GPUs share an NVSwitch; auto: NVLink 3 and 4 nodes have one (HGX "
                  "8-GPU boards), NVLink 2 only above 8 GPUs. Off for NVLink boards that join their GPUs directly "
                  "(4-GPU HGX A100 and H100 boards, GH200 nodes): NCCL then runs no NVLink SHARP (nvls, nvls_tree) "
                  "and no CollNet Direct; platform")),
      vary(choice("cluster.network_reduction", "none", {"none", "sharp"},
                  "none or sharp: the InfiniBand switches reduce (SHARP), so NCCL can run collnet (CollNet Direct) "
                  "across NVSwitch nodes; platform")),
      vary(text("cluster.inter", "", "inter-node link kind override (1gbe .. 400gbe, 100gbe-tcp, ib-fdr .. ib-ndr)"),
           link_names(false)),
      vary(real("cluster.inter_bw_GBps", "", 1e-6, 1e6, "GB/s",
                "inter-node effective bandwidth per direction of one NIC (rail), GB/s (decimal); a node's "
                "uplink is cluster.nics of them, of which a job drives at most one a GPU it uses"),
           0.01, 1000, kLog),
      vary(real("cluster.inter_latency_us", "", 0, 1e9, "us", "inter-node one-hop latency, microseconds"), 0.1,
           100000, kLog),
      real("cluster.nccl_net_latency_us", "", 0, 1e6, "us",
           "latency NCCL's network plugin reports (ncclNetProperties.latency): NCCL's tuning model adds it to each "
           "network step when it picks an algorithm and protocol, twice with Simple; default the platform's: 0 (NCCL's own IB and socket transports), 75 on AWS p4d and p5, "
           "150 on other EFA instances (aws-ofi-nccl)"),
      real("cluster.net_eager_kib", "0", 0, 1e6, "KiB",
           "a network plugin's rendezvous threshold: NCCL's pipelined steps between nodes of more than this many "
           "KiB (a step's bytes over all its channels) pay cluster.net_rendezvous_us more on the link; no cited "
           "value (fit finds it from nccl-tests logs: fit --params ...,net_rendezvous)"),
      real("cluster.net_rendezvous_us", "0", 0, 1e6, "us",
           "a network plugin's rendezvous: what a network step above cluster.net_eager_kib holds the link for besides "
           "its bytes (libfabric providers' and GPUDirect-TCPXO's handshakes); 0: none"),
      choice("cluster.nccl_net_protocols", "", {"auto", "all", "simple"},
             "auto, all or simple: the protocols NCCL may run where its network plugin decides (simple: the plugin "
             "sets NCCL_PROTO=simple, as aws-ofi-nccl does on AWS p4d and p3dn); default auto, the platform's"),
      choice("cluster.socket_nic", "", {"auto", "generic", "aws-ena", "gcp-gvnic"}, socket_nic_help().c_str()),
      real("cluster.tcp_flow_GBps", "", 0, 1e6, "GB/s",
           "the most one TCP flow carries on the network (a cloud's per-flow limit; NCCL runs 2 connections "
           "a GPU, gloo and MPI one a peer), GB/s; 0: none; default "
           "the platform's: 1.25 on AWS's ENA (10 Gb/s inside a cluster placement group), else 0"),
      vary(real("cluster.tcp_thread_GBps", format_number(kTcpThread_Bps / 1e9).c_str(), 1e-6, 1e6, "GB/s",
                "what one CPU thread moves through TCP per direction while sending and receiving at once, GB/s: "
                "bounds NCCL's socket transport, gloo and MPI over TCP link kinds (docs/model.md, \"NCCL over TCP "
                "sockets\")"),
           0.1, 100, kLog),
      vary(real("cluster.intra_bw_GBps", "", 1e-6, 1e6, "GB/s",
                "intra-node (GPU to node) effective bandwidth per direction, GB/s (decimal)"),
           0.1, 10000, kLog),
      vary(real("cluster.intra_latency_us", "", 0, 1e9, "us", "intra-node one-hop latency, microseconds"), 0.1,
           100000, kLog),
      vary(text("comm.library", "", "nccl, mpi, gloo, gpi2 or grpc: what `auto` picks; preset"),
           {"nccl", "mpi", "gloo", "gpi2", "grpc"}),
      // nvls and nvls_tree only run on NVLink 4 nodes, collnet on SHARP fabrics: advise's --values asks
      // for them there.
      vary(text("comm.algorithm", "", "ring, rhd, rabenseifner, rd, tree, dbtree (NCCL's double binary tree), nvls "
                                      "(NVLink SHARP, one node), nvls_tree (NVLS across nodes), collnet (CollNet "
                                      "Direct, SHARP), hierarchical, ps or auto (the library's choice); preset"),
           {"ring", "rhd", "rabenseifner", "rd", "tree", "dbtree", "hierarchical", "ps", "auto"}),
      vary(real("comm.bucket_mb", "", 0, 1e6, "MiB", "gradient bucket / fusion buffer, MiB; 0 = one packed "
                                                     "exchange; preset"),
           0.25, 1024, kLog),
      real("comm.first_bucket_mb", "", 0, 1e6, "MiB", "the first bucket's own cap, MiB (PyTorch DDP: 1); 0 = as "
                                                      "the others; preset"),
      vary(flag("comm.overlap", "", "start each bucket when it fills during the backward pass; preset"),
           {"true", "false"}),
      real("comm.interference", "", 0, 10, "", "compute slow-down while an exchange overlaps the backward pass, "
                                               "fraction; default: the library's (nccl 0.189, host-staged "
                                               "libraries 0) or the calibration's"),
      integer("comm.nccl_socket_threads", "", 0, 16,
              "NCCL_SOCKET_NTHREADS: helper threads a connection of NCCL's socket transport (0: the proxy "
              "thread moves the data); default NCCL's choice for cluster.socket_nic"),
      integer("comm.nccl_socks_per_thread", "", 1, 64,
              "NCCL_NSOCKS_PERTHREAD: sockets each helper thread drives (threads x sockets at most 64, as NCCL "
              "clamps); default NCCL's choice for cluster.socket_nic"),
      real("comm.per_call_us", "", 0, 1e9, "us", "fixed cost of one collective call, us; default: the library's "
                                                 "(nccl 8.4, others 0)"),
      real("comm.time_p10", "", 0.01, 100, "", "10th percentile of measured / predicted exchange time where the "
                                               "links were fitted (`ddlsim fit` writes it beside them): the 80 % "
                                               "interval takes it and comm.time_p90 in place of the default "
                                               "spread; give both"),
      real("comm.time_p90", "", 0.01, 100, "", "90th percentile of measured / predicted exchange time where the "
                                               "links were fitted (see comm.time_p10)"),
      real("comm.host_exchange_GBps", "", 1e-6, 1e6, "GB/s", host_exchange_help().c_str()),
      choice("comm.host_staging", "auto", {"auto", "on", "off"},
             "auto, on or off: copy each bucket to host memory and back around the exchange (auto: mpi and gloo "
             "on a GPU)"),
      vary(choice("comm.gradient_dtype", "fp32", {"fp32", "fp16"},
                  "fp32 or fp16: what each exchanged gradient element is. Mixed precision keeps FP32 master "
                  "weights and gradients (PyTorch AMP, TF mixed_float16, Horovod without compression); fp16 for "
                  "Horovod's Compression.fp16, DDP's fp16_compress_hook or pure FP16 training")),
      vary(real("comm.cycle_time_ms", "", 0, 1e6, "ms", "framework coordination cycle before each exchange, ms; "
                                                        "preset"),
           0.01, 100, kLog),
      vary(choice("framework.mode", "", {"eager", "graph"},
                  "eager (PyTorch: kernels launched one by one, optimizer kernels per tensor) or graph "
                  "(TensorFlow graph/XLA: one fused apply op per variable); preset")),
      flag("framework.cuda_graphs", "false", graphs_help.c_str()),
      vary(choice("framework.optimizer_launches", "per_tensor", {"per_tensor", "foreach", "fused"},
                  "per_tensor, foreach or fused: how an eager framework's optimizer launches its kernels (a loop "
                  "over tensors: PyTorch 1.x; multi-tensor foreach: PyTorch 2.x's default on CUDA; one fused "
                  "kernel: fused=True); a graph applies one op per variable")),
      vary(choice("training.weight_decay", "none", {"none", "l2", "decoupled"},
                  "none, l2 or decoupled: weight decay as an eager optimizer applies it: l2 adds it to the gradient "
                  "(torch.optim SGD's and Adam's weight_decay: one more pass over each tensor unless fused), "
                  "decoupled shrinks the weights in place (AdamW; adam only); a fused update takes it for free; "
                  "eager only")),
      vary(choice("framework.zero_grad", "", {"zeros", "none"},
                  "zeros or none: how an eager training loop clears the gradients between updates: zeros "
                  "(optimizer.zero_grad(set_to_none=False), PyTorch 1.x's default: a fill per tensor in the update, "
                  "and autograd adds each new gradient into the zeroed one in backward, 12 bytes a parameter) or none "
                  "(set_to_none=True, PyTorch 2.x's default); default: zeros with framework.optimizer_launches = "
                  "per_tensor, else none; eager only")),
      vary(real("framework.step_overhead_us", "", 0, 1e7, "us", "host time of the training loop per micro-batch, "
                                                                "us; default: eager 37 (PyTorch 1.13, measured), "
                                                                "graph 0"),
           1, 100000, kLog),
      vary(choice("framework.buffer_copies", "", {"none", "per_tensor", "batched"},
                  "none, per_tensor or batched: gradients copied into and out of each exchanged buffer (DDP "
                  "buckets per tensor; Horovod fusion and TF packing batched); preset")),
      vary(choice("framework.negotiation", "", {"on", "off"},
                  "on or off: a controller agrees on the ready tensors before each exchange (Horovod: two "
                  "bit-vector allreduces over the host network); preset")),
      vary(integer("comm.ps_servers", "", 1, kMaxNodes, "parameter servers (algorithm ps); default: one per node"),
           1, 64),
      text("comm.nccl_protocol", "auto", "auto (NCCL's tuning model picks LL, LL128 or Simple per call, by size, "
                                         "as NCCL does with NCCL_PROTO unset), simple, ll or ll128 (NVLink only): "
                                         "NCCL_PROTO; comm.round_latency = network runs Simple"),
      vary(choice("comm.prefetch", "forward+backward", {"forward+backward", "backward", "none"},
                  "sharded modes (training.sharding): which passes issue a unit's parameter all-gather while the "
                  "unit before it computes: forward+backward (FSDP's BACKWARD_PRE with a host that runs ahead "
                  "of the GPU, or forward_prefetch; DeepSpeed ZeRO-3's prefetch), backward (forward gathers "
                  "issued where their unit starts), none (every gather where its unit starts)")),
      choice("comm.ring_steps", "pipelined", {"pipelined", "lockstep"},
             "pipelined (NCCL's rings across nodes, its double binary tree and its ring broadcast and reduce keep "
             "their steps in flight: a step waits only for its predecessor's data, 8 slots a connection; the "
             "tree's chain and tree phases overlap) or lockstep (every step lasts its slowest hop, the tree's "
             "phases follow each other; MPI's and gloo's rings are always lockstep)"),
      real("comm.eager_limit_kib", "", 0, 16.0 * 1024 * 1024, "KiB",
           "MPI: messages of up to this many KiB leave as soon as their sender posts them, without waiting for the "
           "receiver (Open MPI's btl_tcp_eager_limit, 64 KiB by default; matters where ranks reach a round at "
           "different times: the folds of recursive doubling, Rabenseifner and rhd, a binomial tree, on rank "
           "counts that are not powers of two); default: none"),
      choice("comm.round_latency", "library", {"library", "network"},
             "library (a collective's rounds last at least the library's own per-step latency, NCCL's tuning.cc: "
             "3.4 us NVLink, 5.7 us PCIe, 14.0 us network) or network (the links' latency only)"),
      text("compute.device", "", "GPU model; default: the platform's"),
      vary(real("compute.throughput", "", 1e-6, 1e12, "samples/s",
                "measured single-GPU training throughput, samples/s (scales the model)"),
           1, 1e6, kLog),
      integer("compute.throughput_batch", "", 1, 1000000,
              "batch size of that measurement; default: training.batch_per_gpu"),
      file("compute.calibration", "calibration file from `ddlsim calibrate` (docs/calibration.md): measured "
                                  "per-layer times replace the compute model"),
      real("compute.memory_gib", "", 1e-3, 1e6, "GiB",
           "device memory, GiB, for the memory check; default: the device's (e.g. 16 for v100)"),
      vary(real("compute.efficiency", "0.6", 1e-6, 1, "", "best fraction of peak FLOP/s that large kernels reach"),
           0.01, 1),
      vary(real("compute.kernel_overhead_us", "5", 0, 1e6, "us", "launch and framework cost per kernel, "
                                                                 "microseconds"),
           0.1, 1000, kLog),
      real("compute.half_efficiency_us", "20", 0, 1e6, "us",
           "roofline: the length at peak of a kernel that reaches half of compute.efficiency, microseconds (each "
           "kernel with operations pays it / efficiency on top; calibration/torch/kernel_sweep.py measures a "
           "GPU's)"),
      real("compute.host_step_ms", "", 0, 1e6, "ms",
           "host time to issue one step (forward, backward, update) where the GPU is no bottleneck, ms: measure "
           "at a tiny batch (calibration/torch/step_profile.py); the GPU waits where it runs ahead of the host; "
           "replaces compute.host_kernel_us (0: no host time)"),
      real("compute.host_kernel_us", "", 0, 1e6, "us",
           "or the host's time per layer kernel ddlsim counts (`ddlsim profile` prints them), us, the update at "
           "the optimizer's own host cost: a tiny-batch step's time over its kernels carries to other models and "
           "batches; default: eager frameworks 39.3 (PyTorch 2.11 on two lent GPU machines), graph 0; 0: none"),
      flag("compute.winograd", "true", "roofline: FP32 3x3 stride-1 convolutions by Winograd, 2.25x fewer "
                                       "operations (cuDNN's autotuned choice; Lavin and Gray 2016)"),
      choice("compute.op_traffic", "kernels", {"kernels", "kernels_add_fork", "uniform"},
             "roofline: kernels (each kind of layer's training kernels and their passes over memory, after "
             "PyTorch's ATen kernels; no gradient before the first layer with weights; autograd's gradient sums "
             "where an output feeds several layers), kernels_add_fork (the same with one gradient sum at each add "
             "instead) or uniform (one read of the input and one write of the output a kernel)"),
      choice("compute.attention", "fused", {"fused", "math"},
             "roofline: fused (attention as one kernel each way, as PyTorch 2's scaled_dot_product_attention runs "
             "it: FlashAttention or memory-efficient attention; the scores are never stored) or math (two matrix "
             "products and a softmax over the stored scores: PyTorch 1.x, Keras' MultiHeadAttention)"),
      choice("compute.nchw_batchnorm", "blocks", {"blocks", "roofline"},
             "roofline: blocks (channels-first FP16 batch norm as cuDNN runs it, a thread block a channel at 7.6 "
             "GB/s, two an SM, measured on an H100) or roofline (at the memory roofline like every memory-bound "
             "kernel)"),
      choice("compute.fusion", "none", {"none", "pointwise"},
             "roofline: none (every operation its own kernel: eager PyTorch, TensorFlow without XLA) or pointwise "
             "(each chain of elementwise operations one kernel each way: torch.compile, XLA)"),
      choice("compute.mixed_activations", "autocast", {"autocast", "fp16"},
             "roofline, mixed precision: autocast (PyTorch AMP's op lists: layer norms, softmax and embeddings "
             "produce FP32, a residual add of FP16 and FP32 is FP32, an FP16 op fed FP32 casts it first) or fp16 "
             "(every activation FP16, no casts: Keras' mixed_float16, Apex O2, Megatron)"),
      integer("compute.threads_per_rank", "1", 1, 1 << 16,
              "CPU ranks (a cpu calibration file): compute threads of each rank, as calibrated"),
      integer("compute.node_cores", "", 1, 1 << 16,
              "CPU ranks: a node's cores, shared by its ranks' compute threads (more threads than cores slow "
              "compute in proportion); default: not limiting"),
      choice("compute.memory_format", "nhwc", {"nhwc", "nchw"},
             "roofline: nhwc (channels last: TensorFlow, NVIDIA's examples, PyTorch channels_last) or nchw "
             "(PyTorch's default): tensor-core convolutions then transpose their input and output"),
      vary(real("compute.jitter_cv", "", 0, 1, "", jitter_help.c_str()),
           0, 1),
      vary(real("compute.device_spread", "", 0, 1, "", device_spread_help.c_str()),
           0, 1),
      vary(choice("input.storage", "local_ssd", {"memory", "local_ssd", "nfs", "blob"},
                  "memory, local_ssd, nfs or blob")),
      vary(choice("input.format", "records", {"synthetic", "records", "files"},
                  "synthetic, records (TFRecord-like shards) or files (one per sample)")),
      vary(integer("input.loader_workers", "4", 1, 1024, "data-loader workers (CPU processes) per GPU"), 1, 64),
      vary(choice("input.decoder", "cpu", {"cpu", "dali"},
                  "cpu (loader workers decode) or dali (NVIDIA DALI decodes on the GPU)")),
      vary(real("input.storage_GBps", "", 1e-6, 1e6, "GB/s",
                "storage read bandwidth, GB/s: a node's (memory, local_ssd, blob) or the one server's that every "
                "node shares (nfs); default: the kind's (local_ssd 2, nfs 0.1175, blob 0.25)"),
           0.001, 1000, kLog),
      vary(integer("input.cpu_cores", "", 1, 1 << 16,
                   "a node's CPU cores for loader workers, shared by its GPUs, less those a socket transport's "
                   "threads keep busy between nodes over TCP (NCCL 1 + helper threads a GPU, gloo 1); default: not "
                   "limiting"),
           1, 256, kLog),
      vary(real("input.sample_kb", "", 1e-3, 1e9, "KiB",
                "stored size of one sample, KiB; default: 110 for images of 64x64 pixels and more (ImageNet's "
                "mean JPEG), 1 byte a value for smaller images, 4 bytes a value for other inputs"),
           0.1, 100000, kLog),
      vary(choice("input.dataset", "custom", {"custom", "imagenet", "tinyimagenet", "cifar10", "cifar100"},
                  "custom, imagenet, tinyimagenet, cifar10 or cifar100: the dataset's image size (ImageNet: the "
                  "model's own), classes, training samples and stored sample as its description gives them "
                  "(scenario/datasets.cpp) where the scenario does not set them, and the loader decodes its kind of "
                  "image (ImageNet's and Tiny ImageNet's JPEGs, CIFAR's raw records)")),
      vary(choice("input.augment", "standard", {"standard", "autoaugment", "randaugment", "trivialaugment", "augmix"},
                  augment_help.c_str())),
      vary(real("input.decode_ms", "", 0, 1e6, "ms",
                "decode and standard augmentation time of one sample on one worker, ms (input.augment adds its "
                "policy's); default: the framework's loader "
                "measured on one EPYC core: an ImageNet JPEG decoded (graph 0.87, eager 0.98 ms), then cropped, "
                "resized, flipped, normalised and, eager, collated (0.38 / 1.14 ms at 224x224, scaled by pixels)"),
           0.01, 1000, kLog),
      choice("simulation.backend", "analytic", {"analytic", "simgrid"},
             "analytic (closed forms, no contention) or simgrid (SimGrid discrete-event simulation of every "
             "message on the platform: shared NICs and hierarchy show)"),
      choice("simulation.fidelity", "fast", {"fast", "full"},
             "simgrid backend: fast (simulate each distinct round of a collective once and scale; on two nodes "
             "of a built-in cluster where every node's rounds are alike: rings, hierarchical, power-of-two "
             "halving-doubling) or full (every message); fast falls back to full on a platform file whose nodes "
             "differ"),
      real("simulation.timeout_s", "", 0, 1e7, "s",
           "simgrid backend: deadline of one simulation, s; default: 60 s + 20 us per message", true),
      choice("network.model", "cm02", {"cm02", "lv08"},
             "simgrid backend network model: cm02 (max-min sharing, latency and bandwidth as written: link "
             "figures are already effective) or lv08 (SimGrid's TCP factors on top)"),
      flag("network.crosstraffic", "false", "simgrid backend: model the TCP acks of each flow (SimGrid default: on)"),
      real("network.tcp_gamma", "0", 0, 1e15, "B",
           "simgrid backend: TCP window cap, bytes (rate <= gamma / (2 latency)); 0 = none"),
      real("network.latency_factor", "", 1e-6, 1e6, "",
           "simgrid backend: latency factor; default: the model's own (cm02 1, lv08 13.01)"),
      real("network.bandwidth_factor", "", 1e-6, 1e6, "",
           "simgrid backend: bandwidth factor; default: the model's own (cm02 1, lv08 0.97)"),
  };
}

}  // namespace

const std::vector<KeySpec>& scenario_keys() {
  static const std::vector<KeySpec> keys = declare_keys();
  return keys;
}

const KeySpec& key_spec(const std::string& key) {
  static const std::map<std::string, const KeySpec*> by_name = [] {
    std::map<std::string, const KeySpec*> m;
    for (const KeySpec& k : scenario_keys()) m[k.key] = &k;
    return m;
  }();
  const auto it = by_name.find(key);
  if (it == by_name.end()) throw std::logic_error("scenario key '" + key + "' is not declared (scenario/keys.cpp)");
  return *it->second;
}

const char* to_string(KeyType t) {
  switch (t) {
    case KeyType::Text: return "text";
    case KeyType::File: return "file";
    case KeyType::Integer: return "integer";
    case KeyType::Real: return "number";
    case KeyType::Bool: return "true/false";
    case KeyType::Choice: return "choice";
  }
  return "text";
}

}  // namespace scenario_layer
}  // namespace ddlsim
