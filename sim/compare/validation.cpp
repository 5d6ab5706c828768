#include "compare/validation.hpp"

#include <functional>
#include <optional>
#include <utility>


#include "core/error.hpp"
#include "core/files.hpp"
#include "core/parse.hpp"
#include "scenario/resolve.hpp"

namespace ddlsim {
inline namespace compare_layer {

const std::vector<ValidationSet>& validation_sets() {
  static const std::vector<ValidationSet> sets = {
      {"tf2017", "TensorFlow tf_cnn_benchmarks 2017", "tf_cnn_benchmarks_2017.csv", {
      {"dgx1_p100", "dgx1_p100.ini", "intra_bw",
       "effective GPU-to-node bandwidth inside the DGX-1 (NVLink for NCCL, PCIe to the CPU's parameter server)"},
      {"gce_k80", "gce_k80.ini", "multi_gpu_compute",
       "per-die speed when several K80 dies run at once, relative to the lone die of the 1-GPU row "
       "(two dies share one board's power and clock budget)"},
      {"aws_k80", "aws_k80.ini", "multi_gpu_compute",
       "per-die speed when several K80 dies run at once, relative to the lone die of the 1-GPU row"},
      {"aws_k80_cluster", "aws_k80_cluster.ini", "inter_bw", "effective EC2 network bandwidth between servers"},
      }},
      {"published", "Published ResNet-50 runs 2020-2024 (NVIDIA DLE, Lambda, Azure Horovod)",
       "published/published_runs_2026.csv", {
          {"dle_pt_a100", "published/dle_pt_a100.ini", "", ""},
          {"dle_pt_v100", "published/dle_pt_v100.ini", "", ""},
          {"dle_pt_v100_32", "published/dle_pt_v100_32.ini", "", ""},
          {"dle_tf_a100", "published/dle_tf_a100.ini", "", ""},
          {"dle_tf_v100", "published/dle_tf_v100.ini", "", ""},
          {"dle_tf_dgx2", "published/dle_tf_dgx2.ini", "", ""},
          {"lambda_v100", "published/lambda_v100.ini", "", ""},
          {"lambda_a100", "published/lambda_a100.ini", "", ""},
          {"lambda_rtx4090", "published/lambda_rtx4090.ini", "", ""},
          {"lambda_rtx3090", "published/lambda_rtx3090.ini", "", ""},
          {"azure_p100_ib", "published/azure_p100_ib.ini", "", ""},
          {"azure_p100_eth", "published/azure_p100_eth.ini", "", ""},
      }},
      // Added after the model was built: no constant was chosen with these rows in view.
      {"convnets", "NVIDIA DLE ConvNets: ResNeXt-101 32x4d, SE-ResNeXt-101 32x4d (PyTorch 21.03, TF 20.06)",
       "published/dle_convnets_2021.csv", {
          {"dle_cn_a100", "published/dle_pt_a100.ini", "", ""},
          {"dle_cn_v100", "published/dle_pt_v100.ini", "", ""},
          {"dle_cn_v100_32", "published/dle_pt_v100_32.ini", "", ""},
          {"dle_cn_tf_a100", "published/dle_tf_a100.ini", "", ""},
          {"dle_cn_tf_v100", "published/dle_tf_v100.ini", "", ""},
          {"dle_cn_tf_dgx2", "published/dle_tf_dgx2.ini", "", ""},
      }},
  };
  return sets;
}

const ValidationSet& find_validation_set(const std::string& name, const std::string& key) {
  for (const auto& s : validation_sets())
    if (s.name == name) return s;
  throw_unknown(key, name, "validation set",
                names_of(validation_sets(), [](const ValidationSet& s) { return s.name; }) + ", " + kAllValidationSets);
}

std::string default_validation_folder() { return data_dir() + "/scenarios/validation"; }

namespace {

CsvTable rows_of_group(const CsvTable& all, const std::string& group) {
  const int col = all.column("group");
  if (col < 0) throw InputError(all.file + ":1: missing column 'group'");
  CsvTable t = all;
  t.rows.clear();
  for (const auto& r : all.rows)
    if (r.cells[col] == group) t.rows.push_back(r);
  return t;
}

// A count column of a row (1 when the row leaves it to the scenario).
long long count_of(const MeasuredConfig& c, const std::string& key) {
  for (const auto& v : c.values) {
    if (v.key != key) continue;
    if (const auto n = parse_integer(v.value, 1, 1000000)) return *n;
    throw InputError(v.origin + " = '" + v.value + "': expected a positive integer");
  }
  return 1;
}

long long ranks_of(const MeasuredConfig& c) { return count_of(c, "cluster.nodes") * count_of(c, "cluster.gpus_per_node"); }

// The same model, batch and data (and, where the set gives them, precision and device).
bool same_workload(const MeasuredConfig& a, const MeasuredConfig& b) {
  for (const char* k : {"model.name", "training.batch_per_gpu", "input.format"}) {
    const std::string *x = a.find(k), *y = b.find(k);
    if (!x || !y || *x != *y) return false;
  }
  for (const char* k : {"model.precision", "compute.device"}) {
    const std::string *x = a.find(k), *y = b.find(k);
    if (bool(x) != bool(y) || (x && *x != *y)) return false;
  }
  return true;
}

// compute.throughput of every configuration := its 1-GPU row's measurement.
void calibrate(MeasuredSet& set, const std::string& file) {
  std::vector<ConfigValue> added;
  for (const auto& c : set.configs) {
    const MeasuredConfig* one = nullptr;
    for (const auto& o : set.configs)
      if (ranks_of(o) == 1 && same_workload(o, c)) one = &o;
    if (!one)
      throw InputError(file + ":" + std::to_string(c.lines.front()) + ": no 1-GPU row with the same model, batch and "
                       "data to calibrate compute from");
    added.push_back({"compute.throughput", std::to_string(one->mean),
                     file + ":" + std::to_string(one->lines.front()) + ": 1-GPU calibration"});
  }
  for (std::size_t i = 0; i < set.configs.size(); ++i) set.configs[i].values.push_back(added[i]);
}

// Multi-GPU compute factor f: compute.throughput of each multi-GPU configuration := f x its 1-GPU
// calibration (the base scenario's own value); 1-GPU configurations keep theirs.
SharedParameter multi_gpu_compute() {
  SharedParameter p;
  p.name = "multi_gpu_compute";
  p.key = "multi-GPU compute factor";
  p.lo = 0.5;
  p.hi = 1.5;
  p.get = [](const Scenario&) { return 1.0; };
  p.set = [](System& s, double v) {
    if (s.ranks() > 1) s.compute.measured_samples_per_s *= v;
  };
  return p;
}

SharedParameter parameter_for(const std::string& name, const std::vector<Scenario>& scs) {
  return name == "multi_gpu_compute" ? multi_gpu_compute() : shared_parameter(name, scs);
}

bool synthetic(const MeasuredConfig& c) {
  const std::string* f = c.find("input.format");
  return f && *f == "synthetic";
}

std::string model_of(const MeasuredConfig& c) {
  const std::string* m = c.find("model.name");
  return m ? *m : "";
}

// Fits the group's parameter on the synthetic rows `train` accepts; the values and the parameters.
std::pair<FittedParameters, std::vector<SharedParameter>> fit_on(const ValidationGroup& g, const MeasuredSet& set,
                                                                 const std::vector<Scenario>& scs,
                                                                 const std::function<bool(const MeasuredConfig&)>& train) {
  MeasuredSet rows = set;
  rows.configs.clear();
  std::vector<Scenario> train_scs;
  for (std::size_t i = 0; i < set.configs.size(); ++i)
    if (synthetic(set.configs[i]) && train(set.configs[i])) {
      rows.configs.push_back(set.configs[i]);
      train_scs.push_back(scs[i]);
    }
  std::vector<SharedParameter> params = {parameter_for(g.parameter, train_scs)};
  return {fit_parameters(rows, train_scs, params), params};
}

// Fits the group's parameter on its synthetic rows (the training rows), then sets it in every
// scenario of the group. The synthetic rows are then scored in-sample, the real-data rows out of it.
FitParameter fit_group(const ValidationGroup& g, const MeasuredSet& set, std::vector<Scenario>& scs) {
  if (g.parameter.empty()) return {};
  const auto [fitted, params] = fit_on(g, set, scs, [](const MeasuredConfig&) { return true; });
  scs = apply_parameters(scs, params, fitted);
  return fitted.params.front();
}

// Each row predicted with the parameter fitted on the synthetic rows of the group's other models.
Comparison leave_one_model_out(const ValidationGroup& g, const MeasuredSet& set, const std::vector<Scenario>& bases) {
  if (g.parameter.empty()) return compare_predictions(set, bases);
  std::vector<std::optional<Prediction>> predictions(set.configs.size());
  for (std::size_t i = 0; i < set.configs.size(); ++i) {
    if (predictions[i]) continue;
    const std::string held_out = model_of(set.configs[i]);
    const auto [fitted, params] =
        fit_on(g, set, bases, [&](const MeasuredConfig& c) { return model_of(c) != held_out; });
    for (std::size_t j = i; j < set.configs.size(); ++j)
      if (model_of(set.configs[j]) == held_out)
        predictions[j] = predict(apply_parameters({bases[j]}, params, fitted).front());
  }
  std::vector<Prediction> all;
  for (auto& p : predictions) all.push_back(*p);
  return compare_with(set, all);
}

// Errors of the rows that have a linear-scaling reference, split into synthetic and real data.
struct SplitErrors {
  std::vector<double> model_synthetic, baseline_synthetic, model_real, baseline_real;

  void add(const Comparison& c) {
    for (const auto& row : c.rows) {
      if (!row.baseline) continue;
      const bool syn = synthetic(row.measured);
      (syn ? model_synthetic : model_real).push_back(row.error);
      (syn ? baseline_synthetic : baseline_real).push_back(row.baseline_error);
    }
  }
  template <class Result>
  void store(Result& r) const {
    r.model_synthetic = error_stats(model_synthetic);
    r.baseline_synthetic = error_stats(baseline_synthetic);
    r.model_real = error_stats(model_real);
    r.baseline_real = error_stats(baseline_real);
  }
};

void split_stats(GroupResult& r) {
  SplitErrors e;
  e.add(r.comparison);
  e.store(r);
  SplitErrors a, l;
  a.add(r.a_priori);
  l.add(r.leave_one_out);
  r.apriori = {error_stats(a.model_synthetic), error_stats(a.model_real)};
  r.loo = {error_stats(l.model_synthetic), error_stats(l.model_real)};
}

// The 1-GPU rows (their data as given) predicted from the datasheet roofline alone: what a
// user without any 1-GPU measurement would be told.
Comparison roofline_rows(const MeasuredSet& set, const Settings& base, const std::string& folder) {
  MeasuredSet one = set;
  one.configs.clear();
  for (const auto& c : set.configs)
    if (ranks_of(c) == 1) one.configs.push_back(c);
  return compare_predictions(one, resolve_configs(one, base, folder));
}

GroupResult run_group(const ValidationGroup& g, const CsvTable& all, const std::string& folder, const std::vector<std::string>& overrides) {
  GroupResult r;
  r.group = g;
  const CsvTable rows = rows_of_group(all, g.name);
  if (rows.rows.empty()) throw InputError(all.file + ": no rows of group '" + g.name + "'");
  MeasuredSet set = read_measured(rows, {}, "samples_per_s");
  const std::string scenario = folder + "/" + g.scenario;
  const Settings base = read_scenario(scenario, overrides).settings;
  r.roofline = roofline_rows(set, base, folder);
  const std::vector<Scenario> roofline_scs = resolve_configs(set, base, folder);
  r.coverage_roofline = interval_coverage(compare_predictions(set, roofline_scs), roofline_scs, false);
  calibrate(set, all.file);
  const std::vector<Scenario> bases = resolve_configs(set, base, folder);
  r.a_priori = compare_predictions(set, bases);
  r.coverage_calibrated = interval_coverage(r.a_priori, bases, true);
  r.leave_one_out = leave_one_model_out(g, set, bases);
  std::vector<Scenario> scs = bases;
  r.fitted = fit_group(g, set, scs);
  r.comparison = compare_predictions(set, scs);
  r.comparison.scenario_file = scenario;
  split_stats(r);
  return r;
}

}  // namespace

// `all`: every bundled set's groups in one result, so that its totals pool every row.
std::vector<const ValidationSet*> sets_named(const std::string& name) {
  std::vector<const ValidationSet*> out;
  if (name == kAllValidationSets)
    for (const auto& s : validation_sets()) out.push_back(&s);
  else
    out.push_back(&find_validation_set(name, "--set"));
  return out;
}

ValidationResult run_validation(const std::string& folder,
                                const std::string& set_name, const std::vector<std::string>& overrides) {
  const auto sets = sets_named(set_name);
  ValidationResult v;
  v.folder = folder;
  v.title = set_name == kAllValidationSets ? "every bundled set" : sets.front()->title;
  SplitErrors e, a, l;
  std::vector<double> roofline;
  for (const ValidationSet* set : sets) {
    const CsvTable all = read_csv_file(folder + "/" + set->csv);
    for (const auto& g : set->groups) {
      v.groups.push_back(run_group(g, all, folder, overrides));
      for (const auto& row : v.groups.back().roofline.rows) roofline.push_back(row.error);
      e.add(v.groups.back().comparison);
      a.add(v.groups.back().a_priori);
      l.add(v.groups.back().leave_one_out);
      v.coverage_calibrated.add(v.groups.back().coverage_calibrated);
      v.coverage_roofline.add(v.groups.back().coverage_roofline);
    }
  }
  e.store(v);
  v.apriori = {error_stats(a.model_synthetic), error_stats(a.model_real)};
  v.loo = {error_stats(l.model_synthetic), error_stats(l.model_real)};
  v.roofline = error_stats(roofline);
  const auto both = [](std::vector<double> x, const std::vector<double>& y) {
    x.insert(x.end(), y.begin(), y.end());
    return error_stats(x);
  };
  v.apriori_all = both(a.model_synthetic, a.model_real);
  v.loo_all = both(l.model_synthetic, l.model_real);
  v.model_all = both(e.model_synthetic, e.model_real);
  v.baseline_all = both(e.baseline_synthetic, e.baseline_real);
  return v;
}


}  // namespace compare_layer
}  // namespace ddlsim
