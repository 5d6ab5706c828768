// Measured collectives as users have them: the text nccl-tests (all_reduce_perf ...) and the OSU
// micro-benchmarks (osu_allreduce ...) print, read directly. Sizes in bytes, times per operation.
//   nccl-tests: the header line "#  size  count  type  [redop  root]  time  algbw  busbw ..." gives
//               the columns; each data line's faster of its out-of-place and in-place times (us)
//               is taken: both time the same collective of that size (in place is how DDP and
//               Horovod call it), and interference from other work only ever adds. The collective comes
//               from "Collective test starting: all_reduce_perf" or the file's name.
//               Its "#  Rank  N ..." lines count the ranks. NCCL's own log lines (NCCL INFO, NCCL
//               WARN) and any other line that does not start with a digit or '#' (launcher
//               messages, "NCCL version ...") are skipped.
//   OSU:        "# OSU MPI Allreduce Latency Test ...", then "SIZE  AVG_LATENCY_US [...]" lines.
// Lines may carry Open MPI's --tag-output prefix ("[1,0]<stdout>:") or Slurm's --label ("0: ").
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "spec/comm.hpp"

namespace ddlsim {
inline namespace compare_layer {

struct BenchPoint {
  Bytes bytes = 0;
  Seconds time_s = 0;
  int line = 0;
};

struct BenchOutput {
  std::string file;
  std::string tool;                    // "nccl-tests" or "osu"
  std::optional<Collective> op;        // when the text or the file name says
  std::vector<BenchPoint> points;
  int ranks = 0;                       // nccl-tests: the ranks it lists (0: not said)
  std::vector<std::string> rank_hosts; // the host of each ("" where the line does not say)
  int gpus_per_thread = 1;             // nccl-tests' "nGpus G" (-g): one thread launches on G GPUs
};

// nccl-tests run as one thread driving G GPUs (-g G, "nGpus G") issues every GPU's launch from that
// thread in each iteration and times iterations issued back to back, so a size takes at least G
// issues however fast the GPUs run it; one process a GPU (-g 1, as training jobs run) pays one,
// hidden behind the collective. One issue: 4.2 us, from nccl-tests issue 123 (ConnollyLeon,
// 2022-12-14: DGX A100, NCCL_ALGO=Ring NCCL_MAX_NCHANNELS=1, 8-128 B, -g 4 to 8: 16.88, 20.8, 25.2,
// 29.5 and 33.7 us, 4.2 us a GPU each with no intercept, where NCCL's own model of those rings
// gives 9-15 us).
inline constexpr Seconds kNcclTestsIssuePerGpu_s = 4.2e-6;
// What nccl-tests reports for a collective the library runs in `library_s`.
inline Seconds benchmark_time_s(Seconds library_s, int gpus_per_thread) {
  return gpus_per_thread > 1 ? std::max(library_s, gpus_per_thread * kNcclTestsIssuePerGpu_s) : library_s;
}

// Whether `text` looks like nccl-tests or OSU output (so `compare` reads it as such).
bool is_bench_output(const std::string& text);

// Throws InputError naming the file and line for a line it cannot read, or when no point is found.
BenchOutput parse_bench_output(const std::string& text, const std::string& file);

}  // namespace compare_layer
}  // namespace ddlsim
