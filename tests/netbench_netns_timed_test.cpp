// Network calibration end to end on a shaped test network: 4 network namespaces joined by veth
// pairs to a bridge, every port shaped with tbf to 100 Mbit/s both ways (netem is not available
// on these kernels; tbf is). OpenMPI starts the ranks inside the namespaces through an rsh agent.
// netbench measures, netfit fits; the fitted bandwidth must be within 10 % of 100 Mbit/s and the
// simulator's ring allreduce on the fitted platform within 10 % of the measured ring at 2, 3 and
// 4 ranks (4 MiB). Skipped, with the reason, where namespaces, tbf or MPI are not available.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "netns_testbed.hpp"
#include "calibration/netfit.hpp"
#include "cost/collectives.hpp"
#include "engine/platform_reader.hpp"
#include "test_util.hpp"

using namespace ddlsim;
using testutil::Measured;
using testutil::Testbed;

namespace {

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
  Testbed bed(4);
  if (!bed.why_not.empty()) GTEST_SKIP() << "skipped: " << bed.why_not;
  testutil::TempFile dir("net.csv");
  Measured m;
  std::vector<std::pair<int, double>> ratios;
  ClusterDescription c;
  for (int attempt = 0; attempt < 2; ++attempt) {
    m = testutil::measure_and_fit(bed, dir);
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
