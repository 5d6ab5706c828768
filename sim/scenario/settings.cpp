#include "scenario/settings.hpp"

#include <boost/program_options.hpp>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/text.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace scenario_layer {

const std::vector<KeySpec>& scenario_keys() {
  static const std::vector<KeySpec> keys = {
      {"model.name", "resnet50", "zoo model (see `ddlsim models`); ignored when model.file is set"},
      {"model.file", "", "model file, one layer a row (docs/model-file.md)"},
      {"model.input_size", "", "input height x width in pixels (N or HxW), a language model's sequence length; "
                               "default: the model's own"},
      {"model.channels", "", "input channels; default: the model's own (3)"},
      {"model.classes", "", "output classes, a language model's vocabulary; default: the model's own (1000)"},
      {"model.dropout", "", "transformers of the zoo: dropout rate in training (after the embeddings, on the "
                            "attention probabilities, on each sublayer's output); default: the model's own (BERT "
                            "and GPT-2 0.1 as Hugging Face's, ViT 0 as torchvision's)"},
      {"model.drop_path", "", "stochastic depth's rate at the last block of the zoo's EfficientNets, ConvNeXts and "
                              "Swins (any rate > 0 costs the same: one multiply a residual branch); default: the "
                              "layout's own (Keras and torchvision 0.2, ConvNeXt 0.1 to 0.5, Swin 0.2 to 0.5); "
                              "0 as timm's create_model"},
      {"model.precision", "fp32", "fp32, tf32 or mixed (FP16 tensor cores, FP32 master weights; fp16 and amp "
                                  "are other names for it); bf16 is costed as mixed, on Ampere and later GPUs"},
      {"training.framework", "horovod",
       "preset: horovod, pytorch_ddp, tf_mirrored, tf_custom_accum, tf_ps, lbann, tarantella, tf1_ps, "
       "tf1_replicated, tf1_distributed_replicated"},
      {"training.samples", "1281167", "training samples per epoch"},
      {"training.epochs", "1", "epochs"},
      {"training.batch_per_gpu", "64", "samples per GPU per step (micro-batch)"},
      {"training.sync_period", "", "allreduce every k micro-batches (gradient accumulation); preset"},
      {"training.optimizer", "momentum", "sgd, momentum or adam: update time and optimizer memory"},
      {"cluster.platform", "poti", "built-in platform (`ddlsim platform list`: tupi, poti, dgx1, dgx-a100, "
                                   "dgx-h100, aws-p4d-24xlarge, ...) or a SimGrid platform file NAME.xml"},
      {"cluster.nodes", "1", "nodes used; or a mixed cluster of built-in platforms' nodes NAME:COUNT, ... "
                              "(tupi:2, poti:1 or, in a sweep list, tupi:2+poti:1: each node its platform's GPU; links the "
                              "slowest of the groups')"},
      {"cluster.gpus_per_node", "", "GPUs used per node; default: all of the platform's"},
      {"cluster.nics", "", "inter-node NICs (rails) per node, aggregated into its uplink; platform"},
      {"cluster.intra", "", "intra-node link kind override (pcie3..5, nvlink1..4, nvlink-bridge)"},
      {"cluster.cpu", "", "host CPU family of a PCIe node (broadwell, skylake, ..., sapphire-rapids, epyc-rome, ..., "
                          "epyc-turin; `ddlsim platform list`): its root complex and socket link bound the GPUs' ring; "
                          "default: not described (the intra link alone); platform"},
      {"cluster.gpus_per_socket", "", "GPUs attached to each CPU socket (local ranks fill socket 0 first); needs "
                                      "cluster.cpu; default: all on one socket; platform"},
      {"cluster.gpus_per_switch", "", "GPUs behind one PCIe switch (peer-to-peer without the root complex); needs "
                                      "cluster.cpu; default 1 (each GPU on a root port); platform"},
      {"cluster.peer_to_peer", "", "auto, on or off: CUDA peer-to-peer between a node's GPUs over PCIe; default "
                                   "auto, the device's (GeForce RTX 30/40/50 have none). Off, NCCL routes every hop "
                                   "through the CPU: with cluster.cpu an Intel root complex costs 6/5, and the GPUs "
                                   "behind one PCIe switch share its uplink"},
      {"cluster.network_reduction", "none", "none or sharp: the InfiniBand switches reduce (SHARP), so NCCL can run "
                                           "collnet (CollNet Direct) across NVSwitch nodes; platform"},
      {"cluster.inter", "", "inter-node link kind override (1gbe .. 400gbe, 100gbe-tcp, ib-fdr .. ib-ndr)"},
      {"cluster.inter_bw_GBps", "", "inter-node effective bandwidth per direction, GB/s (decimal)"},
      {"cluster.inter_latency_us", "", "inter-node one-hop latency, microseconds"},
      {"cluster.intra_bw_GBps", "", "intra-node (GPU to node) effective bandwidth per direction, GB/s (decimal)"},
      {"cluster.intra_latency_us", "", "intra-node one-hop latency, microseconds"},
      {"comm.library", "", "nccl, mpi, gloo, gpi2 or grpc: what `auto` picks; preset"},
      {"comm.algorithm", "", "ring, rhd, rabenseifner, rd, tree, dbtree (NCCL's double binary tree), nvls (NVLink SHARP, one "
                              "node), nvls_tree (NVLS across nodes), collnet (CollNet Direct, SHARP), hierarchical, ps or auto "
                              "(the library's choice); preset"},
      {"comm.bucket_mb", "", "gradient bucket / fusion buffer, MiB; 0 = one packed exchange; preset"},
      {"comm.first_bucket_mb", "", "the first bucket's own cap, MiB (PyTorch DDP: 1); 0 = as the others; preset"},
      {"comm.overlap", "", "start each bucket when it fills during the backward pass; preset"},
      {"comm.interference", "", "compute slow-down while an exchange overlaps the backward pass, fraction; "
                                "default: the library's (nccl 0.189, host-staged libraries 0) or the calibration's"},
      {"comm.per_call_us", "", "fixed cost of one collective call, us; default: the library's (nccl 8.4, others 0)"},
      {"comm.host_staging", "auto", "auto, on or off: copy each bucket to host memory and back around the exchange "
                                    "(auto: mpi and gloo on a GPU)"},
      {"comm.gradient_dtype", "fp32", "fp32 or fp16: what each exchanged gradient element is. Mixed precision keeps "
                                      "FP32 master weights and gradients (PyTorch AMP, TF mixed_float16, Horovod "
                                      "without compression); fp16 for Horovod's Compression.fp16, DDP's "
                                      "fp16_compress_hook or pure FP16 training"},
      {"comm.cycle_time_ms", "", "framework coordination cycle before each exchange, ms; preset"},
      {"framework.mode", "", "eager (PyTorch: kernels launched one by one, optimizer kernels per tensor) or graph "
                             "(TensorFlow graph/XLA: one fused apply op per variable); preset"},
      {"framework.optimizer_launches", "per_tensor", "per_tensor, foreach or fused: how an eager framework's optimizer "
                                                   "launches its kernels (a loop over tensors: PyTorch 1.x; multi-tensor "
                                                   "foreach: PyTorch 2.x's default on CUDA; one fused kernel: "
                                                   "fused=True); a graph applies one op per variable"},
      {"framework.step_overhead_us", "", "host time of the training loop per micro-batch, us; default: eager 37 "
                                         "(PyTorch 1.13, measured), graph 0"},
      {"framework.buffer_copies", "", "none, per_tensor or batched: gradients copied into and out of each exchanged "
                                      "buffer (DDP buckets per tensor; Horovod fusion and TF packing batched); preset"},
      {"framework.negotiation", "", "on or off: a controller agrees on the ready tensors before each exchange (Horovod: "
                                    "two bit-vector allreduces over the host network); preset"},
      {"comm.ps_servers", "", "parameter servers (algorithm ps); default: one per node"},
      {"comm.nccl_protocol", "simple", "simple, auto (NCCL's tuning model picks LL, LL128 or Simple per call, by "
                                       "size: 40-54 % too fast at 4-16 MB on 8 A100s against published nccl-tests), "
                                       "ll or ll128 (NVLink only): NCCL_PROTO; comm.round_latency = network runs Simple"},
      {"comm.ring_steps", "pipelined", "pipelined (NCCL's rings across nodes, its double binary tree and its ring "
                                       "broadcast and reduce keep their steps in flight: a step waits only for its "
                                       "predecessor's data, 8 slots a connection; the tree's chain and tree phases "
                                       "overlap) or lockstep (every step lasts its slowest hop, the tree's phases "
                                       "follow each other: the earlier rule; MPI's and gloo's rings are always "
                                       "lockstep)"},
      {"comm.eager_limit_kib", "", "MPI: messages of up to this many KiB leave as soon as their sender posts them, "
                                   "without waiting for the receiver (Open MPI's btl_tcp_eager_limit, 64 KiB by "
                                   "default; matters where ranks reach a round at different times: the folds of "
                                   "recursive doubling, Rabenseifner and rhd, a binomial tree, on rank counts that "
                                   "are not powers of two); default: none"},
      {"comm.round_latency", "library", "library (a collective's rounds last at least the library's own per-step "
                                        "latency, NCCL's tuning.cc: 3.4 us NVLink, 5.7 us PCIe, 9.6 us network) or "
                                        "network (the links' latency only: the rule before this round)"},
      {"compute.device", "", "GPU model; default: the platform's"},
      {"compute.throughput", "", "measured single-GPU training throughput, samples/s (scales the model)"},
      {"compute.throughput_batch", "", "batch size of that measurement; default: training.batch_per_gpu"},
      {"compute.calibration", "", "calibration file from `ddlsim calibrate` (docs/calibration.md): measured "
                                  "per-layer times replace the compute model"},
      {"compute.memory_gib", "", "device memory, GiB, for the memory check; default: the device's (e.g. 16 for v100)"},
      {"compute.efficiency", "0.6", "best fraction of peak FLOP/s that large kernels reach"},
      {"compute.kernel_overhead_us", "5", "launch and framework cost per kernel, microseconds"},
      {"compute.half_efficiency_us", "20", "roofline: the length at peak of a kernel that reaches half of "
                                           "compute.efficiency, microseconds (each kernel with operations pays "
                                           "it / efficiency on top; calibration/torch/kernel_sweep.py measures a "
                                           "GPU's)"},
      {"compute.host_step_ms", "", "host time to issue one step (forward, backward, update) where the GPU is no "
                                   "bottleneck, ms: measure at a tiny batch (calibration/torch/step_profile.py); the "
                                   "GPU waits where it runs ahead of the host; replaces compute.host_kernel_us (0: "
                                   "no host time)"},
      {"compute.host_kernel_us", "", "or the host's time per layer kernel ddlsim counts (`ddlsim profile` prints "
                                     "them), us, the update at the optimizer's own host cost: a tiny-batch step's "
                                     "time over its kernels carries to other models and batches; default: eager "
                                     "frameworks 39.3 (PyTorch 2.11 on two lent GPU machines), graph 0; 0: none"},
      {"compute.winograd", "true", "roofline: FP32 3x3 stride-1 convolutions by Winograd, 2.25x fewer operations "
                                   "(cuDNN's autotuned choice; Lavin and Gray 2016)"},
      {"compute.op_traffic", "kernels", "roofline: kernels (each kind of layer's training kernels and their passes "
                                        "over memory, after PyTorch's ATen kernels; no gradient before the first "
                                        "layer with weights; autograd's gradient sums where an output feeds several "
                                        "layers), kernels_add_fork (the same with one gradient sum at each add "
                                        "instead: the previous rule) or uniform (one read of the input and one write "
                                        "of the output a kernel; the first rule)"},
      {"compute.attention", "fused", "roofline: fused (attention as one kernel each way, as PyTorch 2's "
                                     "scaled_dot_product_attention runs it: FlashAttention or memory-efficient "
                                     "attention; the scores are never stored) or math (two matrix products and a "
                                     "softmax over the stored scores: PyTorch 1.x, Keras' MultiHeadAttention)"},
      {"compute.nchw_batchnorm", "blocks", "roofline: blocks (channels-first FP16 batch norm as cuDNN runs it, a "
                                           "thread block a channel at 7.6 GB/s, two an SM, measured on an H100) or "
                                           "roofline (at the memory roofline like every memory-bound kernel)"},
      {"compute.fusion", "none", "roofline: none (every operation its own kernel: eager PyTorch, TensorFlow "
                                 "without XLA) or pointwise (each chain of elementwise operations one kernel each "
                                 "way: torch.compile, XLA)"},
      {"compute.mixed_activations", "autocast", "roofline, mixed precision: autocast (PyTorch AMP's op lists: layer "
                                               "norms, softmax and embeddings produce FP32, a residual add of FP16 and "
                                               "FP32 is FP32, an FP16 op fed FP32 casts it first) or fp16 (every "
                                               "activation FP16, no casts: Keras' mixed_float16, Apex O2, Megatron)"},
      {"compute.threads_per_rank", "1", "CPU ranks (a cpu calibration file): compute threads of each rank, as calibrated"},
      {"compute.node_cores", "", "CPU ranks: a node's cores, shared by its ranks' compute threads (more threads than "
                                 "cores slow compute in proportion); default: not limiting"},
      {"compute.memory_format", "nhwc", "roofline: nhwc (channels last: TensorFlow, NVIDIA's examples, PyTorch "
                                        "channels_last) or nchw (PyTorch's default): tensor-core convolutions then "
                                        "transpose their input and output"},
      {"compute.jitter_cv", "0", "run-to-run variation of a rank's forward + backward time (coefficient of "
                                 "variation, e.g. 0.02); each synchronisation waits for the slowest rank"},
      {"compute.device_spread", "", "speed spread between devices of one model (standard deviation, fraction): a "
                                    "synchronous step waits for the slowest device; default 0.0148 for GPUs (Sinha et "
                                    "al., SC22), 0 for CPU ranks of a cpu calibration"},
      {"input.storage", "local_ssd", "memory, local_ssd, nfs or blob"},
      {"input.format", "records", "synthetic, records (TFRecord-like shards) or files (one per sample)"},
      {"input.loader_workers", "4", "data-loader workers (CPU processes) per GPU"},
      {"input.decoder", "cpu", "cpu (loader workers decode) or dali (NVIDIA DALI decodes on the GPU)"},
      {"input.storage_GBps", "", "storage read bandwidth, GB/s: a node's (memory, local_ssd, blob) or the one "
                                 "server's that every node shares (nfs); default: the kind's (local_ssd 2, nfs 0.1175, "
                                 "blob 0.25)"},
      {"input.cpu_cores", "", "a node's CPU cores for loader workers, shared by its GPUs; default: not limiting"},
      {"input.sample_kb", "", "stored size of one sample, KiB; default: 110 for images of 64x64 pixels and more "
                              "(ImageNet's mean JPEG), 1 byte a value for smaller images, 4 bytes a value for "
                              "other inputs"},
      {"input.decode_ms", "", "decode and augment time of one sample on one worker, ms; default: the "
                              "framework's loader measured on one EPYC core: an ImageNet JPEG decoded (graph "
                              "0.87, eager 0.98 ms), then cropped, resized, flipped, normalised and, eager, "
                              "collated (0.38 / 1.14 ms at 224x224, scaled by pixels)"},
      {"simulation.backend", "analytic",
       "analytic (closed forms, no contention) or simgrid (SimGrid discrete-event simulation of every "
       "message on the platform: shared NICs and hierarchy show)"},
      {"simulation.fidelity", "fast",
       "simgrid backend: fast (simulate each distinct round of a collective once and scale) or full "
       "(every message); fast falls back to full on a platform file whose nodes differ"},
      {"simulation.timeout_s", "", "simgrid backend: deadline of one simulation, s; default: 60 s + 20 us per message"},
      {"network.model", "cm02",
       "simgrid backend network model: cm02 (max-min sharing, latency and bandwidth as written: "
       "link figures are already effective) or lv08 (SimGrid's TCP factors on top)"},
      {"network.crosstraffic", "false", "simgrid backend: model the TCP acks of each flow (SimGrid default: on)"},
      {"network.tcp_gamma", "0", "simgrid backend: TCP window cap, bytes (rate <= gamma / (2 latency)); 0 = none"},
      {"network.latency_factor", "", "simgrid backend: latency factor; default: the model's own (cm02 1, lv08 13.01)"},
      {"network.bandwidth_factor", "", "simgrid backend: bandwidth factor; default: the model's own (cm02 1, lv08 0.97)"},
  };
  return keys;
}

