// `ddlsim profile`: one micro-batch's compute, layer by layer (cost/compute.hpp), as a table, CSV
// or JSON; the slowest layers first with --top.
#include <algorithm>
#include <fmt/format.h>
#include <numeric>

#include "cost/host_dispatch.hpp"
#include "report/report.hpp"

namespace ddlsim {
inline namespace report_layer {

using nlohmann::ordered_json;

namespace {

struct Row {
  const Layer* layer;
  const LayerCost* cost;
  Seconds total_s() const { return cost->fwd_s + cost->bwd_s; }
  int kernels() const { return cost->fwd_kernels + cost->bwd_kernels; }
};

// Model order, or the `top` slowest (ties in model order) when top > 0.
std::vector<Row> rows_of(const Model& m, const ComputeProfile& p, int top) {
  std::vector<Row> rows;
  for (std::size_t i = 0; i < m.layers.size(); ++i) rows.push_back({&m.layers[i], &p.layers[i]});
  if (top <= 0) return rows;
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.total_s() > b.total_s(); });
  rows.resize(std::min(rows.size(), std::size_t(top)));
  return rows;
}

const char* source_of(const ComputeProfile& p, bool calibrated) {
  if (calibrated) return "calibration";
  return p.scale != 1 ? "roofline scaled to the measured throughput" : "roofline";
}

}  // namespace

std::string render_compute_profile(const Model& m, const ComputeProfile& p, const ProfileContext& c, Format f,
                                   int top) {
  const Seconds layers_s = p.forward_s() + p.backward_s();
  const Seconds step_s = layers_s + p.optimizer_s + p.step_overhead_s;
  const auto share = [&](Seconds s) { return step_s > 0 ? s / step_s : 0.0; };
  const std::vector<Row> rows = rows_of(m, p, top);
  if (f == Format::Json) {
    ordered_json j;
    j["model"] = m.name;
    j["device"] = c.device;
    j["precision"] = c.precision;
    j["batch"] = c.batch;
    j["source"] = source_of(p, c.calibrated);
    j["scale"] = p.scale;
    j["extrapolated_from_batch"] = p.extrapolated_from_batch;
    j["forward_s"] = p.forward_s();
    j["backward_s"] = p.backward_s();
    j["optimizer_s"] = p.optimizer_s;
    j["framework_s"] = p.step_overhead_s;
    j["step_s"] = step_s;
    j["kernels"] = step_kernels(p);  // what compute.host_step_ms is spread over
    j["update_kernels"] = p.optimizer_kernels;
    j["update_host_s"] = p.optimizer_host_s;  // the update's host time with compute.host_kernel_us
    j["host_wait_share"] = p.host_wait_share;
    j["per_layer"] = ordered_json::array();
    for (const Row& r : rows)
      j["per_layer"].push_back({{"name", r.layer->name},
                                {"kind", to_string(r.layer->kind)},
                                {"forward_s", r.cost->fwd_s},
                                {"backward_s", r.cost->bwd_s},
                                {"kernels", r.kernels()},
                                {"share", share(r.total_s())}});
    return j.dump(2) + "\n";
  }
  if (f == Format::Csv) {
    std::string out = "name,kind,forward_s,backward_s,kernels,share\n";
    for (const Row& r : rows)
      out += fmt::format("{},{},{},{},{},{}\n", csv_escape(r.layer->name), to_string(r.layer->kind),
                         csv_cell(r.cost->fwd_s), csv_cell(r.cost->bwd_s), r.kernels(), csv_cell(share(r.total_s())));
    return out;
  }
  std::string out = fmt::format("# ddlsim compute profile: {} on {}, {}, batch {} a GPU ({})\n", m.name, c.device,
                                c.precision, c.batch, source_of(p, c.calibrated));
  out += fmt::format("# one micro-batch: forward {:.6g} s, backward {:.6g} s, optimizer {:.6g} s, framework {:.6g} s "
                     "= {:.6g} s; {} kernels\n", p.forward_s(), p.backward_s(), p.optimizer_s, p.step_overhead_s,
                     step_s, step_kernels(p));
  if (p.extrapolated_from_batch > 0)
    out += fmt::format("# calibrated at batch {} only: each layer follows the roofline's shape from there (calibrate at "
                       "several batches to measure the curve)\n", p.extrapolated_from_batch);
  if (p.host_wait_share > 0)
    out += fmt::format("# the GPU waits for its host {:.1f} % of it (compute.host_kernel_us, host_step_ms)\n",
                       100 * p.host_wait_share);
  if (top > 0) out += fmt::format("# the {} slowest layers\n", rows.size());
  out += fmt::format("{:<36} {:<16} {:>12} {:>12} {:>8} {:>8}\n", "layer", "kind", "forward_ms", "backward_ms",
                     "kernels", "share");
  for (const Row& r : rows)
    out += fmt::format("{:<36} {:<16} {:>12.4f} {:>12.4f} {:>8} {:>7.2f}%\n", r.layer->name, to_string(r.layer->kind),
                       1e3 * r.cost->fwd_s, 1e3 * r.cost->bwd_s, r.kernels(), 100 * share(r.total_s()));
  return out;
}

}  // namespace report_layer
}  // namespace ddlsim
