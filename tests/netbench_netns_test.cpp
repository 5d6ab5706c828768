// Network calibration end to end on a shaped test network: 4 network namespaces joined by veth
// pairs to a bridge, every port shaped with tbf to 100 Mbit/s both ways (netem is not available
// on these kernels; tbf is). OpenMPI starts the ranks inside the namespaces through an rsh agent.
// netbench measures, netfit fits; the fitted bandwidth must be within 10 % of 100 Mbit/s and the
// simulator's ring allreduce on the fitted platform within 10 % of the measured ring at 2, 3 and
// 4 ranks (4 MiB). Skipped, with the reason, where namespaces, tbf or MPI are not available.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
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
  std::string subnet = "10.79." + std::to_string(::getpid() % 250);
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

}  // namespace

TEST(NetbenchNetns, FitRecoversShapedBandwidthAndPredictsRingAllreduce) {
  Testbed bed;
  if (!bed.why_not.empty()) GTEST_SKIP() << "skipped: " << bed.why_not;
  testutil::TempFile all("net.csv");
  const std::string mpi = " -- --mca btl tcp,self --mca btl_tcp_if_include " + bed.subnet +
                          ".0/24 --mca oob_tcp_if_include " + bed.subnet + ".0/24 --mca mpi_yield_when_idle 1";
  std::string csv;
  for (int np = 2; np <= 4; ++np) {
    const std::string tests = np == 2 ? "pingpong,bw,exchange,ring" : "shift,ring";
    const std::string out = all.dir() + "/n" + std::to_string(np) + ".csv";
    const auto r = testutil::run_ddlsim("netbench --np " + std::to_string(np) + " --hosts " + bed.hosts() +
                                        " --rsh-agent " + kAgent + " --sizes 2M,4M --iters 2 --window 2 --tests " +
                                        tests + " --csv " + out + mpi);
    ASSERT_EQ(r.code, 0) << r.out;
    std::cout << r.out;
    const std::string text = testutil::slurp(out);
    csv += np == 2 ? text : text.substr(text.find('\n') + 1);
  }
  std::ofstream(all.path()) << csv;

  const std::string xml = all.dir() + "/fitted.xml";
  const auto fit = testutil::run_ddlsim("netfit " + all.path() + " --out " + xml + " --check");
  ASSERT_EQ(fit.code, 0) << fit.out;
  std::cout << fit.out;

  const ClusterDescription c = read_platform_file(xml);
  const double shaped_Bps = 100e6 / 8;
  EXPECT_NEAR(c.inter.bw_Bps / shaped_Bps, 1.0, 0.10) << "fitted " << c.inter.bw_Bps << " B/s";
  EXPECT_LT(c.inter.exchange_factor, 0.9);  // the 2-rank exchange is measurably slower than one way

  int checked = 0;
  for (const auto& s : parse_netbench_csv(csv, all.path())) {
    if (s.test != "ring" || s.bytes < 4e6) continue;
    CommTopology t;
    t.nodes = s.ranks;
    t.gpus_per_node = 1;
    t.intra = c.intra_route();
    t.inter = c.inter_route();
    const double sim_s = collective_time_s(Algorithm::Ring, t, s.bytes);
    EXPECT_NEAR(sim_s / s.time_s, 1.0, 0.10) << s.ranks << " ranks: simulated " << sim_s << " s, measured " << s.time_s;
    ++checked;
  }
  EXPECT_EQ(checked, 3);
}