namespace {

po::options_description make_schema() {
  po::options_description desc;
  for (const auto& k : scenario_keys()) {
    desc.add_options()(k.key.c_str(), po::value<std::string>(), k.help.c_str());
    const std::string sweep_key = "sweep." + k.key;
    desc.add_options()(sweep_key.c_str(), po::value<std::string>(), "values to sweep, comma-separated");
  }
  return desc;
}

std::string read_file(const std::string& path) { return read_text_file(path, "scenario file"); }

// Maps each `section.key` of an INI text to its line, checking the syntax Boost accepts.
std::map<std::string, int> index_lines(const std::string& text, const std::string& file) {
  std::map<std::string, int> lines;
  std::istringstream in(text);
  std::string raw, section;
  for (int n = 1; std::getline(in, raw); ++n) {
    const std::string line = trim(raw.substr(0, raw.find('#')));
    if (line.empty() || line[0] == ';') continue;
    const std::string where = file + ":" + std::to_string(n) + ": ";
    if (line.front() == '[') {
      if (line.back() != ']' || line.size() < 3) throw InputError(where + "expected [section], got '" + clip(line) + "'");
      section = line.substr(1, line.size() - 2);
      if (section != trim(section) || section.empty())
        throw InputError(where + "expected [section] with no spaces inside the brackets, got '" + clip(line) + "'");
      if (section.back() == '.' || section.front() == '.')
        throw InputError(where + "expected [section] naming a group such as [comm], got '" + clip(line) + "'");
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos || trim(line.substr(0, eq)).empty())
      throw InputError(where + "expected 'key = value', got '" + clip(line) + "'");
    const std::string key = (section.empty() ? "" : section + ".") + trim(line.substr(0, eq));
    if (lines.count(key)) throw InputError(where + key + " is set twice (first on line " +
                                           std::to_string(lines[key]) + ")");
    lines[key] = n;
  }
  return lines;
}

template <class ParseFn>
po::parsed_options parse_or_throw(ParseFn parse, const std::map<std::string, int>& lines,
                                  const std::string& origin) {
  auto place_of = [&](const po::error_with_option_name& e) {
    std::string key = e.get_option_name();
    while (!key.empty() && key.front() == '-') key.erase(0, 1);
    key = key.substr(0, key.find('='));
    auto it = lines.find(key);
    return std::make_pair(key, it == lines.end() ? origin : origin + ":" + std::to_string(it->second));
  };
  try {
    return parse();
  } catch (const po::unknown_option& e) {
    const auto [key, place] = place_of(e);
    std::vector<std::string> keys;
    for (const auto& k : scenario_keys()) keys.push_back(k.key);
    throw InputError(place + ": unknown key '" + clip(key) + "' (see `ddlsim keys` for the scenario schema)" +
                     did_you_mean(key, keys));
  } catch (const po::error_with_option_name& e) {
    const auto [key, place] = place_of(e);
    const std::string form = origin == "command line" ? "--" + key + "=VALUE" : key + " = VALUE";
    throw InputError(place + ": " + key + ": " + e.what() + " (expected " + form + ")");
  } catch (const po::error& e) {
    throw InputError(origin + ": " + e.what());
  }
}

void put(ScenarioInput& input, const std::string& key, const std::string& value, const std::string& origin) {
  if (key.rfind("sweep.", 0) == 0) {
    const std::vector<std::string> values = split(value, ',');
    if (trim(value).empty()) throw InputError(origin + ": " + key + " lists no values");
    for (const auto& v : values)
      if (v.empty())
        throw InputError(origin + ": " + key + " = '" + clip(value) + "': an empty value between commas; "
                         "expected values separated by commas, e.g. 1, 2, 4");
    input.sweep[key.substr(6)] = values;
    input.sweep_origin[key.substr(6)] = origin;
  } else {
    input.settings[key] = Setting{trim(value), origin, false};
  }
}

// One scenario-format text (a file or an overlay) on top of what `input` holds.
void add_text(ScenarioInput& input, const po::options_description& schema, const std::string& text,
              const std::string& origin) {
  const std::map<std::string, int> lines = index_lines(text, origin);
  std::istringstream in(text);
  const po::parsed_options from_file =
      parse_or_throw([&] { return po::parse_config_file(in, schema, false); }, lines, origin);
  for (const auto& o : from_file.options) {
    const auto line = lines.find(o.string_key);  // the two readers agree; a disagreement still names the file
    put(input, o.string_key, o.value.empty() ? "" : o.value.front(),
        line == lines.end() ? origin : origin + ":" + std::to_string(line->second));
  }
}

void fill_defaults(ScenarioInput& input) {
  for (const auto& k : scenario_keys())
    if (!input.settings.count(k.key)) input.settings[k.key] = Setting{k.default_value, "default", true};
}

}  // namespace

