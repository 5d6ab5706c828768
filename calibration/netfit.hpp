// Network calibration: reading `ddlsim netbench` CSV, fitting latency, bandwidth and the
// exchange factor with least squares (Eigen), and writing the fitted platform (docs/calibration.md).
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "spec/comm.hpp"

namespace ddlsim {
inline namespace calibration_layer {

struct NetSample {
  std::string test;  // pingpong, bw, bibw, exchange, ring, allreduce
  int ranks = 0;
  Bytes bytes = 0;
  Seconds time_s = 0;  // per message (pingpong: half a round trip, the median; bw, bibw: per message of the window)
  BytesPerSecond algbw_Bps = 0;
  // The spread of the repetitions (netbench writes them; 0 in files from before it did): fastest,
  // 10th, 50th and 90th percentile of the individually timed repetitions, and how many there were.
  Seconds min_s = 0, p10_s = 0, p50_s = 0, p90_s = 0;
  int reps = 0;
};

// CSV: test,ranks,bytes,time_s,algbw_Bps,busbw_Bps[,min_s,p10_s,p50_s,p90_s,reps]. The spread
// columns are optional (older files have none); a row that has them has all five, and
// min <= p10 <= p50 <= p90. Errors name origin, line and column.
std::vector<NetSample> parse_netbench_csv(const std::string& text, const std::string& origin);

struct NetFit {
  Seconds latency_s = 0;        // alpha: the network's latency per message, the platform's route latency
  Seconds idle_latency_s = 0;   // half a round trip of the smallest pingpong, its median (an idle network)
  Seconds step_latency_s = 0;   // per ring step under load (ring rows), lumped; 0: no ring rows
  Seconds step_overhead_s = 0;  // o: step latency above alpha (>= 0): software per round of a collective
  Seconds pingpong_p10_s = 0, pingpong_p90_s = 0;  // spread of that pingpong (0: not recorded)
  int pingpong_reps = 0;
  BytesPerSecond bw_Bps = 0;    // B: one-way bandwidth (bw: least squares t = c0 + n / B)
  double exchange_factor = 1;   // e: per-direction share of B while two ranks swap data (exchange rows)
  double duplex_factor = 1;     // d: per-direction share of B while each rank sends and receives (shift rows)
  double bibw_factor = 0;       // osu_bibw / (2 osu_bw), for the report (0: not measured)
  int samples = 0;
  // The ring rows' repetitions against the fitted ring (ring_spread): the lowest 10th and the
  // highest 90th percentile of measured / fitted time over the sizes; 0: no ring rows.
  double time_p10 = 0, time_p90 = 0;
  std::string method;           // how each figure was obtained
  std::string library;          // what measured it (netbench_library); "" unknown
};

// The library that measured the rows: `# library: NAME` lines (ddlsim netbench writes one first;
// NAME is mpi, gloo or nccl); "" when there is none. Two different names: InputError naming the line.
std::string netbench_library(const std::string& text, const std::string& origin);

// Throws InputError (naming origin) when the rows cannot give a bandwidth (no bw rows).
NetFit fit_network(const std::vector<NetSample>& samples, const std::string& origin);

// A warning when the latency per ring step exceeds `factor` x the idle ping-pong latency (naming
// both, and the software overhead the fit split off); "" when it does not or either is unknown.
std::string latency_warning(const NetFit& f, double factor);

// The fitted network as the Route the analytic collectives use (latency alpha, step overhead o).
Route fitted_route(const NetFit& f);

// The spread of the ring rows around the fitted ring: `fitted_s(row)` is the ring allreduce of the
// row's size on the fitted network. Each row's 10th and 90th percentile (its time where netbench
// recorded no spread) over that; the lowest and the highest over the rows. {0, 0}: no ring rows.
std::pair<double, double> ring_spread(const std::vector<NetSample>& samples,
                                      const std::function<Seconds(const NetSample&)>& fitted_s);

// A SimGrid platform of `nodes` nodes with one `device` GPU each, joined by the fitted network
// (route latency alpha, bandwidth B, property ddlsim.exchange_factor = e, ddlsim.step_overhead_us =
// o in microseconds, ddlsim.time_p10 and ddlsim.time_p90 where the ring rows gave a spread;
// ddlsim.netbench_library names f.library when known: the factors describe that library's protocol).
std::string fitted_platform_xml(const NetFit& f, int nodes, const std::string& device, const std::string& source);

// `xml` (a fitted platform) with the per-library factor properties (ddlsim.exchange_factor.LIB,
// ddlsim.duplex_factor.LIB) of `old_xml` for every library other than `library`: one file then
// carries the factors of each library fitted so far (netfit --merge). Throws InputError naming
// `old_origin` when it has none.
std::string merge_library_factors(const std::string& xml, const std::string& old_xml, const std::string& library,
                                  const std::string& old_origin);

}  // namespace calibration_layer
}  // namespace ddlsim
