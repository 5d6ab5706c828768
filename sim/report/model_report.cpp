#include <algorithm>
#include <fmt/format.h>

#include "report/report.hpp"

namespace ddlsim {
inline namespace report_layer {

using nlohmann::ordered_json;

namespace {

constexpr double kActBytes = 4.0;  // activations reported in FP32

ordered_json layer_json(const Layer& l) {
  ordered_json j;
  j["name"] = l.name;
  j["kind"] = to_string(l.kind);
  j["output"] = fmt::format("{}x{}x{}", l.out.h, l.out.w, l.out.c);
  j["params"] = l.params();
  j["params_trainable"] = l.params_trainable;
  j["fwd_flops"] = l.fwd_flops;
  j["activation_bytes"] = double(l.out_elems) * kActBytes;
  return j;
}

ordered_json totals_json(const Model& m) {
  ordered_json j;
  j["model"] = m.name;
  j["input"] = fmt::format("{}x{}x{}", m.input.h, m.input.w, m.input.c);
  j["classes"] = m.classes;
  j["layers"] = m.layers.size();
  j["params_total"] = m.params_total();
  j["params_trainable"] = m.params_trainable();
  j["params_non_trainable"] = m.params_total() - m.params_trainable();
  j["fwd_flops_per_sample"] = m.fwd_flops_per_sample();
  j["activation_bytes_per_sample"] = double(m.activation_elems_per_sample()) * kActBytes;
  return j;
}

}  // namespace

std::string render_model(const Model& m, Format f) {
  if (f == Format::Json) {
    ordered_json j = totals_json(m);
    j["per_layer"] = ordered_json::array();
    for (const auto& l : m.layers) j["per_layer"].push_back(layer_json(l));
    return j.dump(2) + "\n";
  }
  if (f == Format::Csv) {
    std::string out = "name,kind,output,params,params_trainable,fwd_flops,activation_bytes\n";
    for (const auto& l : m.layers) {
      std::string row;
      const ordered_json j = layer_json(l);
      for (const auto& [k, v] : j.items()) row += (row.empty() ? "" : ",") + csv_cell(v);
      out += row + "\n";
    }
    return out;
  }
  std::string out = fmt::format("{:<28} {:<16} {:>14} {:>12} {:>14} {:>14}\n", "layer", "kind", "output",
                                "params", "fwd MFLOP", "act KiB");
  for (const auto& l : m.layers)
    out += fmt::format("{:<28} {:<16} {:>14} {:>12} {:>14.3f} {:>14.1f}\n", l.name, to_string(l.kind),
                       fmt::format("{}x{}x{}", l.out.h, l.out.w, l.out.c), l.params(), l.fwd_flops / 1e6,
                       double(l.out_elems) * kActBytes / 1024.0);
  out += "\n";
  const ordered_json totals = totals_json(m);
  for (const auto& [k, v] : totals.items())
    out += fmt::format("{:<28} {}\n", k, v.is_string() ? v.get<std::string>() : v.dump());
  return out;
}

std::string render_model_list(Format f) {
  ordered_json list = ordered_json::array();
  for (const auto& name : zoo_model_names()) {
    const ModelOptions o = default_model_options(name);
    const Model m = build_zoo_model(name, o);
    ordered_json j;
    j["name"] = name;
    j["input"] = fmt::format("{}x{}x{}", o.input_h, o.input_w, o.input_c);
    j["classes"] = o.classes;
    j["params_total"] = m.params_total();
    j["params_trainable"] = m.params_trainable();
    j["fwd_gflops"] = m.fwd_flops_per_sample() / 1e9;
    list.push_back(j);
  }
  if (f == Format::Json) return list.dump(2) + "\n";
  if (f == Format::Csv) {
    std::string out = "name,input,classes,params_total,params_trainable,fwd_gflops\n";
    for (const auto& j : list) {
      std::string row;
      for (const auto& [k, v] : j.items()) row += (row.empty() ? "" : ",") + csv_cell(v);
      out += row + "\n";
    }
    return out;
  }
  std::size_t width = 18;  // the name column: the longest name
  for (const auto& j : list) width = std::max(width, j["name"].get<std::string>().size());
  std::string out = fmt::format("{:<{}} {:>11} {:>8} {:>14} {:>14} {:>10}\n", "model", width, "input", "classes",
                                "params", "trainable", "fwd GFLOP");
  for (const auto& j : list)
    out += fmt::format("{:<{}} {:>11} {:>8} {:>14} {:>14} {:>10.3f}\n", j["name"].get<std::string>(), width,
                       j["input"].get<std::string>(), j["classes"].get<int>(), j["params_total"].get<long long>(),
                       j["params_trainable"].get<long long>(), j["fwd_gflops"].get<double>());
  return out;
}

}  // namespace report_layer
}  // namespace ddlsim
