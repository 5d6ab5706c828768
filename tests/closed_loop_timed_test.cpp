// The closed loop on a real framework: PyTorch DDP (gloo, one thread a rank) in 2 network
// namespaces joined by a bridge whose ports are shaped with tbf to 100 Mbit/s both ways
// (calibration/netns_testbed.sh; ranks started in the namespaces by mpirun through
// calibration/netns_rsh_agent.sh, one a namespace, each pinned to its own core of this 2-core
// machine). Per configuration the kit (calibration/torch/ddp_runner.py) measures the step with
// 1 rank (the compute calibration: compute.throughput = batch / step) and with 2; the network is
// calibrated with `ddlsim netbench --library gloo` + `ddlsim netfit`; `ddlsim compare` predicts the
// 2-rank step with both backends. It must be within 10 % MAPE and better than linear scaling.
// The same loop runs ZeRO-3 written out on gloo (calibration/torch/sharded_runner.py: units of
// 1 MiB, one prefetched both ways; training.sharding = zero3 from its CSV) in place of DDP.
// Configurations: mobilenet_v2 (torchvision, 10 classes, 8.9 MB of gradients) at 32x32 batch 16
// (communication-bound) and 64x64 batch 32 (compute closer to the exchange), DDP buckets of 1 MiB
// (bucket_cap_mb = 1 = comm.bucket_mb): DDP's first bucket is 1 MiB whatever the cap
// (torch.distributed's _DEFAULT_FIRST_BUCKET_BYTES; comm.first_bucket_mb), so with 1 MiB every
// bucket is the same size. Skipped, with the reason, where namespaces, tbf, mpirun or torch are
// not available.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_util.hpp"

namespace {

const std::string kSrc = testutil::source_dir();
const std::string kScript = kSrc + "/calibration/netns_testbed.sh";
const std::string kAgent = kSrc + "/calibration/netns_rsh_agent.sh";
const std::string kDdpRunner = kSrc + "/calibration/torch/ddp_runner.py";
const std::string kShardedRunner = kSrc + "/calibration/torch/sharded_runner.py";
const std::string kPython = "/usr/bin/python3";

int sh(const std::string& cmd) { return std::system(("{ " + cmd + "; } >/dev/null 2>&1").c_str()); }

struct Testbed {
  std::string prefix = "dcl" + std::to_string(::getpid() % 100000);
  std::string subnet = testutil::free_subnet("10.78", ::getpid() % 250);
  int n = 2;
  bool up = false;
  std::string why_not;

