#include "compare/bench_output.hpp"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <sstream>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace ddlsim {
inline namespace compare_layer {

namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// all_reduce_perf, osu_allgather, "Allreduce Latency Test" ...: the collective a name mentions.
std::optional<Collective> collective_in(std::string text) {
  text = to_lower(text);
  const struct {
    const char* needle;
    Collective c;
  } names[] = {{"reduce_scatter", Collective::ReduceScatter}, {"reducescatter", Collective::ReduceScatter},
               {"reduce-scatter", Collective::ReduceScatter}, {"all_reduce", Collective::Allreduce},
               {"allreduce", Collective::Allreduce},          {"all_gather", Collective::Allgather},
               {"allgather", Collective::Allgather},          {"alltoall", Collective::Alltoall},
               {"bcast", Collective::Broadcast},              {"broadcast", Collective::Broadcast},
               {"reduce", Collective::Reduce}};
  for (const auto& n : names)
    if (text.find(n.needle) != std::string::npos) return n.c;
  return std::nullopt;
}

// A line as the benchmark printed it: without Open MPI's --tag-output prefix ("[1,0]<stdout>:") or
// Slurm's --label prefix ("0: ").
std::string untagged(const std::string& line) {
  if (line.rfind('[', 0) == 0) {
    const auto tag = line.find("]<std");
    const auto colon = tag == std::string::npos ? tag : line.find(">:", tag);
    if (colon != std::string::npos && colon < 24) return line.substr(colon + 2);
  }
  std::size_t i = line.find_first_not_of(' ');
  if (i == std::string::npos || !std::isdigit(static_cast<unsigned char>(line[i]))) return line;
  const std::size_t digits = line.find_first_not_of("0123456789", i);
  if (digits != std::string::npos && line[digits] == ':' && digits + 1 < line.size() && line[digits + 1] == ' ')
    return line.substr(digits + 2);
  return line;
}

// NCCL's own log lines (NCCL_DEBUG=INFO or WARN) between the benchmark's.
bool nccl_log(const std::string& line) {
  return line.find(" NCCL INFO ") != std::string::npos || line.find(" NCCL WARN ") != std::string::npos;
}

[[noreturn]] void fail(const std::string& file, int line, const std::string& what) {
  throw InputError(file + ":" + std::to_string(line) + ": " + what);
}

}  // namespace

bool is_bench_output(const std::string& text) {
  if (text.find("# OSU MPI") != std::string::npos || text.find("# nThread") != std::string::npos) return true;
  // A table cut from a log at nccl-tests' column header ("#  size  count ... algbw  busbw"): a
  // commented line naming both, not a CSV header's algbw_Bps and busbw_Bps (netbench's).
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    line = untagged(line);
    const auto first = line.find_first_not_of(' ');
    if (first != std::string::npos && line[first] == '#' && line.find("algbw") != std::string::npos &&
        line.find("busbw") != std::string::npos)
      return true;
  }
  return false;
}

BenchOutput parse_bench_output(const std::string& text, const std::string& file) {
  BenchOutput out;
  out.file = file;
  const bool osu = text.find("# OSU MPI") != std::string::npos;
  out.tool = osu ? "osu" : "nccl-tests";
  out.op = collective_in(file.substr(file.find_last_of('/') + 1));
  std::istringstream in(text);
  std::string line;
  int n = 0, time_col = osu ? 1 : -1;
  std::vector<int> more_times;  // nccl-tests: the in-place time column, after the out-of-place one
  while (std::getline(in, line)) {
    ++n;
    line = untagged(line);
    if (nccl_log(line)) continue;
    const auto w = words(line);
    if (w.empty()) continue;
    if (w[0][0] == '#') {
      // nccl-tests lists each rank: "#  Rank  0 Group  0 Pid  1234 on  host device  0 [0x07] NVIDIA A100 ..."
      if (!osu && w.size() > 2 && w[0] == "#" && w[1] == "Rank") {
        ++out.ranks;
        const auto on = std::find(w.begin(), w.end(), "on");
        out.rank_hosts.push_back(on != w.end() && on + 1 != w.end() ? *(on + 1) : "");
      }
      // "# nThread 1 nGpus 4 minBytes ...": -g 4, one thread driving four GPUs.
      if (!osu && w.size() > 4 && w[1] == "nThread" && w[3] == "nGpus")
        if (const auto g = parse_real(w[4], 1, 1024); g && *g == std::floor(*g)) out.gpus_per_thread = int(*g);
      if (line.find("Collective test starting") != std::string::npos || line.find("# OSU MPI") != std::string::npos)
        if (auto op = collective_in(line)) out.op = op;
      // nccl-tests' column header: "#  size  count  type  redop  root  time  algbw ..."
      if (!osu && w.size() > 2 && w[0] == "#" && w[1] == "size" && time_col < 0)
        for (std::size_t i = 1; i < w.size(); ++i) {
          if (w[i] != "time") continue;
          if (time_col < 0)
            time_col = int(i) - 1;
          else
            more_times.push_back(int(i) - 1);
        }
      continue;
    }
    // Launcher and library chatter ("NCCL version 2.26.2", "[host:pid] ... help message ..."): a
    // measurement line starts with its size.
    if (!std::isdigit(static_cast<unsigned char>(w[0][0]))) continue;
    if (time_col < 0) fail(file, n, "a data line before nccl-tests' column header (#  size  count  type ...  time)");
    if (int(w.size()) <= time_col) fail(file, n, "expected at least " + std::to_string(time_col + 1) + " columns");
    // all_gather_perf and reduce_scatter_perf print rows of size 0 where the requested size is less
    // than one element a rank: nothing moves, the time is the launch alone. Not a measurement.
    if (w[0] == "0") continue;
    const auto bytes = parse_real(w[0], 1, 1e15);
    const auto us = parse_real(w[time_col], 0, 1e15, true);
    if (!bytes) fail(file, n, "size = '" + clip(w[0]) + "': expected a size in bytes");
    if (!us) fail(file, n, "time = '" + clip(w[time_col]) + "': expected a time in microseconds > 0");
    // The in-place run of the same size where it has a time ("N/A" where nccl-tests skips it): the
    // faster of the two is kept (what a run loses to other traffic only adds).
    double best_us = *us;
    for (int c : more_times)
      if (c < int(w.size()))
        if (const auto other = parse_real(w[std::size_t(c)], 0, 1e15, true)) best_us = std::min(best_us, *other);
    out.points.push_back({*bytes, best_us * 1e-6, n});
  }
  if (out.points.empty()) throw InputError(file + ": no measurement lines (size and time) found");
  return out;
}

}  // namespace compare_layer
}  // namespace ddlsim
