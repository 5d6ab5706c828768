#include "report/kernel_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "report/report.hpp"

namespace ddlsim {
inline namespace report_layer {

using nlohmann::ordered_json;

std::vector<KernelComparison> compare_kernels(const std::vector<LayerKernelTimes>& roofline, const Calibration& cal,
                                              int batch, const std::string& origin) {
  if (cal.kernels.empty())
    throw InputError(origin + ": no kernel table (a calibration file of format 1 lists layers only): run "
                              "`ddlsim calibrate` again to time each kernel");
  std::set<int> batches;
  std::map<std::string, std::vector<const KernelTiming*>> measured;  // layer -> its kernels at `batch`
  for (const KernelTiming& k : cal.kernels) {
    batches.insert(k.batch);
    if (k.batch == batch && (k.phase == "forward" || k.phase == "backward")) measured[k.layer].push_back(&k);
  }
  if (!batches.count(batch)) {
    std::string list;
    for (int b : batches) list += (list.empty() ? "" : ", ") + std::to_string(b);
    throw InputError(fmt::format("{}: kernels were timed at batch {}; the scenario's training.batch_per_gpu is {}: "
                                 "set it to one of them",
                                 origin, list, batch));
  }
  std::vector<KernelComparison> rows;
  for (const LayerKernelTimes& l : roofline) {
    std::vector<const KernelTiming*>& theirs = measured[l.layer];
    std::vector<bool> used(theirs.size(), false);
    for (const KernelTime& k : l.kernels) {
      const char* phase = k.backward ? "backward" : "forward";
      KernelComparison r{l.layer, phase, k.name, k.s, -1};
      for (std::size_t i = 0; i < theirs.size(); ++i)
        if (!used[i] && theirs[i]->phase == phase && theirs[i]->kernel == k.name) {
          used[i] = true, r.measured_s = theirs[i]->s;
          break;
        }
      rows.push_back(r);
    }
    for (std::size_t i = 0; i < theirs.size(); ++i)
      if (!used[i]) rows.push_back({l.layer, theirs[i]->phase, theirs[i]->kernel, -1, theirs[i]->s});
  }
  return rows;
}

namespace {

bool matched(const KernelComparison& r) { return r.roofline_s >= 0 && r.measured_s > 0; }

struct ByName {
  int count = 0;
  Seconds roofline_s = 0, measured_s = 0;
};

struct Summary {
  int matched = 0, roofline_only = 0, measured_only = 0;
  Seconds roofline_s = 0, measured_s = 0;  // over matched kernels
  double p10 = 0, p50 = 0, p90 = 0;        // roofline / measured, per kernel (nearest rank)
  std::map<std::string, ByName> by_name;
};

Summary summarize(const std::vector<KernelComparison>& rows) {
  Summary s;
  std::vector<double> ratios;
  for (const KernelComparison& r : rows) {
    if (!matched(r)) {
      (r.roofline_s >= 0 ? s.roofline_only : s.measured_only) += 1;
      continue;
    }
    ++s.matched;
    s.roofline_s += r.roofline_s, s.measured_s += r.measured_s;
    ratios.push_back(r.roofline_s / r.measured_s);
    ByName& b = s.by_name[r.kernel];
    ++b.count, b.roofline_s += r.roofline_s, b.measured_s += r.measured_s;
  }
  std::sort(ratios.begin(), ratios.end());
  const auto rank = [&](double q) {
    if (ratios.empty()) return 0.0;
    const auto i = std::size_t(std::ceil(q * double(ratios.size()))) - 1;
    return ratios[std::min(i, ratios.size() - 1)];
  };
  s.p10 = rank(0.1), s.p50 = rank(0.5), s.p90 = rank(0.9);
  return s;
}

std::string cell(Seconds s) { return s < 0 ? "" : csv_cell(s); }
double ratio(Seconds a, Seconds b) { return b > 0 ? a / b : 0; }

// Kernels in model order, or the `top` the calibration measured longest.
std::vector<const KernelComparison*> shown(const std::vector<KernelComparison>& rows, int top) {
  std::vector<const KernelComparison*> out;
  for (const KernelComparison& r : rows) out.push_back(&r);
  if (top <= 0) return out;
  std::stable_sort(out.begin(), out.end(),
                   [](const KernelComparison* a, const KernelComparison* b) { return a->measured_s > b->measured_s; });
  out.resize(std::min(out.size(), std::size_t(top)));
  return out;
}

}  // namespace

std::string render_kernel_profile(const std::vector<KernelComparison>& rows, const KernelProfileContext& c, Format f,
                                  int top) {
  const Summary s = summarize(rows);
  if (f == Format::Csv) {
    std::string out = "layer,phase,kernel,roofline_s,measured_s,ratio\n";
    for (const KernelComparison& r : rows)
      out += fmt::format("{},{},{},{},{},{}\n", csv_escape(r.layer), r.phase, r.kernel, cell(r.roofline_s),
                         cell(r.measured_s), matched(r) ? csv_cell(r.roofline_s / r.measured_s) : "");
    return out;
  }
  if (f == Format::Json) {
    ordered_json j;
    j["model"] = c.model;
    j["batch"] = c.batch;
    j["precision"] = c.precision;
    j["roofline_device"] = c.roofline_device;
    j["measured_device"] = c.measured_device;
    j["matched"] = s.matched;
    j["roofline_only"] = s.roofline_only;
    j["measured_only"] = s.measured_only;
    j["roofline_s"] = s.roofline_s;
    j["measured_s"] = s.measured_s;
    j["ratio_p10"] = s.p10;
    j["ratio_p50"] = s.p50;
    j["ratio_p90"] = s.p90;
    j["by_kernel"] = ordered_json::array();
    for (const auto& [name, b] : s.by_name)
      j["by_kernel"].push_back({{"kernel", name}, {"count", b.count}, {"roofline_s", b.roofline_s},
                                {"measured_s", b.measured_s}});
    j["per_kernel"] = ordered_json::array();
    for (const KernelComparison* r : shown(rows, top)) {
      ordered_json k = {{"layer", r->layer}, {"phase", r->phase}, {"kernel", r->kernel}};
      if (r->roofline_s >= 0) k["roofline_s"] = r->roofline_s;
      if (r->measured_s >= 0) k["measured_s"] = r->measured_s;
      j["per_kernel"].push_back(k);
    }
    return j.dump(2) + "\n";
  }
  std::string out = fmt::format("# ddlsim kernel profile: {}, {}, batch {}: the roofline on {} against {} (calibration)\n",
                                c.model, c.precision, c.batch, c.roofline_device, c.measured_device);
  out += fmt::format("# {} kernels in both: roofline {:.6g} ms, measured {:.6g} ms (ratio {:.3f}); roofline / measured "
                     "per kernel: 10th percentile {:.3f}, median {:.3f}, 90th {:.3f}\n",
                     s.matched, 1e3 * s.roofline_s, 1e3 * s.measured_s, ratio(s.roofline_s, s.measured_s), s.p10, s.p50,
                     s.p90);
  if (s.roofline_only + s.measured_only > 0)
    out += fmt::format("# {} kernels only the roofline runs, {} only the calibration timed\n", s.roofline_only,
                       s.measured_only);
  if (top > 0) out += fmt::format("# the {} kernels measured longest\n", std::min<std::size_t>(rows.size(), top));
  out += fmt::format("{:<36} {:<9} {:<24} {:>12} {:>12} {:>7}\n", "layer", "phase", "kernel", "roofline_us",
                     "measured_us", "ratio");
  const auto us = [](Seconds v) { return v < 0 ? std::string("-") : fmt::format("{:.3f}", 1e6 * v); };
  for (const KernelComparison* r : shown(rows, top))
    out += fmt::format("{:<36} {:<9} {:<24} {:>12} {:>12} {:>7}\n", r->layer, r->phase, r->kernel,
                       us(r->roofline_s), us(r->measured_s),
                       matched(*r) ? fmt::format("{:.3f}", r->roofline_s / r->measured_s) : "-");
  out += fmt::format("\n{:<24} {:>6} {:>12} {:>12} {:>7}\n", "kernel", "count", "roofline_ms", "measured_ms", "ratio");
  for (const auto& [name, b] : s.by_name)
    out += fmt::format("{:<24} {:>6} {:>12.4f} {:>12.4f} {:>7.3f}\n", name, b.count, 1e3 * b.roofline_s,
                       1e3 * b.measured_s, ratio(b.roofline_s, b.measured_s));
  return out;
}

}  // namespace report_layer
}  // namespace ddlsim
