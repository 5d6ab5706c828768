// Open MPI's own allreduce algorithms against ddlsim on a shaped test network (issue 12's target):
// 6 network namespaces at 100 Mbit/s (netns_testbed.hpp), Open MPI's ring, recursive doubling and
// Rabenseifner forced with its tuned component's parameters (coll_tuned_allreduce_algorithm 4, 3,
// 6) at 2 to 6 ranks and 1 and 10 MiB, predicted by `ddlsim collective` from a netfit of other
// sizes (2 and 4 MiB calibration rows). 1 MiB is where the rounds' latency and the folds' eager
// sends show, 10 MiB where bandwidth rules (an exchange there lasts 0.8 s or more: 50 MiB, measured
// until round 18, took most of the test's 13 minutes and proved the same). Messages go eagerly (btl_tcp_eager_limit 64 MiB, and
// comm.eager_limit_kib = 65536 in the prediction): with the TCP BTL's default rendezvous a two-way
// exchange runs at full or half speed from one repetition to the next (docs/collectives.md, "Measured against
// real Open MPI"), which no fixed rule predicts. Each algorithm's MAPE must be <= 5 % at 10 MiB and
// more and <= 10 % at 1 MiB. The calibration rows are the fastest of 4 repetitions (a slow two-way
// exchange now and then would set the exchange factor). A few minutes, twice that when it has to
// measure again. Skipped, with the reason, where namespaces, tbf or MPI are not available.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#include "netns_testbed.hpp"
#include "calibration/netfit.hpp"
#include "test_util.hpp"

using testutil::Testbed;

namespace {

const std::string kEager = " --mca btl_tcp_eager_limit 67108864 --mca btl_tcp_rndv_eager_limit 67108864";
const std::string kSizes = "1M,10M";

struct Algo {
  std::string name;  // ddlsim's
  int open_mpi_id;   // coll_tuned_allreduce_algorithm
};
const Algo kAlgos[] = {{"ring", 4}, {"rd", 3}, {"rabenseifner", 6}};

using Times = std::map<std::pair<int, long>, double>;  // (ranks, bytes) -> seconds

// MPI_Allreduce with the algorithm forced, at 2 to bed.n ranks, each size the fastest of 3
// repetitions after a warm-up.
Times measure(const Testbed& bed, const testutil::TempFile& dir, const Algo& a, std::string& log) {
  Times out;
  for (int np = 2; np <= bed.n; ++np) {
    const std::string csv = dir.dir() + "/" + a.name + std::to_string(np) + ".csv";
    const auto r = testutil::run_ddlsim(
        "netbench --np " + std::to_string(np) + " --hosts " + bed.hosts() + " --rsh-agent " + testutil::kNetnsAgent +
        " --sizes " + kSizes + " --iters 3 --tests allreduce --csv " + csv + " --" + bed.mpi_options() + kEager +
        " --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm " + std::to_string(a.open_mpi_id));
    if (r.code != 0) {
      log += r.out;
      continue;
    }
    for (const auto& s : ddlsim::parse_netbench_csv(testutil::slurp(csv), csv))
      if (s.test == "allreduce") out[{s.ranks, long(s.bytes)}] = s.time_s;
  }
  return out;
}

// `ddlsim collective` on the fitted platform, as docs/collectives.md's recipe runs it.
Times predict(const std::string& xml, const Algo& a, int max_ranks) {
  Times out;
  for (int np = 2; np <= max_ranks; ++np) {
    const auto r =
        testutil::run_ddlsim("collective --cluster.platform=" + xml + " --cluster.nodes=" + std::to_string(np) +
                             " --comm.library=mpi --comm.eager_limit_kib=65536 --algorithm " + a.name + " --sizes " +
                             kSizes + " --format csv");
    std::istringstream in(r.out);
    std::string line;
    std::getline(in, line);  // collective,ranks,library,algorithm,protocol,size_bytes,count,time_s,...
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::stringstream cells(line);
      for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
      if (f.size() >= 8) out[{np, std::stol(f[5])}] = std::stod(f[7]);
    }
  }
  return out;
}

struct Mape {
  double large = 0, small = 0;  // >= 10 MiB, 1 MiB
  int n_large = 0, n_small = 0;
  bool within() const { return n_large > 0 && n_small > 0 && large <= 0.05 && small <= 0.10; }
};

// Each point's error, a row of `table` each; the MAPE of the large and the small sizes.
Mape score(const Times& measured, const Times& predicted, const std::string& name, std::string& table) {
  Mape m;
  for (const auto& [key, t] : measured) {
    const auto p = predicted.find(key);
    if (p == predicted.end()) continue;
    const double err = p->second / t - 1;
    (key.second >= 10e6 ? m.large : m.small) += std::abs(err);
    ++(key.second >= 10e6 ? m.n_large : m.n_small);
    char row[160];
    std::snprintf(row, sizeof row, "%-13s %d ranks %9ld B  measured %8.4f s  predicted %8.4f s  %+6.1f %%\n",
                  name.c_str(), key.first, key.second, t, p->second, 100 * err);
    table += row;
  }
  if (m.n_large) m.large /= m.n_large;
  if (m.n_small) m.small /= m.n_small;
  return m;
}

}  // namespace

// A busy 2-core machine slows a repetition now and then: where an algorithm misses, the test
// calibrates again and measures every algorithm once more, each point keeping its faster time and
// the prediction coming from the new calibration. Both tables are printed.
TEST(OpenMpiAllreduceNetns, RingRecursiveDoublingAndRabenseifnerWithinTheIssuesTargets) {
  Testbed bed(6);
  if (!bed.why_not.empty()) GTEST_SKIP() << "skipped: " << bed.why_not;
  testutil::TempFile dir("net.csv");
  std::map<std::string, Times> measured;
  std::map<std::string, Mape> scores;
  std::string log;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const testutil::Measured fit = testutil::measure_and_fit(bed, dir, kEager, 4);
    std::cout << fit.log;
    ASSERT_TRUE(fit.ok) << fit.log;
    std::string table;
    bool all_within = true;
    for (const Algo& a : kAlgos) {
      for (const auto& [key, t] : measure(bed, dir, a, log))
        measured[a.name][key] = measured[a.name].count(key) ? std::min(measured[a.name][key], t) : t;
      const Mape m = scores[a.name] = score(measured[a.name], predict(fit.xml, a, bed.n), a.name, table);
      char line[160];
      std::snprintf(line, sizeof line, "%-13s MAPE %.1f %% at 10 MiB and more (%d), %.1f %% at 1 MiB (%d)\n",
                    a.name.c_str(), 100 * m.large, m.n_large, 100 * m.small, m.n_small);
      table += line;
      all_within = all_within && m.within();
    }
    std::cout << "attempt " << attempt + 1 << ":\n" << table;
    if (all_within) break;
  }
  for (const Algo& a : kAlgos) {
    const Mape& m = scores[a.name];
    EXPECT_EQ(m.n_large, bed.n - 1) << a.name << ": points measured\n" << log;
    EXPECT_LE(m.large, 0.05) << a.name << " at 10 MiB and more";
    EXPECT_LE(m.small, 0.10) << a.name << " at 1 MiB";
  }
}
