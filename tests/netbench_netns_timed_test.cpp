// Network calibration end to end on a shaped test network: 4 network namespaces joined by veth
// pairs to a bridge, every port shaped with tbf to 100 Mbit/s both ways (netem is not available
// on these kernels; tbf is). OpenMPI starts the ranks inside the namespaces through an rsh agent.
// netbench measures, netfit fits; the fitted bandwidth must be within 10 % of 100 Mbit/s and the
// simulator's ring allreduce on the fitted platform within 10 % of the measured ring at 2, 3 and
// 4 ranks (4 MiB). Skipped, with the reason, where namespaces, tbf or MPI are not available.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>

#include "calibration/netfit.hpp"
#include "cost/collectives.hpp"
#include "simgrid/platform_reader.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {

const std::string kScript = testutil::source_dir() + "/calibration/netns_testbed.sh";
const std::string kAgent = testutil::source_dir() + "/calibration/netns_rsh_agent.sh";

std::string bin_dir() {
  const std::string b = DDLSIM_BINARY;
  return b.substr(0, b.find_last_of('/'));
}

int sh(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()); }

// The namespaces, removed again when the test ends (pass, fail or skip).
struct Testbed {
  std::string prefix = "dnb" + std::to_string(::getpid() % 100000);
  std::string subnet = testutil::free_subnet("10.79", ::getpid() % 250);
  int n = 4;
  bool up = false;
  std::string why_not;

  Testbed() {
    if (::geteuid() != 0) { why_not = "not root: network namespaces need CAP_NET_ADMIN"; return; }
    if (sh("command -v mpirun") != 0) { why_not = "mpirun not found (Debian: openmpi-bin)"; return; }
    if (!testutil::exists(bin_dir() + "/ddlsim_netbench")) { why_not = "ddlsim_netbench not built (no MPI at configure time)"; return; }
    if (sh("command -v unshare && command -v tc && command -v ip") != 0) { why_not = "ip, tc or unshare missing (iproute2, util-linux)"; return; }
    const int rc = sh("sh " + kScript + " up " + prefix + " " + std::to_string(n) + " 100mbit " + subnet);
    up = true;  // tear down whatever part was made
    if (rc != 0) why_not = "could not create namespaces, veth pairs or tbf qdiscs here (" + kScript + " up failed)";
  }
  ~Testbed() {
    if (up) sh("sh " + kScript + " down " + prefix + " " + std::to_string(n));
  }
  std::string hosts() const {
    std::string h;
    for (int i = 0; i < n; ++i) h += (i ? "," : "") + prefix + std::to_string(i);
    return h;
  }
};

// Measures at 2, 3 and 4 ranks, fits, and returns the fitted platform and the measurements.
struct Measured {
  bool ok = false;
  std::string log, csv, xml;
};

Measured measure_and_fit(const Testbed& bed, const testutil::TempFile& dir) {
  Measured m;
  const std::string mpi = " -- --mca btl tcp,self --mca btl_tcp_if_include " + bed.subnet +
                          ".0/24 --mca oob_tcp_if_include " + bed.subnet + ".0/24 --mca mpi_yield_when_idle 1";
  for (int np = 2; np <= 4; ++np) {
    const std::string tests = np == 2 ? "pingpong,bw,exchange,ring" : "shift,ring";
    const std::string out = dir.dir() + "/n" + std::to_string(np) + ".csv";
    const auto r = testutil::run_ddlsim("netbench --np " + std::to_string(np) + " --hosts " + bed.hosts() +
                                        " --rsh-agent " + kAgent + " --sizes 2M,4M --iters 2 --window 2 --tests " +
                                        tests + " --csv " + out + mpi);
    m.log += r.out;
    if (r.code != 0) return m;
    const std::string text = testutil::slurp(out);
    m.csv += np == 2 ? text : text.substr(text.find('\n') + 1);
  }
  std::ofstream(dir.path()) << m.csv;
  m.xml = dir.dir() + "/fitted.xml";
  const auto fit = testutil::run_ddlsim("netfit " + dir.path() + " --out " + m.xml + " --check");
  m.log += fit.out;
  m.ok = fit.code == 0;
  return m;
}

// Ring rows of 4 MiB: simulated on the fitted platform / measured, one per rank count.
std::vector<std::pair<int, double>> ring_ratios(const Measured& m, const ClusterDescription& c) {
  std::vector<std::pair<int, double>> out;
  for (const auto& s : parse_netbench_csv(m.csv, "net.csv")) {
    if (s.test != "ring" || s.bytes < 4e6) continue;
    CommTopology t;
    t.nodes = s.ranks;
    t.gpus_per_node = 1;
    t.intra = c.intra_route();
    t.inter = c.inter_route();
    out.emplace_back(s.ranks, collective_time_s(Algorithm::Ring, t, s.bytes) / s.time_s);
  }
  return out;
}

}  // namespace

// A second measurement is taken only when the first misses the 10 % (a busy 2-core CI machine
// can starve the 4 ranks now and then); both are printed.
TEST(NetbenchNetns, FitRecoversShapedBandwidthAndPredictsRingAllreduce) {
  Testbed bed;
  if (!bed.why_not.empty()) GTEST_SKIP() << "skipped: " << bed.why_not;
  testutil::TempFile dir("net.csv");
  Measured m;
  std::vector<std::pair<int, double>> ratios;
  ClusterDescription c;
  for (int attempt = 0; attempt < 2; ++attempt) {
    m = measure_and_fit(bed, dir);
    std::cout << m.log;
    ASSERT_TRUE(m.ok) << m.log;
    c = read_platform_file(m.xml);
    ratios = ring_ratios(m, c);
    const bool all_within = std::all_of(ratios.begin(), ratios.end(), [](auto& r) { return std::abs(r.second - 1) <= 0.10; });
    if (all_within && ratios.size() == 3) break;
  }
  const double shaped_Bps = 100e6 / 8;
  EXPECT_NEAR(c.inter.bw_Bps / shaped_Bps, 1.0, 0.10) << "fitted " << c.inter.bw_Bps << " B/s";
  EXPECT_LT(c.inter.exchange_factor, 0.9);  // the 2-rank exchange is measurably slower than one way
  ASSERT_EQ(ratios.size(), 3u);
  for (const auto& [ranks, ratio] : ratios)
    EXPECT_NEAR(ratio, 1.0, 0.10) << ranks << " ranks: simulated / measured ring allreduce of 4 MiB";
}
