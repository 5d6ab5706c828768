#include "report/collective_report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/parse.hpp"
#include "report/report.hpp"

namespace ddlsim {
inline namespace report_layer {

CollectiveFormat parse_collective_format(const std::string& text) {
  static const std::vector<std::pair<std::string, CollectiveFormat>> names = {
      {"nccl", CollectiveFormat::Nccl},   {"osu", CollectiveFormat::Osu}, {"table", CollectiveFormat::Table},
      {"csv", CollectiveFormat::Csv},     {"json", CollectiveFormat::Json}};
  return lookup(names, text, "--format");
}

namespace {

std::string header(const CollectivePrediction& p) {
  return fmt::format("{} on {}: {} node(s) x {} GPU(s) = {} ranks, library {}, backend {}", to_string(p.op),
                     p.platform, p.nodes, p.gpus_per_node, p.ranks, p.library, p.backend);
}

// nccl-tests' columns (out-of-place only): time in microseconds, bandwidths in GB/s (1e9).
std::string nccl_tests(const CollectivePrediction& p) {
  const bool rooted = p.op == Collective::Broadcast || p.op == Collective::Reduce;
  const bool reduces = p.op == Collective::Allreduce || p.op == Collective::ReduceScatter || p.op == Collective::Reduce;
  std::string out = "# ddlsim prediction: " + header(p) + "\n#\n";
  out += fmt::format("# {:>10} {:>13} {:>9} {:>7} {:>7} {:>10} {:>8} {:>8}  {}\n", "size", "count", "type", "redop",
                     "root", "time", "algbw", "busbw", "algorithm");
  out += fmt::format("# {:>10} {:>13} {:>9} {:>7} {:>7} {:>10} {:>8} {:>8}\n", "(B)", "(elements)", "", "", "",
                     "(us)", "(GB/s)", "(GB/s)");
  for (const auto& r : p.rows)
    out += fmt::format("  {:>10.0f} {:>13} {:>9} {:>7} {:>7} {:>10.2f} {:>8.2f} {:>8.2f}  {}\n", r.bytes, r.count,
                       "float", reduces ? "sum" : "none", rooted ? "0" : "-1", r.time_s * 1e6, r.algbw_Bps / 1e9,
                       r.busbw_Bps / 1e9, r.ran());
  return out;
}

std::string osu(const CollectivePrediction& p) {
  std::string out = "# ddlsim prediction of the OSU MPI " + std::string(to_string(p.op)) + " latency test: " + header(p) + "\n";
  out += fmt::format("# {:<10} {:>18}\n", "Size", "Avg Latency(us)");
  for (const auto& r : p.rows) out += fmt::format("{:<12.0f} {:>18.2f}\n", r.bytes, r.time_s * 1e6);
  return out;
}

nlohmann::ordered_json row_record(const CollectivePrediction& p, const CollectiveRow& r) {
  nlohmann::ordered_json j;
  j["collective"] = to_string(p.op);
  j["ranks"] = p.ranks;
  j["library"] = p.library;
  j["algorithm"] = r.algorithm;
  j["protocol"] = r.protocol;
  j["size_bytes"] = r.bytes;
  j["count"] = r.count;
  j["time_s"] = r.time_s;
  j["algbw_GBps"] = r.algbw_Bps / 1e9;
  j["busbw_GBps"] = r.busbw_Bps / 1e9;
  return j;
}

std::string table(const CollectivePrediction& p) {
  std::string out = header(p) + "\n";
  out += fmt::format("{:>14} {:>14} {:>14} {:>12} {:>12}  {}\n", "size_bytes", "time_us", "latency_ms", "algbw_GBps",
                     "busbw_GBps", "algorithm");
  for (const auto& r : p.rows)
    out += fmt::format("{:>14.0f} {:>14.2f} {:>14.4f} {:>12.3f} {:>12.3f}  {}\n", r.bytes, r.time_s * 1e6,
                       r.time_s * 1e3, r.algbw_Bps / 1e9, r.busbw_Bps / 1e9, r.ran());
  return out;
}

}  // namespace

std::string render_collective(const CollectivePrediction& p, CollectiveFormat f) {
  switch (f) {
    case CollectiveFormat::Nccl: return nccl_tests(p);
    case CollectiveFormat::Osu: return osu(p);
    case CollectiveFormat::Table: return table(p);
    case CollectiveFormat::Csv: {
      std::string out;
      for (std::size_t i = 0; i < p.rows.size(); ++i) {
        const auto rec = row_record(p, p.rows[i]);
        if (i == 0) {
          std::string head;
          for (const auto& [k, v] : rec.items()) head += (head.empty() ? "" : ",") + k;
          out += head + "\n";
        }
        std::string line;
        for (const auto& [k, v] : rec.items()) line += (line.empty() ? "" : ",") + csv_cell(v);
        out += line + "\n";
      }
      return out;
    }
    case CollectiveFormat::Json: {
      nlohmann::ordered_json j = nlohmann::ordered_json::array();
      for (const auto& r : p.rows) j.push_back(row_record(p, r));
      return j.dump(2) + "\n";
    }
  }
  return "";
}

}  // namespace report_layer
}  // namespace ddlsim
