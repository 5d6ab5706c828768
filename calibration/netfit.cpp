#include "calibration/netfit.hpp"

#include <regex>

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"
#include "system/platform_xml.hpp"
#include "system/platform.hpp"

namespace ddlsim {
inline namespace calibration_layer {

namespace {
constexpr double kMaxNetTime_s = 86400;  // a day
constexpr double kMaxNetQuantity = 1e15;  // bytes, ranks, repetitions, B/s
}  // namespace

std::vector<NetSample> parse_netbench_csv(const std::string& text, const std::string& origin) {
  std::vector<NetSample> out;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    line = trim(line);
    if (line.empty() || line[0] == '#' || line.rfind("test,", 0) == 0) continue;
    const auto f = split(line, ',');
    // Times up to a day, sizes and rates up to 1e15 (a petabyte, a petabyte a second): beyond them a
    // row is no measurement, and its fit would give a zero bandwidth or non-finite factors.
    auto num = [&](std::size_t i, const char* col, double max = kMaxNetQuantity) {
      if (const auto v = i < f.size() ? parse_real(f[i], 0, max) : std::nullopt) return *v;
      throw InputError(fmt::format("{}:{}: {} = '{}': expected a number from 0 to {:g}", origin, n, col,
                                   i < f.size() ? clip(f[i]) : "", max));
    };
    if (f.size() < 4) throw InputError(fmt::format("{}:{}: expected test,ranks,bytes,time_s,...", origin, n));
    auto bad = [&](std::size_t i, const char* col, const char* expected) {
      throw InputError(fmt::format("{}:{}: {} = '{}': expected {}", origin, n, col, clip(f[i]), expected));
    };
    const double ranks = num(1, "ranks");
    if (ranks < 2 || ranks > 1e6 || ranks != std::floor(ranks)) bad(1, "ranks", "an integer >= 2 (every test needs two ranks)");
    if (!(num(2, "bytes") > 0)) bad(2, "bytes", "a positive message size");
    if (!(num(3, "time_s", kMaxNetTime_s) > 0)) bad(3, "time_s", "a positive time");
    NetSample s{f[0], int(ranks), num(2, "bytes"), num(3, "time_s", kMaxNetTime_s), 0};
    if (f.size() > 4) s.algbw_Bps = num(4, "algbw_Bps");
    if (f.size() > 6) {
      if (f.size() != 11)
        throw InputError(fmt::format("{}:{}: {} columns: expected 6 (test,ranks,bytes,time_s,algbw_Bps,busbw_Bps) or "
                                     "11 (and min_s,p10_s,p50_s,p90_s,reps)", origin, n, f.size()));
      s.min_s = num(6, "min_s", kMaxNetTime_s), s.p10_s = num(7, "p10_s", kMaxNetTime_s);
      s.p50_s = num(8, "p50_s", kMaxNetTime_s), s.p90_s = num(9, "p90_s", kMaxNetTime_s);
      const double reps = num(10, "reps");
      if (reps < 1 || reps > 1e9 || reps != std::floor(reps)) bad(10, "reps", "an integer >= 1");
      s.reps = int(reps);
      if (!(s.min_s <= s.p10_s && s.p10_s <= s.p50_s && s.p50_s <= s.p90_s))
        throw InputError(fmt::format("{}:{}: min_s, p10_s, p50_s, p90_s = {}, {}, {}, {}: expected them in increasing "
                                     "order", origin, n, clip(f[6]), clip(f[7]), clip(f[8]), clip(f[9])));
    }
    out.push_back(s);
  }
  if (out.empty()) throw InputError(origin + ": no measurements (expected rows written by `ddlsim netbench`)");
  return out;
}

std::string netbench_library(const std::string& text, const std::string& origin) {
  std::istringstream in(text);
  std::string line, found;
  for (int n = 1; std::getline(in, line); ++n) {
    line = trim(line);
    if (line.rfind("# library:", 0) != 0) continue;
    const std::string name = trim(line.substr(10));
    if (name != "mpi" && name != "gloo" && name != "nccl")
      throw InputError(fmt::format("{}:{}: library '{}': expected mpi, gloo or nccl", origin, n, clip(name)));
    if (!found.empty() && name != found)
      throw InputError(fmt::format("{}:{}: library '{}', but earlier rows were measured with '{}': fit one library's "
                                   "measurements at a time (their factors differ)", origin, n, name, found));
    found = name;
  }
  return found;
}

namespace {

std::vector<const NetSample*> rows_of(const std::vector<NetSample>& s, const char* test) {
  std::vector<const NetSample*> out;
  for (const auto& x : s)
    if (x.test == test) out.push_back(&x);
  return out;
}

// Least squares t = c0 + c1 n; with one size, the line through the origin.
std::pair<double, double> line_fit(const std::vector<const NetSample*>& rows) {
  if (rows.size() == 1) return {0.0, rows[0]->time_s / rows[0]->bytes};
  Eigen::MatrixXd a(rows.size(), 2);
  Eigen::VectorXd t(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    a(Eigen::Index(i), 0) = 1.0;
    a(Eigen::Index(i), 1) = rows[i]->bytes;
    t(Eigen::Index(i)) = rows[i]->time_s;
  }
  const Eigen::Vector2d c = a.colPivHouseholderQr().solve(t);
  return {c(0), c(1)};
}

double median(std::vector<double> v) {  // upper median
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The fraction f of bandwidth B that rows of a pattern achieve: t - alpha = n / (B f), least
// squares through the origin in x = n / B; clamped to [0.05, 1].
double bandwidth_factor(const std::vector<const NetSample*>& rows, BytesPerSecond bw_Bps, Seconds latency_s) {
  double sxx = 0, sxy = 0;
  for (const auto* r : rows) {
    const double x = r->bytes / bw_Bps, y = std::max(1e-12, r->time_s - latency_s);
    sxx += x * x;
    sxy += x * y;
  }
  return std::clamp(sxx / sxy, 0.05, 1.0);
}

// Least squares over the ring rows of t - transfer = 2 (p-1) step, transfers at B e (2 ranks) or
// B d (3 or more); not below 0.
double ring_step_latency(const std::vector<const NetSample*>& ring, const NetFit& f) {
  double skk = 0, skr = 0;
  for (const auto* r : ring) {
    const int p = std::max(2, r->ranks);
    const double bw = f.bw_Bps * (p == 2 ? f.exchange_factor : f.duplex_factor);
    const double k = 2.0 * (p - 1);
    skk += k * k;
    skr += k * (r->time_s - k * r->bytes / (p * bw));
  }
  return std::max(0.0, skr / skk);
}

}  // namespace

NetFit fit_network(const std::vector<NetSample>& s, const std::string& origin) {
  NetFit f;
  f.samples = int(s.size());
  const auto bw = rows_of(s, "bw");
  if (bw.empty()) throw InputError(origin + ": no 'bw' rows: run netbench with --tests including bw");
  const auto [c0, c1] = line_fit(bw);
  if (!(c1 > 0)) throw InputError(origin + ": the 'bw' rows do not grow with the message size; measure larger messages");
  f.bw_Bps = 1.0 / c1;
  f.method = fmt::format("B: least squares t = c0 + n/B over {} bw sizes (c0 = {:.3g} s per message in a window)",
                         bw.size(), c0);

  // alpha: half a round trip of the smallest ping-pong message, the median of its repetitions
  // (larger ones can ride a token bucket's burst above B, so n/B would over-correct them).
  const auto pp = rows_of(s, "pingpong");
  if (!pp.empty()) {
    const NetSample* small = *std::min_element(pp.begin(), pp.end(), [](auto* a, auto* b) { return a->bytes < b->bytes; });
    const double median = small->p50_s > 0 ? small->p50_s : small->time_s;
    f.latency_s = std::max(0.0, median - small->bytes / f.bw_Bps);
    f.pingpong_p10_s = small->p10_s, f.pingpong_p90_s = small->p90_s, f.pingpong_reps = small->reps;
    f.method += small->reps > 0
                    ? fmt::format("; alpha: median half round trip of {} repetitions of the {}-byte pingpong",
                                  small->reps, small->bytes)
                    : fmt::format("; alpha: half a round trip of the {}-byte pingpong (no spread recorded)", small->bytes);
  }

  const auto ex = rows_of(s, "exchange");
  if (!ex.empty()) {
    f.exchange_factor = bandwidth_factor(ex, f.bw_Bps, f.latency_s);
    f.method += fmt::format("; e: least squares t - alpha = n / (B e) over {} exchange sizes", ex.size());
  }
  const auto sh = rows_of(s, "shift");
  if (!sh.empty()) {
    f.duplex_factor = bandwidth_factor(sh, f.bw_Bps, f.latency_s);
    f.method += fmt::format("; d: least squares t - alpha = n / (B d) over {} shift rows", sh.size());
  }
  // Latency per step of a loaded ring: what is left of the measured ring allreduce after the
  // transfers at B e (2 ranks) or B d (3 or more), least squares over t - transfer = 2 (p-1) step.
  // The network's part of it is alpha; the rest, o = step - alpha >= 0, is the library's software
  // per round (and a full queue in front of each message's handshake on a loaded machine).
  f.idle_latency_s = f.latency_s;
  const auto ring = rows_of(s, "ring");
  if (!ring.empty()) {
    f.step_latency_s = ring_step_latency(ring, f);
    f.step_overhead_s = std::max(0.0, f.step_latency_s - f.latency_s);
    f.method += fmt::format("; o: latency per step of the {} ring rows (least squares) minus alpha, not below 0",
                            ring.size());
  }
  const auto bi = rows_of(s, "bibw");
  if (!bi.empty()) {
    std::vector<double> r;
    for (const auto* x : bi) r.push_back(x->algbw_Bps / (2 * f.bw_Bps));
    f.bibw_factor = median(r);
    if (ex.empty()) {
      f.exchange_factor = std::clamp(f.bibw_factor, 0.05, 1.0);
      f.method += "; e: osu_bibw / (2 osu_bw) (no exchange rows)";
    }
  }
  // Rows within their bounds can still be no measurement of one network (a second-long bw row
  // beside microsecond ones): a fit that is not a finite positive bandwidth, latency and factors
  // would write a platform of zero-bandwidth links.
  const bool finite = std::isfinite(f.latency_s) && std::isfinite(f.step_overhead_s) && std::isfinite(f.bibw_factor);
  if (!(finite && f.bw_Bps > 0 && std::isfinite(f.bw_Bps) && f.latency_s >= 0 && f.exchange_factor > 0 &&
        f.exchange_factor <= 1 && f.duplex_factor > 0 && f.duplex_factor <= 1))
    throw InputError(fmt::format("{}: the rows give no usable fit (B = {:g} B/s, alpha = {:g} s, e = {:g}, d = {:g}); "
                                 "expected rows of one network, each a measured time", origin, f.bw_Bps, f.latency_s,
                                 f.exchange_factor, f.duplex_factor));
  return f;
}

std::string latency_warning(const NetFit& f, double factor) {
  if (!(f.idle_latency_s > 0) || !(f.step_latency_s > factor * f.idle_latency_s)) return "";
  return fmt::format("the latency per ring step ({:.3g} s) is {:.1f} times the idle ping-pong latency ({:.3g} s, the "
                     "median; warning above {:g} times): the fitted platform keeps the network's {:.3g} s as its link "
                     "latency and {:.3g} s per round as software overhead (ddlsim.step_overhead_us), which comes from "
                     "this library on this machine's load and need not carry over to another machine or library",
                     f.step_latency_s, f.step_latency_s / f.idle_latency_s, f.idle_latency_s, factor, f.latency_s,
                     f.step_overhead_s);
}

Route fitted_route(const NetFit& f) {
  return Route{f.latency_s, f.bw_Bps, f.exchange_factor, f.duplex_factor, f.step_overhead_s};
}

std::string fitted_platform_xml(const NetFit& f, int nodes, const std::string& device, const std::string& source) {
  ClusterDescription c;
  c.name = "netfit";
  c.device = device;
  c.max_nodes = nodes;
  c.gpus_per_node = 1;
  // One rank per node: the GPU-to-node hop is free, the node uplinks carry the fitted figures
  // (route = two uplink hops: alpha / 2 each).
  c.intra = LinkKind{"local", 1e12, 0, "no intra-node hop: one rank per node"};
  c.inter = LinkKind{"fitted", f.bw_Bps, f.latency_s / 2, "fitted by ddlsim netfit from " + source,
                     f.exchange_factor, f.duplex_factor};
  c.note = fmt::format(
      "fitted by `ddlsim netfit` from {} ({}): alpha = {:.6g} s, software overhead per round o = {:.6g} s, B = {:.6g} "
      "B/s, exchange factor e = {:.4g}, duplex factor d = {:.4g} (bibw factor {:.4g}); {}", source,
      f.library.empty() ? "library not recorded" : "measured with " + f.library, f.latency_s, f.step_overhead_s,
      f.bw_Bps, f.exchange_factor, f.duplex_factor, f.bibw_factor, f.method);
  std::string xml = platform_xml(c, nodes);
  const std::string device_prop = fmt::format("<prop id=\"ddlsim.device\" value=\"{}\"/>", device);
  const auto at = xml.find(device_prop);
  if (at == std::string::npos) throw std::logic_error("netfit: platform_xml wrote no ddlsim.device property");
  std::string props = fmt::format("\n  <prop id=\"ddlsim.exchange_factor\" value=\"{:.6g}\"/>\n  <prop "
                                  "id=\"ddlsim.duplex_factor\" value=\"{:.6g}\"/>", f.exchange_factor, f.duplex_factor);
  if (f.step_overhead_s > 0)
    props += fmt::format("\n  <prop id=\"ddlsim.step_overhead_us\" value=\"{:.6g}\"/>", f.step_overhead_s * 1e6);
  if (f.time_p90 > 0)
    props += fmt::format("\n  <prop id=\"ddlsim.time_p10\" value=\"{:.6g}\"/>\n  <prop id=\"ddlsim.time_p90\" "
                         "value=\"{:.6g}\"/>", f.time_p10, f.time_p90);
  if (!f.library.empty()) {
    props += fmt::format("\n  <prop id=\"ddlsim.netbench_library\" value=\"{}\"/>", f.library);
    // The same factors under the library's name, so that files fitted with several libraries can
    // hold each one's (a scenario uses its comm.library's: system/platform.hpp).
    props += fmt::format("\n  <prop id=\"ddlsim.exchange_factor.{0}\" value=\"{1:.6g}\"/>\n  <prop "
                         "id=\"ddlsim.duplex_factor.{0}\" value=\"{2:.6g}\"/>", f.library, f.exchange_factor,
                         f.duplex_factor);
  }
  xml.insert(at + device_prop.size(), props);
  return xml;
}

std::pair<double, double> ring_spread(const std::vector<NetSample>& samples,
                                      const std::function<Seconds(const NetSample&)>& fitted_s) {
  double lo = 0, hi = 0;
  for (const NetSample& s : samples) {
    if (s.test != "ring") continue;
    const Seconds fit = fitted_s(s);
    if (!(fit > 0)) continue;
    const double p10 = (s.reps > 0 ? s.p10_s : s.time_s) / fit, p90 = (s.reps > 0 ? s.p90_s : s.time_s) / fit;
    lo = hi == 0 ? p10 : std::min(lo, p10);
    hi = std::max(hi, p90);
  }
  return {lo, hi};
}

std::string merge_library_factors(const std::string& xml, const std::string& old_xml, const std::string& library,
                                  const std::string& old_origin) {
  static const std::regex prop(R"re(<prop id="ddlsim\.(exchange|duplex)_factor\.([A-Za-z0-9_-]+)" value="[^"]*"/>)re");
  std::string kept;
  int found = 0;
  for (auto it = std::sregex_iterator(old_xml.begin(), old_xml.end(), prop); it != std::sregex_iterator(); ++it) {
    ++found;
    if ((*it)[2].str() != library) kept += "\n  " + it->str();
  }
  if (found == 0)
    throw InputError(old_origin + ": no per-library factors (ddlsim.exchange_factor.LIB) to merge; expected a "
                     "platform file written by `ddlsim netfit` from a CSV that names its library");
  const std::string anchor = "<prop id=\"ddlsim.duplex_factor\"";
  const auto at = xml.find(anchor);
  if (at == std::string::npos) throw std::logic_error("netfit: the fitted platform has no ddlsim.duplex_factor");
  std::string out = xml;
  out.insert(out.find('>', at) + 1, kept);
  return out;
}

}  // namespace calibration_layer
}  // namespace ddlsim