  Testbed() {
    if (::geteuid() != 0) { why_not = "not root: network namespaces need CAP_NET_ADMIN"; return; }
    if (sh(kPython + " -c 'import torch, torchvision'") != 0) { why_not = "no torch (Debian: python3-torch python3-torchvision)"; return; }
    if (sh("command -v mpirun") != 0) { why_not = "mpirun not found (Debian: openmpi-bin; it starts the ranks in the namespaces)"; return; }
    if (sh("command -v unshare && command -v tc && command -v ip") != 0) { why_not = "ip, tc or unshare missing (iproute2, util-linux)"; return; }
    const int rc = sh("sh " + kScript + " up " + prefix + " " + std::to_string(n) + " 100mbit " + subnet);
    up = true;
    if (rc != 0) why_not = "could not create namespaces, veth pairs or tbf qdiscs here (" + kScript + " up failed)";
  }
  ~Testbed() {
    if (up) sh("sh " + kScript + " down " + prefix + " " + std::to_string(n));
  }
  std::string master() const { return subnet + ".1"; }
  // mpirun starting one process in each namespace; Open MPI binds nothing (the runner pins itself).
  std::string mpirun() const {
    std::string hosts;
    for (int i = 0; i < n; ++i) hosts += (i ? "," : "") + prefix + std::to_string(i);
    return "mpirun --allow-run-as-root -np " + std::to_string(n) + " -H " + hosts + " --mca plm_rsh_agent " + kAgent +
           " --mca oob_tcp_if_include " + subnet + ".0/24 --bind-to none";
  }
};

struct Config {
  int size, batch;
};
const Config kConfigs[] = {{32, 16}, {64, 32}};

std::string runner_args(const std::string& runner, const Config& c, const std::string& csv, const std::string& pin,
                        int warmup = 2, int steps = 6) {
  return runner + " --model mobilenet_v2 --classes 10 --input-size " + std::to_string(c.size) + " --batch " +
         std::to_string(c.batch) + " --bucket-mb 1 --warmup " + std::to_string(warmup) + " --steps " +
         std::to_string(steps) + " --nosync-steps 0 --allreduce-reps 0 --pin " + pin + " --append --csv " + csv;
}

// The 1-rank calibration under the same host occupancy as the 2-rank run: two independent 1-rank
// runs at once, one a core (the first one's row counts), so that each rank's compute shares the
// machine as the 2-rank ranks do (a lone rank would compute faster: shared caches, memory
// bandwidth, whatever else runs on the machine). The twin runs longer (more warm-up and steps) so
// that it is busy during all of the first one's timed steps.
std::string one_rank(const std::string& runner, const Config& c, const std::string& csv) {
  const int port = 20000 + 2 * (::getpid() % 10000);  // two free ports of the loopback rendezvous
  const std::string mine = kPython + " " + runner_args(runner, c, csv, "0") + " --master-port " + std::to_string(port);
  const std::string twin = kPython + " " + runner_args(runner, c, csv + ".twin", "1", 4, 12) + " --master-port " +
                           std::to_string(port + 1);
  return "timeout 200 sh -c '" + twin + " & t=$!; " + mine + "; m=$?; wait $t && [ $m = 0 ]'";
}

// 1 rank here, then 2 in the namespaces (each pinned to its own core); every row into `csv`.
// The 1-rank calibration is taken before and after the 2-rank run (two rows: compare averages
// them as replications), so that a change of the machine's load during the run shows in both.
bool measure(const Testbed& bed, const std::string& runner, const std::string& csv, std::string& log) {
  for (const auto& c : kConfigs) {
    const std::string two = "timeout 200 " + bed.mpirun() + " " + kPython + " " + runner_args(runner, c, csv, "rank") +
                            " --master-addr " + bed.master();
    for (const std::string& cmd : {one_rank(runner, c, csv), two, one_rank(runner, c, csv)}) {
      const auto r = testutil::run_shell(cmd + " 2>&1");
      log += r.out;
      if (r.code == 0) continue;
      log += "exit code " + std::to_string(r.code) + " of " + cmd + "\n";
      return false;
    }
  }
  return true;
}

// gloo's network through `netbench --library gloo`, fitted by netfit into `xml`.
bool calibrate_network(const Testbed& bed, const std::string& dir, const std::string& xml, std::string& log) {
  const std::string csv = dir + "/net.csv";
  std::string hosts = bed.prefix + "0," + bed.prefix + "1";
  const auto nb = testutil::run_ddlsim("netbench --library gloo --np 2 --hosts " + hosts + " --rsh-agent " + kAgent +
                                       " --master-addr " + bed.master() + " --sizes 2M,4M --iters 2 --window 2 --tests "
                                       "pingpong,bw,exchange,ring --csv " + csv + " -- --mca oob_tcp_if_include " +
                                       bed.subnet + ".0/24 --bind-to none");
  log += nb.out;
  if (nb.code != 0) return false;
  const auto fit = testutil::run_ddlsim("netfit " + csv + " --out " + xml);
  log += fit.out;
  return fit.code == 0;
}

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string c; std::getline(in, c, ',');) out.push_back(c);
  return out;
}

// The measured CSV with a compute.throughput column: batch / mean step of the configuration's
// 1-rank rows (the existing mechanism for measured compute, scenario key compute.throughput), on
// every row of that configuration. Also returns the spread (p10, p90) by configuration label: the
// widest of the rows.
std::string with_throughput(const std::string& csv, std::map<std::string, std::string>& spread) {
  std::stringstream in(csv);
  std::string header;
  std::getline(in, header);
  const auto h = cells(header);
  auto col = [&](const std::string& name) { return int(std::find(h.begin(), h.end(), name) - h.begin()); };
  const int size = col("model.input_size"), batch = col("training.batch_per_gpu"), nodes = col("cluster.nodes"),
            step = col("step_time_s"), p10 = col("step_time_p10_s"), p90 = col("step_time_p90_s");
  std::vector<std::vector<std::string>> rows;
  std::map<std::string, std::pair<double, int>> one_rank;  // sum of steps, rows
  std::map<std::string, std::pair<double, double>> range;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    rows.push_back(cells(line));
    const auto& r = rows.back();
    const std::string key = r[size] + "/" + r[batch];
    auto [it, fresh] = range.emplace(key + "/" + r[nodes], std::make_pair(std::stod(r[p10]), std::stod(r[p90])));
    it->second = {std::min(it->second.first, std::stod(r[p10])), std::max(it->second.second, std::stod(r[p90]))};
    if (r[nodes] == "1") one_rank[key].first += std::stod(r[step]), one_rank[key].second += 1;
  }
  for (const auto& [k, v] : range) spread[k] = fmt::format("{:.3f}, {:.3f}", v.first, v.second);
  std::string out = header + ",compute.throughput\n";
  for (const auto& r : rows) {
    const auto& [sum, n] = one_rank.at(r[size] + "/" + r[batch]);
    std::string line;
    for (const auto& c : r) line += c + ",";
    out += line + std::to_string(std::stod(r[batch]) * n / sum) + "\n";
  }
  return out;
}

