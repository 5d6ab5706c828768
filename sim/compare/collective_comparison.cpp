#include "compare/collective_comparison.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace ddlsim {
inline namespace compare_layer {

CollectiveComparison compare_collective(const BenchOutput& measured, const Scenario& sc, Collective op) {
  CollectiveComparison c;
  c.measured_file = measured.file;
  c.tool = measured.tool;
  c.measured = measured.points;
  std::vector<Bytes> sizes;
  for (const auto& p : measured.points) sizes.push_back(p.bytes);
  c.prediction = predict_collective(sc, op, sizes);
  c.gpus_per_thread = measured.gpus_per_thread;
  for (CollectiveRow& r : c.prediction.rows) {  // as nccl-tests reports it
    const Seconds t = benchmark_time_s(r.time_s, c.gpus_per_thread);
    r.algbw_Bps *= r.time_s / t, r.busbw_Bps *= r.time_s / t, r.time_s = t;
  }
  std::vector<double> large;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    c.errors.push_back(relative_error(c.prediction.rows[i].time_s, measured.points[i].time_s));
    if (sizes[i] >= 1e7) large.push_back(c.errors.back());
  }
  c.all = error_stats(c.errors);
  c.large = error_stats(large);
  return c;
}

namespace {

nlohmann::ordered_json row(const CollectiveComparison& c, std::size_t i) {
  nlohmann::ordered_json j;
  j["size_bytes"] = c.measured[i].bytes;
  j["algorithm"] = c.prediction.rows[i].algorithm;
  j["measured_s"] = c.measured[i].time_s;
  j["predicted_s"] = c.prediction.rows[i].time_s;
  j["error"] = c.errors[i];
  return j;
}

}  // namespace

std::string render_collective_comparison(const CollectiveComparison& c, Format f) {
  const auto& p = c.prediction;
  if (f == Format::Json) {
    nlohmann::ordered_json j;
    j["measured_file"] = c.measured_file;
    j["tool"] = c.tool;
    j["collective"] = to_string(p.op);
    j["ranks"] = p.ranks;
    j["gpus_per_thread"] = c.gpus_per_thread;  // nccl-tests' -g: predicted_s is what it reports
    j["mape"] = c.all.mape;
    j["mape_10MB_and_more"] = c.large.n ? nlohmann::ordered_json(c.large.mape) : nlohmann::ordered_json();
    j["rows"] = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < c.measured.size(); ++i) j["rows"].push_back(row(c, i));
    return j.dump(2) + "\n";
  }
  if (f == Format::Csv) {
    std::string out = "size_bytes,algorithm,measured_s,predicted_s,error\n";
    for (std::size_t i = 0; i < c.measured.size(); ++i) {
      std::string line;
      const auto cells = row(c, i);  // items() must not outlive the object it iterates
      for (const auto& [k, v] : cells.items()) line += (line.empty() ? "" : ",") + csv_cell(v);
      out += line + "\n";
    }
    return out;
  }
  std::string out = fmt::format("{} ({}) vs ddlsim: {} on {}, {} ranks, library {}, backend {}\n", c.measured_file,
                                c.tool, to_string(p.op), p.platform, p.ranks, p.library, p.backend);
  if (c.gpus_per_thread > 1)
    out += fmt::format("(nccl-tests ran {} GPUs from one thread: a size takes at least {} x {:.3g} us to issue)\n",
                       c.gpus_per_thread, c.gpus_per_thread, kNcclTestsIssuePerGpu_s * 1e6);
  out += fmt::format("{:>14} {:>14} {:>14} {:>8}  {}\n", "size_bytes", "measured_us", "ddlsim_us", "error", "algorithm");
  for (std::size_t i = 0; i < c.measured.size(); ++i)
    out += fmt::format("{:>14.0f} {:>14.2f} {:>14.2f} {:>+7.1f}%  {}\n", c.measured[i].bytes, c.measured[i].time_s * 1e6,
                       p.rows[i].time_s * 1e6, 100 * c.errors[i], p.rows[i].algorithm);
  out += fmt::format("MAPE {:.1f} % over {} sizes", 100 * c.all.mape, c.all.n);
  if (c.large.n) out += fmt::format("; {:.1f} % over the {} sizes of 10 MB and more", 100 * c.large.mape, c.large.n);
  return out + "\n";
}

}  // namespace compare_layer
}  // namespace ddlsim
