#include "scenario/resolve.hpp"

#include <algorithm>
#include <stdexcept>

#include "calibration/calibration_file.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"
#include "engine/platform_reader.hpp"
#include "scenario/datasets.hpp"
#include "scenario/presets.hpp"

namespace ddlsim {
inline namespace scenario_layer {

namespace {

// Typed access to settings; each failure names the key, its origin and what was expected.
class Reader {
 public:
  explicit Reader(const Settings& s) : s_(s) {}

  const std::string& text(const std::string& key) const { return s_.at(key).value; }
  bool given(const std::string& key) const { return !text(key).empty(); }
  // Set by the scenario or the command line, not left at the schema's default.
  bool set_by_user(const std::string& key) const { return given(key) && s_.at(key).origin != "default"; }
  // A file named by `key`: relative to the scenario's folder when the scenario sets it, to the
  // working directory when the command line does.
  std::string path(const std::string& key, const std::string& base_dir) const {
    const std::string& p = text(key);
    if (p.front() == '/' || s_.at(key).origin == "command line") return p;
    return base_dir + "/" + p;
  }
  std::string where(const std::string& key) const { return ddlsim::where(s_, key); }

  [[noreturn]] void fail(const std::string& key, const std::string& expected) const {
    throw InputError(where(key) + " = '" + clip(text(key)) + "': expected " + expected);
  }

  // An integer within the key's declared bounds (scenario/keys.cpp), which keep every product of
  // counts inside 64-bit arithmetic.
  long long integer(const std::string& key) const {
    const KeySpec& k = spec(key, KeyType::Integer);
    const auto min = (long long)k.min, max = (long long)k.max;
    if (const auto v = parse_integer(text(key), min, max)) return *v;
    fail(key, (min == 1 ? std::string("a positive integer") : "an integer >= " + std::to_string(min)) +
                  " (at most " + std::to_string(max) + ")");
  }
  int small_int(const std::string& key) const { return int(integer(key)); }

  // A finite number within the key's declared bounds.
  double real(const std::string& key) const {
    const KeySpec& k = spec(key, KeyType::Real);
    if (const auto v = parse_real(text(key), k.min, k.max, k.min_open)) return *v;
    fail(key, "a number " + std::string(k.min_open ? "> " : ">= ") + format_number(k.min) + " and <= " +
                  format_number(k.max));
  }

  bool boolean(const std::string& key) const {
    spec(key, KeyType::Bool);
    const std::string t = to_lower(text(key));
    if (t == "true" || t == "yes" || t == "on" || t == "1") return true;
    if (t == "false" || t == "no" || t == "off" || t == "0") return false;
    fail(key, "true or false");
  }

  // One of the key's declared values, mapped by `options` (which must name exactly those).
  template <class T>
  T choice(const std::string& key, const std::vector<std::pair<std::string, T>>& options) const {
    const KeySpec& k = spec(key, KeyType::Choice);
    std::vector<std::string> names;
    for (const auto& o : options) names.push_back(o.first);
    if (names != k.choices) throw std::logic_error(key + ": the values read differ from those declared");
    return lookup(options, text(key), where(key));
  }

 private:
  static const KeySpec& spec(const std::string& key, KeyType type) {
    const KeySpec& k = key_spec(key);
    if (k.type != type) throw std::logic_error(key + " is read as " + to_string(type) + " but declared " +
                                               to_string(k.type));
    return k;
  }

  const Settings& s_;
};

// "64" or "64x48" (height x width).
std::pair<int, int> input_size(const Reader& r, const std::string& key) {
  if (const auto v = parse_size(r.text(key), 100000)) return *v;
  if (split(to_lower(r.text(key)), 'x').size() > 2) r.fail(key, "N or HxW, e.g. 224 or 224x224");
  r.fail(key, "N or HxW with integers from 1 to 100000");
}

Model resolve_model(const Reader& r, const std::string& base_dir) {
  if (r.given("model.file") && r.given("model.dropout"))
    r.fail("model.dropout", "no model.dropout with a model file (its lines take dropout=RATE)");
  if (r.given("model.file") && r.given("model.drop_path"))
    r.fail("model.drop_path", "no model.drop_path with a model file (stochastic depth is the zoo's)");
  if (r.given("model.file")) {
    const std::string path = r.path("model.file", base_dir);
    try {
      return load_model_file(path);
    } catch (const InputError& e) {
      throw InputError(r.where("model.file") + ": " + e.what());
    }
  }
  const std::string name = r.text("model.name");
  if (!is_zoo_model(name))
    r.fail("model.name", "a zoo model: " + names_of(zoo_model_names(), [](const std::string& n) { return n; }));
  ModelOptions opts = default_model_options(name);
  if (r.given("model.input_size")) std::tie(opts.input_h, opts.input_w) = input_size(r, "model.input_size");
  if (r.given("model.channels")) opts.input_c = r.small_int("model.channels");
  if (r.given("model.classes")) opts.classes = r.small_int("model.classes");
  if (r.given("model.dropout")) opts.dropout = r.real("model.dropout");
  if (r.given("model.drop_path")) opts.drop_path = r.real("model.drop_path");
  Model m;
  try {
    m = build_zoo_model(name, opts);
  } catch (const InputError& e) {
    const char* key = r.given("model.input_size") ? "model.input_size" : "model.name";
    throw InputError(r.where(key) + ": " + e.what());
  }
  const bool transformer = std::any_of(m.layers.begin(), m.layers.end(),
                                       [](const Layer& l) { return l.kind == LayerKind::Attention; });
  if (r.given("model.dropout") && !transformer)
    r.fail("model.dropout", "a transformer of the zoo (" + name + " has no dropout it sets)");
  const bool drop_path = std::any_of(m.layers.begin(), m.layers.end(), [](const Layer& l) { return l.per_sample; });
  if (r.given("model.drop_path") && !drop_path)
    r.fail("model.drop_path", "a zoo model with stochastic depth: EfficientNet, EfficientNetV2, ConvNeXt, Swin (" +
                                  name + " has none)");
  return m;
}

StepCostOverrides resolve_step_costs(const Reader& r) {
  StepCostOverrides o;
  if (r.given("comm.interference")) o.interference = r.real("comm.interference");
  if (r.given("comm.per_call_us")) o.per_call_s = r.real("comm.per_call_us") * 1e-6;
  if (r.given("comm.time_p10") != r.given("comm.time_p90"))
    r.fail(r.given("comm.time_p10") ? "comm.time_p10" : "comm.time_p90",
           "comm.time_p10 and comm.time_p90 together (the two ends of a fitted spread)");
  if (r.given("comm.time_p10")) {
    o.time_p10 = r.real("comm.time_p10");
    o.time_p90 = r.real("comm.time_p90");
    if (o.time_p10 > o.time_p90) r.fail("comm.time_p10", "at most comm.time_p90");
  }
  o.staging = r.choice<HostStaging>("comm.host_staging", {{"auto", HostStaging::Auto},
                                                            {"on", HostStaging::On},
                                                            {"off", HostStaging::Off}});
  return o;
}

FrameworkSpec resolve_framework(const Reader& r, const FrameworkPreset& preset) {
  FrameworkSpec f;
  f.mode = r.given("framework.mode")
               ? r.choice<FrameworkMode>("framework.mode", {{"eager", FrameworkMode::Eager}, {"graph", FrameworkMode::Graph}})
               : preset.mode;
  f.copies = r.given("framework.buffer_copies")
                 ? r.choice<BufferCopies>("framework.buffer_copies", {{"none", BufferCopies::None},
                                                                       {"per_tensor", BufferCopies::PerTensor},
                                                                       {"batched", BufferCopies::Batched}})
                 : preset.copies;
  f.negotiates = r.given("framework.negotiation")
                     ? r.choice<bool>("framework.negotiation", {{"on", true}, {"off", false}})
                     : preset.negotiates;
  f.recompute = r.choice<bool>("training.recompute", {{"none", false}, {"full", true}});
  f.optimizer_launches = r.choice<OptimizerLaunches>("framework.optimizer_launches",
                                                     {{"per_tensor", OptimizerLaunches::PerTensor},
                                                      {"foreach", OptimizerLaunches::Foreach},
                                                      {"fused", OptimizerLaunches::Fused}});
  if (f.mode == FrameworkMode::Graph && f.optimizer_launches != OptimizerLaunches::PerTensor)
    throw InputError(r.where("framework.optimizer_launches") + ": framework.optimizer_launches = " +
                     r.text("framework.optimizer_launches") +
                     " needs an eager framework (framework.mode = eager); a graph applies one op per variable");
  // PyTorch 1.x's defaults go together (per-tensor loops, zero_grad(set_to_none=False)), as do 2.x's.
  f.zeroes_gradients = r.given("framework.zero_grad")
                           ? r.choice<bool>("framework.zero_grad", {{"zeros", true}, {"none", false}})
                           : f.mode == FrameworkMode::Eager && f.optimizer_launches == OptimizerLaunches::PerTensor;
  if (f.mode == FrameworkMode::Graph && f.zeroes_gradients)
    throw InputError(r.where("framework.zero_grad") +
                     ": framework.zero_grad = zeros needs an eager framework (framework.mode = eager); a graph "
                     "writes each step's gradients afresh");
  f.weight_decay = r.choice<WeightDecay>("training.weight_decay", {{"none", WeightDecay::None},
                                                                  {"l2", WeightDecay::L2},
                                                                  {"decoupled", WeightDecay::Decoupled}});
  if (f.mode == FrameworkMode::Graph && f.weight_decay != WeightDecay::None)
    throw InputError(r.where("training.weight_decay") + ": training.weight_decay = " + r.text("training.weight_decay") +
                     " is modelled for eager frameworks (framework.mode = eager) only: TensorFlow adds an L2 term "
                     "to the loss and MXNet's update kernel takes it, neither of which ddlsim counts");
  if (r.given("framework.step_overhead_us")) f.step_overhead_s = r.real("framework.step_overhead_us") * 1e-6;
  return f;
}

Execution resolve_execution(const Reader& r, int nodes) {
  const FrameworkPreset& preset = find_preset(r.text("training.framework"), r.where("training.framework"));
  Execution e;
  e.framework = preset.name;
  e.precision = parse_precision(r.text("model.precision"), r.where("model.precision"));
  e.batch_per_gpu = r.small_int("training.batch_per_gpu");
  e.samples = r.integer("training.samples");
  e.epochs = r.small_int("training.epochs");
  e.drop_last = r.boolean("training.drop_last");
  e.sync_period = r.given("training.sync_period") ? r.small_int("training.sync_period") : preset.sync_period;
  e.optimizer = r.choice<Optimizer>("training.optimizer", {{"sgd", Optimizer::Sgd},
                                                          {"momentum", Optimizer::Momentum},
                                                          {"adam", Optimizer::Adam}});
  e.library = r.given("comm.library") ? parse_library(r.text("comm.library"), r.where("comm.library")) : preset.library;
  e.algorithm = r.given("comm.algorithm") ? parse_algorithm(r.text("comm.algorithm"), r.where("comm.algorithm"))
                                          : preset.algorithm;
  e.protocol = parse_protocol(r.text("comm.nccl_protocol"), r.where("comm.nccl_protocol"));
  e.ring_steps_in_flight = r.choice<bool>("comm.ring_steps", {{"pipelined", true}, {"lockstep", false}});
  if (r.given("comm.eager_limit_kib")) {
    e.eager_limit_bytes = r.real("comm.eager_limit_kib") * 1024;
    if (e.library != Library::Mpi)
      r.fail("comm.eager_limit_kib", "comm.library = mpi (eager sends are MPI's; NCCL and gloo wait for the receiver)");
  }
  if (e.algorithm == Algorithm::Pairwise)
    r.fail("comm.algorithm", "an allreduce algorithm (pairwise runs all-to-all; see `ddlsim collective`)");
  e.bucket_bytes = (r.given("comm.bucket_mb") ? r.real("comm.bucket_mb") : preset.bucket_mib) * kMiB;
  e.first_bucket_bytes = (r.given("comm.first_bucket_mb") ? r.real("comm.first_bucket_mb")
                                                           : preset.first_bucket_mib) * kMiB;
  e.step_costs = resolve_step_costs(r);
  e.gradient_dtype = r.choice<GradientDtype>("comm.gradient_dtype", {{"fp32", GradientDtype::FP32},
                                                                    {"fp16", GradientDtype::FP16}});
  e.overlap = r.given("comm.overlap") ? r.boolean("comm.overlap") : preset.overlap;
  e.sync_batchnorm = r.boolean("model.sync_bn");
  if (e.sync_batchnorm && e.algorithm == Algorithm::ParameterServer)
    throw InputError(r.where("model.sync_bn") + ": synchronised batch norms all-gather and all-reduce among the "
                     "workers, which need a collective library's algorithm (comm.algorithm is ps)");
  e.sharding = r.choice<Sharding>("training.sharding",
                                  {{"none", Sharding::None}, {"zero1", Sharding::Zero1}, {"zero2", Sharding::Zero2},
                                   {"zero3", Sharding::Zero3}, {"fsdp_full", Sharding::FsdpFull},
                                   {"fsdp_grad_op", Sharding::FsdpGradOp}, {"fsdp_hybrid", Sharding::FsdpHybrid}});
  const int prefetch = r.choice<int>("comm.prefetch", {{"forward+backward", 2}, {"backward", 1}, {"none", 0}});
  e.prefetch_forward = prefetch == 2;
  e.prefetch_backward = prefetch >= 1;
  e.no_sync = r.boolean("training.no_sync");
  if (e.no_sync && !is_fsdp(e.sharding))
    r.fail("training.no_sync", "training.sharding fsdp_full, fsdp_grad_op or fsdp_hybrid (FSDP's no_sync(); DeepSpeed "
                               "refuses it under ZeRO-2 and -3, ZeRO-1 reduces once an update anyway, and "
                               "replicated data parallelism accumulates without exchanging already)");
  if (e.sharding != Sharding::None) {
    if (e.algorithm == Algorithm::ParameterServer)
      r.fail("training.sharding", "a collective library's algorithm (sharded state is reduce-scattered and "
                                  "all-gathered among the ranks; comm.algorithm is ps)");
    if (e.sync_batchnorm) r.fail("training.sharding", "model.sync_bn = false (the two are not modelled together)");
  }
  e.cycle_time_s = (r.given("comm.cycle_time_ms") ? r.real("comm.cycle_time_ms") : preset.cycle_time_ms) * 1e-3;
  e.ps_servers = r.given("comm.ps_servers") ? r.small_int("comm.ps_servers") : nodes;
  e.format = r.choice<DataFormat>("input.format", {{"synthetic", DataFormat::Synthetic},
                                                   {"records", DataFormat::Records},
                                                   {"files", DataFormat::Files}});
  e.loader_workers = r.small_int("input.loader_workers");
  e.fw = resolve_framework(r, preset);
  if (e.fw.weight_decay == WeightDecay::Decoupled && e.optimizer != Optimizer::Adam)
    r.fail("training.weight_decay", "none or l2 with training.optimizer = " + std::string(to_string(e.optimizer)) +
                                        " (decoupled weight decay is AdamW's)");
  // A sharded optimizer keeps the gradients itself: FSDP frees the unsharded ones after each
  // reduce-scatter (torch 1.13 fsdp/flat_param.py FlatParamHandle.prepare_gradient: flat_param.grad = None)
  // and DeepSpeed's engine clears them; the training loop's zero_grad does not reach them.
  if (e.sharding != Sharding::None) {
    if (r.given("framework.zero_grad") && e.fw.zeroes_gradients)
      r.fail("framework.zero_grad", "none with training.sharding (a sharded optimizer keeps the gradients itself)");
    e.fw.zeroes_gradients = false;
  }
  return e;
}

bool is_platform_file(const std::string& name) {
  return name.size() >= 4 && to_lower(name.substr(name.size() - 4)) == ".xml";
}

// cluster.nodes = NAME:COUNT, ... (a mixed cluster: consecutive nodes of built-in clusters, in rank
// order); nothing for a plain count, which keeps its meaning.
std::vector<NodeGroup> node_groups(const Reader& r) {
  const std::string key = "cluster.nodes";
  if (r.text(key).find(':') == std::string::npos) return {};
  if (is_platform_file(r.text("cluster.platform")))
    r.fail(key, "a node count with a platform file (" + r.where("cluster.platform") + " describes its own nodes; "
                "hosts of different speeds in it make a mixed cluster)");
  const std::string form = "a node count, or groups of built-in platforms' nodes NAME:COUNT, ... (e.g. tupi:2, poti:1 "
                           "or tupi:2+poti:1)";
  std::vector<NodeGroup> groups;
  long long total = 0;
  std::string text = r.text(key);  // '+' separates groups too, so a sweep list can hold them
  std::replace(text.begin(), text.end(), '+', ',');
  for (const std::string& item : split(text, ',')) {
    const auto parts = split(item, ':');
    if (parts.size() != 2 || parts[0].empty()) r.fail(key, form);
    const ClusterDescription& c = find_cluster(parts[0], r.where(key));
    const auto count = parse_integer(parts[1], 1, kMaxNodes);
    if (!count) r.fail(key, form + " with counts from 1 to " + std::to_string(kMaxNodes) + " ('" + clip(item) + "')");
    if (c.max_nodes > 0 && *count > c.max_nodes)
      r.fail(key, "at most " + std::to_string(c.max_nodes) + " nodes of platform " + c.name + " ('" + clip(item) + "')");
    total += *count;
    if (total > kMaxNodes) r.fail(key, "at most " + std::to_string(kMaxNodes) + " nodes in all");
    groups.push_back({c.name, find_device(c.device, r.where(key)), int(*count)});
  }
  return groups;
}

// The slower of two links (lower bandwidth; the higher latency of the two).
LinkKind slower_link(const LinkKind& a, const LinkKind& b) {
  LinkKind out = b.bw_Bps < a.bw_Bps ? b : a;
  out.latency_s = std::max(a.latency_s, b.latency_s);
  return out;
}

// A node's GPU link as its ring through the node sees it (ClusterDescription::gpu_path_Bps).
LinkKind gpu_link(const ClusterDescription& c) {
  LinkKind k = c.intra;
  k.bw_Bps = c.gpu_path_Bps();
  return k;
}

// A mixed cluster's description: the first group's, with each link the slowest of the groups' (a
// ring through every node runs at its slowest hop) and the fewest NICs. The groups' nodes must have
// as many GPUs each unless cluster.gpus_per_node says how many to use.
ClusterDescription mixed_cluster(const Reader& r, const std::vector<NodeGroup>& groups) {
  ClusterDescription c = find_cluster(groups.front().cluster, r.where("cluster.nodes"));
  std::string name;
  for (const NodeGroup& g : groups) {
    const ClusterDescription& other = find_cluster(g.cluster, r.where("cluster.nodes"));
    if (other.gpus_per_node != c.gpus_per_node && !r.given("cluster.gpus_per_node"))
      r.fail("cluster.nodes", "groups whose nodes have as many GPUs (" + c.name + ": " + std::to_string(c.gpus_per_node) +
                                  ", " + other.name + ": " + std::to_string(other.gpus_per_node) +
                                  "), or cluster.gpus_per_node to use as many of each");
    c.intra = slower_link(gpu_link(c), gpu_link(other));
    c.inter = slower_link(c.inter, other.inter);
    c.nics = std::min(c.nics, other.nics);
    name += (name.empty() ? "" : ",") + g.cluster + ":" + std::to_string(g.nodes);
  }
  c.name = name;
  c.cpu.clear();  // the groups' GPU routes are in c.intra now
  c.gpus_per_socket = 0;
  c.gpus_per_switch = 1;
  c.max_nodes = 0;  // each group was checked against its own
  c.note = "mixed cluster " + name + ": links are the slowest of the groups'";
  return c;
}

// A built-in name, or a SimGrid platform file (*.xml): with `memo`, read once while its bytes stay
// the same.
ClusterDescription platform_of(const Reader& r, const std::string& base_dir, ResolveMemo* memo) {
  const std::string& name = r.text("cluster.platform");
  if (!is_platform_file(name))
    return find_cluster(name, r.where("cluster.platform"));
  const std::string path = r.path("cluster.platform", base_dir);
  try {
    if (!memo) return read_platform_file(path);
    std::string bytes = read_binary_file(path, "SimGrid platform file");
    if (const ClusterDescription* kept = memo->find_platform(path, bytes)) return *kept;
    ClusterDescription c = read_platform_file(path);
    memo->keep_platform(path, std::move(bytes), c);
    return c;
  } catch (const InputError& e) {
    throw InputError(r.where("cluster.platform") + ": " + e.what());
  }
}

ClusterDescription resolve_cluster(const Reader& r, const std::string& base_dir,
                                   const std::vector<NodeGroup>& groups, ResolveMemo* memo) {
  ClusterDescription c = groups.empty() ? platform_of(r, base_dir, memo) : mixed_cluster(r, groups);
  if (r.given("cluster.gpus_per_node")) c.gpus_per_node = r.small_int("cluster.gpus_per_node");
  if (r.given("cluster.nics")) c.nics = r.small_int("cluster.nics");
  if (r.given("cluster.intra")) c.intra = find_link_kind(r.text("cluster.intra"), r.where("cluster.intra"), LinkPlace::Intra);
  if (r.given("cluster.inter")) c.inter = find_link_kind(r.text("cluster.inter"), r.where("cluster.inter"), LinkPlace::Inter);
  if (r.given("cluster.inter_bw_GBps")) c.inter.bw_Bps = r.real("cluster.inter_bw_GBps") * kGB;
  if (r.given("cluster.inter_latency_us"))
    c.inter.latency_s = r.real("cluster.inter_latency_us") * 1e-6;
  if (r.given("cluster.intra_bw_GBps")) c.intra.bw_Bps = r.real("cluster.intra_bw_GBps") * kGB;
  if (r.given("cluster.intra_latency_us"))
    c.intra.latency_s = r.real("cluster.intra_latency_us") * 1e-6;
  if (r.given("cluster.cpu")) c.cpu = find_cpu_kind(r.text("cluster.cpu"), r.where("cluster.cpu")).name;
  // GPUs per socket or per switch: a count, meaningful only with the CPU family.
  const auto node_count = [&](const char* key, int& field) {
    if (!r.given(key)) return;
    if (c.cpu.empty())
      r.fail(key, "a CPU family in cluster.cpu as well (its root complex and socket link bound the GPUs' routes)");
    field = r.small_int(key);
  };
  node_count("cluster.gpus_per_socket", c.gpus_per_socket);
  node_count("cluster.gpus_per_switch", c.gpus_per_switch);
  c.check_node_topology(r.where(r.given("cluster.gpus_per_socket") ? "cluster.gpus_per_socket" : "cluster.cpu"));
  if (r.given("cluster.nccl_net_latency_us")) c.nccl_net_latency_s = r.real("cluster.nccl_net_latency_us") * 1e-6;
  c.net_eager_bytes = r.real("cluster.net_eager_kib") * kKiB;
  c.net_rendezvous_s = r.real("cluster.net_rendezvous_us") * 1e-6;
  if (r.given("cluster.nccl_net_protocols")) {
    const int all = r.choice<int>("cluster.nccl_net_protocols", {{"auto", -1}, {"all", 1}, {"simple", 0}});
    if (all >= 0) c.nccl_net_ll = all == 1;
  }
  if (r.given("cluster.socket_nic")) {
    const int nic = r.choice<int>("cluster.socket_nic", {{"auto", -1}, {"generic", int(SocketNic::Generic)},
                                                         {"aws-ena", int(SocketNic::AwsEna)},
                                                         {"gcp-gvnic", int(SocketNic::GcpGvnic)}});
    if (nic >= 0) c.socket_nic = SocketNic(nic);
  }
  if (r.given("cluster.tcp_flow_GBps")) c.tcp_flow_Bps = r.real("cluster.tcp_flow_GBps") * kGB;
  c.network_reduction = r.choice<bool>("cluster.network_reduction", {{"none", false}, {"sharp", true}});
  // SHARP's streaming aggregation, which reduces whole vectors (NCCL's CollNet), came with SHARPv2
  // in the Quantum HDR switches (SHARPv1 on Switch-IB 2 EDR reduces small messages only).
  if (c.network_reduction && c.inter.name != "ib-hdr" && c.inter.name != "ib-ndr")
    r.fail("cluster.network_reduction", "InfiniBand HDR or NDR switches (cluster.inter = ib-hdr or ib-ndr: SHARPv2's "
                                        "streaming aggregation runs in them); " +
                                        (c.xml_path.empty() ? "this cluster's inter-node link is " + c.inter.name
                                                            : "platform file " + c.xml_path +
                                                                  " does not say its links' kinds (use a built-in "
                                                                  "platform, e.g. dgx-a100)"));
  return c;
}

// SimGrid simulates a platform file's own links, so link overrides would be silently ignored there.
void check_no_link_overrides(const Reader& r, const ClusterDescription& c) {
  for (const char* key : {"cluster.nics", "cluster.intra", "cluster.inter", "cluster.inter_bw_GBps", "cluster.inter_latency_us",
                          "cluster.intra_bw_GBps", "cluster.intra_latency_us", "cluster.cpu", "cluster.gpus_per_socket",
                          "cluster.gpus_per_switch", "cluster.peer_to_peer"})
    if (r.given(key))
      throw InputError(r.where(key) + ": cannot override the links of platform file " + c.xml_path +
                       " with simulation.backend = simgrid, which simulates the file's own links; edit the file "
                       "(or `ddlsim platform generate` one) or use the analytic backend");
}

// The stored size of one sample when input.sample_kb is not given. Images of 64x64 pixels and
// more are taken as ImageNet-like JPEGs: ILSVRC2012's training archive holds 1,281,167 JPEGs in
// about 138 GiB, 110 KiB each on average, whatever size the model crops them to. Smaller images
// are stored raw, one byte a value (CIFAR-10's binary records: 3,073 bytes for 32x32x3 and a
// label); other inputs (features) as 4-byte floats.
// A language model's sample is its token ids, stored pre-tokenized as 32-bit integers (as
// NVIDIA's BERT HDF5 shards and Megatron's indexed datasets hold them: 2 or 4 bytes a token).
Bytes default_sample_bytes(const Model& m) {
  const Shape& input = m.input;
  const double values = double(input.elems());
  if (m.reads_tokens()) return 4 * values;
  if (input.h >= 64 && input.w >= 64) return 110 * kKiB;
  if (input.h > 1 || input.w > 1) return values;
  return 4 * values;
}

StorageSpec resolve_storage(const Reader& r, const Model& m, FrameworkMode mode, StoredImage stored) {
  StorageSpec s;
  s.storage = r.choice<Storage>("input.storage", {{"memory", Storage::Memory},
                                                  {"local_ssd", Storage::LocalSSD},
                                                  {"nfs", Storage::NFS},
                                                  {"blob", Storage::Blob}});
  s.sample_bytes = r.given("input.sample_kb") ? r.real("input.sample_kb") * kKiB
                                              : default_sample_bytes(m);
  s.decoder = r.choice<Decoder>("input.decoder", {{"cpu", Decoder::Cpu}, {"dali", Decoder::Dali}});
  if (r.given("input.cpu_cores")) s.cpu_cores = r.small_int("input.cpu_cores");
  if (r.given("input.storage_GBps")) s.bw_Bps = r.real("input.storage_GBps") * kGB;
  // Decoding: the framework's loader as measured on the build machine (system.hpp); pre-tokenized
  // text needs none.
  s.decode_s = r.given("input.decode_ms") ? r.real("input.decode_ms") * 1e-3
               : m.reads_tokens()         ? 0
                                          : default_decode_s(mode, m.input.h, m.input.w, stored);
  const Augment augment = r.choice<Augment>("input.augment", {{"standard", Augment::Standard},
                                                              {"autoaugment", Augment::AutoAugment},
                                                              {"randaugment", Augment::RandAugment},
                                                              {"trivialaugment", Augment::TrivialAugment},
                                                              {"augmix", Augment::AugMix}});
  if (augment != Augment::Standard && m.reads_tokens())
    throw InputError(r.where("input.augment") + ": an image augmentation policy, but " + m.name +
                     " reads token ids (keep input.augment = standard)");
  s.decode_s += augment_s(augment, mode, m.input.h, m.input.w);
  return s;
}

ComputeTuning resolve_compute(const Reader& r, int batch) {
  ComputeTuning t;
  t.max_efficiency = r.real("compute.efficiency");
  // CUDA graphs: the device's per-kernel costs as measured inside graphs, and no host time a kernel,
  // where the keys are not given (system.hpp kGraphKernelOverhead_s).
  const bool graphs = r.boolean("framework.cuda_graphs");
  t.kernel_overhead_s = graphs && !r.set_by_user("compute.kernel_overhead_us") ? kGraphKernelOverhead_s
                                                                        : r.real("compute.kernel_overhead_us") * 1e-6;
  t.half_efficiency_work_s = graphs && !r.set_by_user("compute.half_efficiency_us")
                                 ? kGraphHalfEfficiency_s
                                 : r.real("compute.half_efficiency_us") * 1e-6;
  if (graphs) t.host_kernel_s = 0;
  // A step's own host time (0 included: none) replaces the per-kernel one and its eager default.
  if (r.given("compute.host_step_ms")) {
    t.host_step_s = r.real("compute.host_step_ms") * 1e-3;
    t.host_kernel_s = 0;
  }
  if (r.given("compute.host_kernel_us")) t.host_kernel_s = r.real("compute.host_kernel_us") * 1e-6;
  if (r.given("compute.host_step_ms") && r.given("compute.host_kernel_us"))
    throw InputError(r.where("compute.host_kernel_us") + ": give compute.host_step_ms (this model's step) or "
                     "compute.host_kernel_us (a kernel's), not both");
  t.winograd = r.boolean("compute.winograd");
  t.nchw = r.choice<bool>("compute.memory_format", {{"nhwc", false}, {"nchw", true}});
  const int traffic = r.choice<int>("compute.op_traffic", {{"kernels", 2}, {"kernels_add_fork", 1}, {"uniform", 0}});
  t.per_kind_traffic = traffic > 0;
  t.fork_sums = traffic == 2;
  t.fused_attention = r.choice<bool>("compute.attention", {{"fused", true}, {"math", false}});
  t.pointwise_fusion = r.choice<bool>("compute.fusion", {{"none", false}, {"pointwise", true}});
  t.bn_channel_blocks = r.choice<bool>("compute.nchw_batchnorm", {{"blocks", true}, {"roofline", false}});
  t.autocast = r.choice<bool>("compute.mixed_activations", {{"autocast", true}, {"fp16", false}});
  if (r.given("compute.jitter_cv")) t.jitter_cv = r.real("compute.jitter_cv");
  if (r.given("compute.device_spread")) t.device_spread = r.real("compute.device_spread");
  t.threads_per_rank = r.small_int("compute.threads_per_rank");
  if (r.given("compute.node_cores")) t.node_cores = r.small_int("compute.node_cores");
  if (r.given("compute.throughput")) t.measured_samples_per_s = r.real("compute.throughput");
  t.measured_batch = r.given("compute.throughput_batch") ? r.small_int("compute.throughput_batch") : batch;
  return t;
}

// compute.calibration = FILE: measured per-layer times, checked against
// the model and precision here so that a wrong file stops before anything is simulated.
void attach_calibration(const Reader& r, const std::string& base_dir, Scenario& sc) {
  if (r.given("compute.throughput"))
    r.fail("compute.calibration", "no compute.throughput beside it (both give measured compute; keep one)");
  const std::string path = r.path("compute.calibration", base_dir);
  const std::string origin = r.where("compute.calibration") + ": " + path;
  try {
    auto cal = std::make_shared<const Calibration>(load_calibration_file(path));
    check_calibration_matches(*cal, sc.model, sc.execution.precision, origin);
    sc.system.compute.calibration = cal;
    sc.system.compute.calibration_origin = path;
  } catch (const InputError& e) {
    const std::string msg = e.what();
    throw InputError(msg.rfind(origin, 0) == 0 ? msg : r.where("compute.calibration") + ": " + msg);
  }
}

// A mixed cluster of several devices: the GPU comes from each group's platform, and a measured
// throughput or calibration describes one device only, so both are refused.
void check_mixed_compute(const Reader& r, const std::vector<NodeGroup>& groups) {
  if (groups.empty()) return;
  if (r.given("compute.device"))
    r.fail("compute.device", "no compute.device with node groups in cluster.nodes (each group's platform names its GPU: " +
                                 r.where("cluster.nodes") + ")");
  std::vector<std::string> names;
  for (const NodeGroup& g : groups)
    if (std::find(names.begin(), names.end(), g.device.name) == names.end()) names.push_back(g.device.name);
  if (names.size() == 1) return;
  const std::string devices = names_of(names, [](const std::string& n) { return n; });
  for (const char* key : {"compute.throughput", "compute.calibration"})
    if (r.given(key))
      r.fail(key, std::string("none in a cluster of several devices (") + devices + ", " + r.where("cluster.nodes") +
                      "): a measurement describes one device; the roofline models each");
}

// NCCL, gloo and MPI over a TCP link kind between nodes run a socket transport: its threads bound
// what a GPU moves (system/socket_transport.hpp). A platform file's links are taken as they are.
void use_socket_transport(const Reader& r, Scenario& sc) {
  ClusterDescription& c = sc.system.cluster;
  const Library lib = sc.execution.library;
  c.tcp_thread_Bps = r.real("cluster.tcp_thread_GBps") * kGB;
  c.socket_transport = (lib == Library::Nccl || lib == Library::Gloo || lib == Library::Mpi) && c.xml_path.empty() &&
                       tcp_link_kind(c.inter.name);
  SocketThreads& s = c.socket_threads;
  if (lib != Library::Nccl) {
    s = kOneThreadOnePeer;
    return;
  }
  s = nccl_socket_threads(c.socket_nic);
  if (r.given("comm.nccl_socket_threads")) s.threads = r.small_int("comm.nccl_socket_threads");
  if (r.given("comm.nccl_socks_per_thread")) s.socks_per_thread = r.small_int("comm.nccl_socks_per_thread");
  if (s.threads > 0) s.socks_per_thread = std::min(s.socks_per_thread, 64 / s.threads);  // NCCL's MAX_SOCKETS
}

// A platform file netfit fitted carries its ring rows' spread: the interval of the exchanges where
// the scenario sets none and runs the library that measured them (or the file does not say which).
void use_fitted_spread(const Reader& r, Scenario& sc) {
  const ClusterDescription& c = sc.system.cluster;
  StepCostOverrides& o = sc.execution.step_costs;
  if (c.time_p90 <= 0 || r.given("comm.time_p10")) return;
  if (!c.factors_library.empty() && c.factors_library != to_string(sc.execution.library)) return;
  o.time_p10 = c.time_p10;
  o.time_p90 = c.time_p90;
}

// MPI and gloo exchanging host memory inside a node (host-staged GPU buffers, or CPU ranks): the
// routes between a node's GPUs carry at most the library's host rate (system/socket_transport.hpp).
// A platform file's links are taken as they are.
void use_host_exchange(const Reader& r, Scenario& sc) {
  ClusterDescription& c = sc.system.cluster;
  const Execution& e = sc.execution;
  const bool cpu = sc.system.compute.cpu_ranks();
  const bool host = cpu || staged_through_host(e.step_costs.staging, e.library, cpu);
  const BytesPerSecond given = r.given("comm.host_exchange_GBps") ? r.real("comm.host_exchange_GBps") * kGB : 0;
  if (!c.xml_path.empty() || !host) return;
  c.host_exchange_Bps = given > 0 ? given : host_exchange_Bps(e.library);
}

SimGridOptions resolve_simgrid(const Reader& r) {
  SimGridOptions o;
  o.fidelity = r.choice<Fidelity>("simulation.fidelity", {{"fast", Fidelity::Fast}, {"full", Fidelity::Full}});
  o.network_model = r.choice<std::string>("network.model", {{"cm02", "CM02"}, {"lv08", "LV08"}});
  o.crosstraffic = r.boolean("network.crosstraffic");
  o.tcp_gamma_bytes = r.real("network.tcp_gamma");
  if (r.given("network.latency_factor")) o.latency_factor = r.real("network.latency_factor");
  if (r.given("network.bandwidth_factor")) o.bandwidth_factor = r.real("network.bandwidth_factor");
  if (r.given("simulation.timeout_s")) o.timeout_s = r.real("simulation.timeout_s");
  return o;
}

}  // namespace

std::string dir_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string algorithm_misfit(Algorithm a, Library library, const System& sys) {
  if ((a == Algorithm::Nvls || a == Algorithm::NvlsTree || a == Algorithm::CollnetDirect) && library != Library::Nccl)
    return std::string(to_string(a)) + " is NCCL's (the switch's reduction runs through NCCL's kernels and plugins), "
           "and comm.library is " + to_string(library);
  const bool switch_reduces = sys.cluster.switch_reduction() && sys.cluster.gpus_per_node > 1;
  const std::string has = "this one has intra " + sys.cluster.intra.name + ", " +
                          std::to_string(sys.cluster.gpus_per_node) + " GPU(s) a node and " + std::to_string(sys.nodes) +
                          " node(s)" + (sys.cluster.nvswitch_set == 0 ? ", no NVSwitch (cluster.nvswitch = off)" : "");
  if (a == Algorithm::Nvls && !(switch_reduces && sys.nodes == 1))
    return "nvls needs one node whose GPUs share an NVSwitch that reduces (cluster.intra = nvlink4, cluster.nodes = 1, "
           "several GPUs; nvls_tree across nodes); " + has;
  if (a == Algorithm::NvlsTree && !(switch_reduces && sys.nodes > 1))
    return "nvls_tree needs several nodes whose GPUs share an NVSwitch that reduces (cluster.intra = nvlink4, "
           "cluster.nodes > 1, several GPUs a node; nvls on one node); " + has;
  if (a == Algorithm::CollnetDirect &&
      !(sys.cluster.network_reduction && sys.cluster.nvswitch() && sys.cluster.gpus_per_node > 1 && sys.nodes > 1))
    return "collnet needs several nodes whose GPUs share an NVSwitch (cluster.intra = nvlink3 or nvlink4) on InfiniBand "
           "switches that reduce (cluster.network_reduction = sharp); " + has +
           (sys.cluster.network_reduction ? "" : ", no network reduction");
  return "";
}

namespace {
// What the model is built from: the model.* settings, each value with where it was set (a relative
// model.file is read from the scenario's folder or the working directory by that), and the folder.
std::string model_key(const Settings& s, const std::string& base_dir) {
  std::string key = base_dir;
  for (auto it = s.lower_bound("model."); it != s.end() && it->first.compare(0, 6, "model.") == 0; ++it)
    key += '\n' + it->first + '=' + it->second.value + '\n' + it->second.origin;
  return key;
}

Model memoised_model(const Reader& r, const Settings& s, const std::string& base_dir, ResolveMemo* memo) {
  if (!memo) return resolve_model(r, base_dir);
  std::string key = model_key(s, base_dir);
  if (const Model* m = memo->find_model(key)) return *m;
  Model m = resolve_model(r, base_dir);
  memo->keep_model(std::move(key), m);
  return m;
}
}  // namespace

Scenario resolve_scenario(const Settings& given, const std::string& base_dir, ResolveMemo* memo) {
  Settings with_set;  // a dataset's keys applied (input.dataset), only when one is named
  const Settings& settings = names_dataset(given) ? (with_set = with_dataset(given)) : given;
  const Reader r(settings);
  Scenario sc;
  sc.backend = r.choice<BackendKind>("simulation.backend", {{"analytic", BackendKind::Analytic},
                                                            {"simgrid", BackendKind::SimGrid}});
  sc.simgrid = resolve_simgrid(r);
  sc.model = memoised_model(r, settings, base_dir, memo);
  sc.system.groups = node_groups(r);
  check_mixed_compute(r, sc.system.groups);
  sc.system.cluster = resolve_cluster(r, base_dir, sc.system.groups, memo);
  if (sc.backend == BackendKind::SimGrid && !sc.system.cluster.xml_path.empty())
    check_no_link_overrides(r, sc.system.cluster);
  sc.system.nodes = 0;
  for (const NodeGroup& g : sc.system.groups) sc.system.nodes += g.nodes;
  if (sc.system.groups.empty()) sc.system.nodes = r.small_int("cluster.nodes");
  if (sc.system.ranks() > kMaxRanks)
    r.fail("cluster.nodes", "at most " + std::to_string(kMaxRanks) + " GPUs in all (nodes x cluster.gpus_per_node = " +
                                std::to_string(sc.system.nodes) + " x " + std::to_string(sc.system.cluster.gpus_per_node) + ")");
  // Fast fidelity on a built-in cluster may run on a slice of two nodes (refused at simulation
  // time, naming the algorithm, where it does not apply).
  const bool may_slice = sc.simgrid.fidelity == Fidelity::Fast && sc.system.cluster.xml_path.empty();
  if (sc.backend == BackendKind::SimGrid && !may_slice && sc.system.ranks() > kMaxSimGridRanks)
    r.fail("cluster.nodes", "at most " + std::to_string(kMaxSimGridRanks) + " GPUs in all with simulation.backend = "
                            "simgrid (nodes x cluster.gpus_per_node = " + std::to_string(sc.system.ranks()) +
                            ") at full fidelity or on a platform file; the analytic backend takes up to " +
                            std::to_string(kMaxRanks));
  const int max_nodes = sc.system.cluster.max_nodes;
  if (max_nodes > 0 && sc.system.nodes > max_nodes)
    r.fail("cluster.nodes", "at most " + std::to_string(max_nodes) + " (nodes of platform " +
                                sc.system.cluster.name + ")");
  const std::string device = r.given("compute.device") ? r.text("compute.device") : sc.system.cluster.device;
  if (device.empty())
    throw InputError(r.where("cluster.platform") + ": the platform names no GPU (root zone property " +
                     "ddlsim.device); expected compute.device to name one (see `ddlsim keys`)");
  sc.system.device = sc.system.groups.empty() ? find_device(device, r.where("compute.device"))
                                              : sc.system.groups.front().device;
  // CUDA peer-to-peer between a node's GPUs: the device's own (auto), or as the user says.
  const int p2p = r.given("cluster.peer_to_peer")
                      ? r.choice<int>("cluster.peer_to_peer", {{"auto", -1}, {"on", 1}, {"off", 0}})
                      : -1;
  bool device_p2p = sc.system.device.pcie_peer_to_peer;
  for (const NodeGroup& g : sc.system.groups) device_p2p = device_p2p && g.device.pcie_peer_to_peer;
  sc.system.cluster.peer_to_peer = p2p < 0 ? device_p2p : p2p == 1;
  sc.system.cluster.nvswitch_set = r.choice<int>("cluster.nvswitch", {{"auto", -1}, {"on", 1}, {"off", 0}});
  sc.execution = resolve_execution(r, sc.system.nodes);
  if (sc.backend == BackendKind::SimGrid && sc.execution.sharding == Sharding::FsdpHybrid)
    r.fail("training.sharding", "another mode with simulation.backend = simgrid (fsdp_hybrid's exchanges inside "
                                "each node and across the nodes' replicas are modelled by the analytic backend only)");
  if (sc.execution.drop_last && sc.execution.samples < (long long)sc.execution.batch_per_gpu * sc.system.ranks())
    r.fail("training.drop_last", "false, or training.samples of at least one global batch (" +
                                     std::to_string((long long)sc.execution.batch_per_gpu * sc.system.ranks()) +
                                     "): every step would be dropped");
  // bf16 is costed as mixed (the same tensor-core rate and autocast lists) where the GPU has it.
  if (to_lower(r.text("model.precision")) == "bf16") {
    std::vector<Device> devices{sc.system.device};
    for (const NodeGroup& g : sc.system.groups) devices.push_back(g.device);
    for (const Device& d : devices)
      if (!d.bf16)
        r.fail("model.precision", "fp32, tf32 or mixed on " + d.name + ": BF16 needs an Ampere or later GPU (A100, "
                                  "A10, L40S, H100, RTX 30/40/50 series); mixed is FP16");
  }
  const std::string misfit = algorithm_misfit(sc.execution.algorithm, sc.execution.library, sc.system);
  if (!misfit.empty()) r.fail("comm.algorithm", "an algorithm this cluster runs: " + misfit);
  if ((sc.execution.protocol == Protocol::LL || sc.execution.protocol == Protocol::LL128) && !sc.system.cluster.nccl_net_ll)
    r.fail("comm.nccl_protocol", "auto or simple: this cluster's network plugin sets NCCL_PROTO=simple "
                                 "(cluster.nccl_net_protocols = simple)");
  if (sc.execution.protocol == Protocol::LL128 && !sc.system.cluster.intra_nvlink())
    r.fail("comm.nccl_protocol", "auto, ll or simple: NCCL runs LL128 over NVLink only, and this cluster's GPUs talk "
                                 "over " + (sc.system.cluster.intra.name.empty() ? std::string("PCIe") : sc.system.cluster.intra.name));
  use_library_factors(sc.system.cluster, to_string(sc.execution.library),
                      r.choice<bool>("comm.round_latency", {{"library", false}, {"network", true}}));
  use_socket_transport(r, sc);
  use_fitted_spread(r, sc);
  sc.system.compute = resolve_compute(r, sc.execution.batch_per_gpu);
  use_host_exchange(r, sc);
  if (r.given("compute.memory_gib")) {
    sc.system.device.memory_bytes = r.real("compute.memory_gib") * kGiB;
    for (NodeGroup& g : sc.system.groups) g.device.memory_bytes = sc.system.device.memory_bytes;
  }
  if (r.given("compute.calibration")) attach_calibration(r, base_dir, sc);
  const StoredImage stored = stored_image(settings);
  if (stored != StoredImage::Auto && sc.model.reads_tokens())
    throw InputError(r.where("input.dataset") + ": an image dataset, but " + sc.model.name + " reads token ids");
  sc.system.storage = resolve_storage(r, sc.model, sc.execution.fw.mode, stored);
  for (const auto& [key, s] : settings)
    if (s.origin == "default") sc.defaulted.push_back(key);
  return sc;
}

}  // namespace scenario_layer
}  // namespace ddlsim