nlohmann::json compare(const std::string& measured, const std::string& xml, const std::string& backend,
                       const std::string& dir, std::string& log) {
  const std::string ini = dir + "/base.ini";
  std::ofstream(ini) << "[training]\nframework = pytorch_ddp\n[cluster]\nplatform = " << xml
                     << "\n[input]\nformat = synthetic\n[simulation]\nbackend = " << backend << "\n";
  const auto r = testutil::run_ddlsim("compare " + measured + " --scenario " + ini + " --metric step_time_s --format json");
  log += r.code == 0 ? "" : r.out;
  return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

struct Loop {
  bool ok = false;
  std::string log;
  std::map<std::string, std::string> spread;
  nlohmann::json analytic, simgrid;
};

Loop run_loop(const Testbed& bed, const std::string& runner) {
  Loop l;
  testutil::TempFile dir("measured.csv");
  const std::string xml = dir.dir() + "/fitted.xml", measured = dir.dir() + "/compare.csv";
  if (!measure(bed, runner, dir.path(), l.log) || !calibrate_network(bed, dir.dir(), xml, l.log)) return l;
  std::ofstream(measured) << with_throughput(testutil::slurp(dir.path()), l.spread);
  l.analytic = compare(measured, xml, "analytic", dir.dir(), l.log);
  l.simgrid = compare(measured, xml, "simgrid", dir.dir(), l.log);
  l.ok = !l.analytic.is_null() && !l.simgrid.is_null();
  return l;
}

bool within(const nlohmann::json& c) {
  const double mape = c["model_scaled"]["mape"], linear = c["baseline_scaled"]["mape"];
  return c["model_scaled"]["n"] == 2 && mape <= 0.10 && mape < linear;
}

void print_table(const Loop& l) {
  std::cout << "closed loop, step time (s):\n"
            << fmt::format("  {:>7} {:>5} {:>5} {:>9} {:>15} {:>17} {:>17} {:>9}\n", "input", "batch", "ranks", "measured",
                           "[p10, p90]", "analytic", "simgrid", "linear");
  const auto& a = l.analytic["rows"];
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto& r = a[i];
    const auto& s = l.simgrid["rows"][i];
    const std::string key = r.value("model.input_size", "?") + "/" + r.value("training.batch_per_gpu", "?");
    const int ranks = r["ranks"];
    std::cout << fmt::format("  {:>7} {:>5} {:>5} {:>9.3f} [{:>13}] {:>7.3f} ({:+5.1f} %) {:>7.3f} ({:+5.1f} %) {:>9}\n",
                             r.value("model.input_size", "?"), r.value("training.batch_per_gpu", "?"), ranks,
                             r["measured"].get<double>(), l.spread.at(key + "/" + std::to_string(ranks)),
                             r["predicted"].get<double>(), 100 * r["error"].get<double>(), s["predicted"].get<double>(),
                             100 * s["error"].get<double>(),
                             r["baseline"].is_null() ? "-" : fmt::format("{:.3f}", r["baseline"].get<double>()));
  }
  for (const auto* c : {&l.analytic, &l.simgrid})
    std::cout << fmt::format("  MAPE of the 2-rank steps: {:.1f} % ({}), linear scaling {:.1f} %\n",
                             100 * (*c)["model_scaled"]["mape"].get<double>(), c == &l.analytic ? "analytic" : "simgrid",
                             100 * (*c)["baseline_scaled"]["mape"].get<double>());
}

// A second loop (measure, calibrate, predict) runs only when the first misses (a busy 2-core
// machine disturbs a measurement now and then); both are printed.
void expect_loop_within_10_percent(const std::string& runner) {
  Testbed bed;
  if (!bed.why_not.empty()) GTEST_SKIP() << "skipped: " << bed.why_not;
  Loop l;
  for (int attempt = 0; attempt < 2; ++attempt) {
    l = run_loop(bed, runner);
    std::cout << l.log;
    if (!l.ok) continue;
    print_table(l);
    if (within(l.analytic) && within(l.simgrid)) break;
  }
  ASSERT_TRUE(l.ok) << "no loop ran to the end (the log above says where it stopped)";
  for (const auto* c : {&l.analytic, &l.simgrid}) {
    ASSERT_EQ((*c)["model_scaled"]["n"], 2) << "two 2-rank configurations with a 1-rank reference";
    EXPECT_LE((*c)["model_scaled"]["mape"].get<double>(), 0.10);
    EXPECT_LT((*c)["model_scaled"]["mape"].get<double>(), (*c)["baseline_scaled"]["mape"].get<double>());
  }
}

}  // namespace

TEST(ClosedLoop, DdpGlooStepPredictedWithin10PercentAndBetterThanLinear) { expect_loop_within_10_percent(kDdpRunner); }

// ZeRO-3 on gloo: per unit, gathers before each pass and a reduce-scatter after the backward.
TEST(ClosedLoop, ShardedGlooStepPredictedWithin10PercentAndBetterThanLinear) {
  expect_loop_within_10_percent(kShardedRunner);
}