ScenarioInput parse_scenario_text(const std::string& text, const std::string& origin) {
  ScenarioInput input;
  input.file = origin;
  add_text(input, make_schema(), text, origin);
  fill_defaults(input);
  return input;
}

ScenarioInput read_scenario(const std::string& file, const std::vector<std::string>& overrides) {
  return read_scenario(file, {}, overrides);
}

ScenarioInput read_scenario(const std::string& file, const std::vector<std::string>& overlays,
                            const std::vector<std::string>& overrides) {
  const po::options_description schema = make_schema();
  ScenarioInput input;
  input.file = file;

  po::parsed_options cli = parse_or_throw(
      [&] {
        // No prefix guessing: --framework.mod=eager is a mistyped key, not framework.mode.
        return po::command_line_parser(overrides)
            .options(schema)
            .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
            .run();
      },
      {}, "command line");
  for (const auto& s : cli.options)
    if (!s.unregistered && s.position_key >= 0)
      throw InputError("command line: unexpected argument '" + s.original_tokens.front() + "'");

  // The scenario file, then each overlay (same format) on top, then the command line.
  std::vector<std::string> files;
  if (!file.empty()) files.push_back(file);
  files.insert(files.end(), overlays.begin(), overlays.end());
  for (const auto& f : files) add_text(input, schema, read_file(f), f);
  std::set<std::string> given;
  for (const auto& o : cli.options) {
    if (o.value.size() != 1) throw InputError("command line: --" + o.string_key + " needs a value (--" + o.string_key + "=VALUE)");
    if (!given.insert(o.string_key).second)
      throw InputError("command line: --" + o.string_key + " is given twice (expected one value)");
    put(input, o.string_key, o.value.front(), "command line");
  }
  fill_defaults(input);
  return input;
}

std::string where(const Settings& s, const std::string& key) {
  auto it = s.find(key);
  if (it == s.end() || it->second.origin == "default") return key;
  if (it->second.origin == "command line") return "command line: --" + key;
  return it->second.origin + ": " + key;
}

}  // namespace scenario_layer
}  // namespace ddlsim
