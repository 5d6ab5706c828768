#include "plan/plan_keys.hpp"

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"
#include "model/model.hpp"
#include "report/report.hpp"
#include "scenario/presets.hpp"
#include "scenario/settings.hpp"
#include "system/platform.hpp"

namespace ddlsim {
inline namespace plan_layer {

namespace {

PlanKey real(const char* name, double lo, double hi, bool log, const char* unit) {
  return {name, KeyKind::Real, lo, hi, log, unit, {}};
}
PlanKey integer(const char* name, double lo, double hi, bool log = false) {
  return {name, KeyKind::Integer, lo, hi, log, "", {}};
}
PlanKey choice(const char* name, std::vector<std::string> values) {
  return {name, KeyKind::Choice, 0, 0, false, "", std::move(values)};
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

// The keys that can be varied, with default ranges wide enough for the question they answer.
std::vector<PlanKey> plan_keys() {
  return {
      real(kModelParamsKey, 1e5, 1e10, true, "parameters"),
      choice("model.name", zoo_model_names()),
      integer("model.classes", 2, 100000, true),
      choice("model.precision", {"fp32", "tf32", "mixed"}),
      choice("training.framework", preset_names()),
      integer("training.batch_per_gpu", 1, 1024, true),
      integer("training.sync_period", 1, 64),
      choice("training.optimizer", {"sgd", "momentum", "adam"}),
      integer("training.samples", 1000, 1e9, true),
      integer("training.epochs", 1, 1000, true),
      integer("cluster.nodes", 1, 64),
      integer("cluster.gpus_per_node", 1, 64),
      integer("cluster.nics", 1, 16),
      choice("cluster.inter", link_names(false)),
      choice("cluster.intra", link_names(true)),
      choice("cluster.cpu", cpu_names()),
      integer("cluster.gpus_per_socket", 1, 64),
      integer("cluster.gpus_per_switch", 1, 64),
      choice("cluster.network_reduction", {"none", "sharp"}),
      real("cluster.inter_bw_GBps", 0.01, 1000, true, "GB/s"),
      real("cluster.inter_latency_us", 0.1, 100000, true, "us"),
      real("cluster.intra_bw_GBps", 0.1, 10000, true, "GB/s"),
      real("cluster.intra_latency_us", 0.1, 100000, true, "us"),
      choice("comm.library", {"nccl", "mpi", "gloo", "gpi2", "grpc"}),
      // nvls and nvls_tree only run on NVLink 4 nodes, collnet on SHARP fabrics: --values asks for
      // them there.
      choice("comm.algorithm", {"ring", "rhd", "rabenseifner", "rd", "tree", "dbtree", "hierarchical", "ps", "auto"}),
      real("comm.bucket_mb", 0.25, 1024, true, "MiB"),
      choice("comm.overlap", {"true", "false"}),
      choice("comm.gradient_dtype", {"fp32", "fp16"}),
      real("comm.cycle_time_ms", 0.01, 100, true, "ms"),
      integer("comm.ps_servers", 1, 64),
      choice("framework.mode", {"eager", "graph"}),
      choice("framework.buffer_copies", {"none", "per_tensor", "batched"}),
      choice("framework.optimizer_launches", {"per_tensor", "foreach", "fused"}),
      choice("framework.negotiation", {"on", "off"}),
      real("compute.throughput", 1, 1e6, true, "samples/s"),
      real("compute.efficiency", 0.01, 1, false, ""),
      real("compute.kernel_overhead_us", 0.1, 1000, true, "us"),
      real("framework.step_overhead_us", 1, 100000, true, "us"),
      real("compute.jitter_cv", 0, 1, false, ""),
      real("compute.device_spread", 0, 1, false, ""),
      choice("input.storage", {"memory", "local_ssd", "nfs", "blob"}),
      choice("input.format", {"synthetic", "records", "files"}),
      integer("input.loader_workers", 1, 64),
      choice("input.decoder", {"cpu", "dali"}),
      integer("input.cpu_cores", 1, 256, true),
      real("input.sample_kb", 0.1, 100000, true, "KiB"),
      real("input.storage_GBps", 0.001, 1000, true, "GB/s"),
      real("input.decode_ms", 0.01, 1000, true, "ms"),
  };
}

}  // namespace

std::vector<std::string> plan_key_names() {
  std::vector<std::string> out;
  for (const auto& k : plan_keys()) out.push_back(k.name);
  return out;
}

PlanKey find_plan_key(const std::string& name, const std::string& origin) {
  const std::string n = to_lower(name);
  for (const auto& k : plan_keys())
    if (to_lower(k.name) == n) return k;
  std::vector<std::string> schema{kModelParamsKey};
  for (const auto& s : scenario_keys()) schema.push_back(s.key);
  for (const auto& s : schema)
    if (to_lower(s) == n)
      throw InputError(origin + " = '" + clip(name) + "': this key cannot be varied (a file name, the platform or the "
                       "backend); expected one of " + names_of(plan_key_names(), [](const std::string& x) { return x; }));
  throw InputError(origin + " = '" + clip(name) + "': unknown key" + did_you_mean(name, schema) +
                   " (`ddlsim keys` lists them; model.params sizes a synthetic model)");
}

double gpu_hours(const Prediction& p) { return p.total_time_s * p.ranks / 3600.0; }

namespace {
bool higher_is_better(const std::string& name) {
  for (const char* n : {"speedup", "efficiency", "samples_per_s", "global_batch", "batch_per_gpu"})
    if (name == n) return true;
  return false;
}
}  // namespace

Metric find_metric(const std::string& name, const std::string& origin) {
  const std::string n = to_lower(name);
  if (n == "gpu_hours") return {n, false};
  // Any numeric field of a prediction's record (its fields do not depend on the values).
  Prediction sample;
  const auto rec = prediction_record(sample);
  std::vector<std::string> numeric{"gpu_hours"};
  for (const auto& [k, v] : rec.items())
    if (v.is_number()) numeric.push_back(k);
  for (const auto& k : numeric)
    if (k == n) return {n, higher_is_better(n)};
  throw InputError(origin + " = '" + clip(name) + "': not a numeric result" + did_you_mean(name, numeric) +
                   "; expected one of " + names_of(numeric, [](const std::string& x) { return x; }));
}

double metric_value(const Prediction& p, const std::string& name) {
  if (name == "gpu_hours") return gpu_hours(p);
  return prediction_record(p).at(name).get<double>();
}

}  // namespace plan_layer
}  // namespace ddlsim
