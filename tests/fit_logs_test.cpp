// `ddlsim fit LOG...`: nccl-tests logs, one per node count, as measurements. Logs written from
// ddlsim's own prediction on a platform whose links were changed: the fit on the small runs finds
// the change again and then predicts the large runs exactly, while "as measured at the largest
// fitted count" does not; bad inputs exit 2 naming what is wrong.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "test_util.hpp"

namespace {

std::string fmt_6g(double v) { return fmt::format("{:.6g}", v); }

// nccl-tests' text for ddlsim's prediction of an allreduce on `nodes` DGX A100s with `extra` keys.
std::string log_of(int nodes, const std::string& extra, bool rank_lines = true) {
  const auto r = testutil::run_ddlsim("collective --cluster.platform=dgx-a100 --cluster.nodes=" + std::to_string(nodes) +
                                      " -b 1K -e 1G -f 4 --format json " + extra);
  EXPECT_EQ(r.code, 0) << r.out;
  std::string t = "# nThread 1 nGpus 1 minBytes 1024 maxBytes 1073741824 step: 4(factor)\n#\n# Using devices\n";
  for (int k = 0; rank_lines && k < nodes * 8; ++k)
    t += "#  Rank " + std::to_string(k) + " Group  0 Pid  1234 on node" + std::to_string(k / 8) + " device  " +
         std::to_string(k % 8) + " [0x07] NVIDIA A100-SXM4-80GB\n";
  t += "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
       "#wrong\n";
  for (const auto& row : nlohmann::json::parse(r.out)) {
    const std::string us = std::to_string(row["time_s"].get<double>() * 1e6);  // out of place and in place
    t += "  " + std::to_string(row["size_bytes"].get<long long>()) + "  1  float  sum  -1  " + us + "  1.0  1.0  0  " +
         us + "  1.0  1.0  0\n";
  }
  return t;
}

struct Logs {
  std::vector<testutil::TempFile> files;
  std::string paths;
  Logs(const std::string& extra, std::vector<int> nodes) {
    files.reserve(nodes.size());
    for (int n : nodes) {
      files.emplace_back("all_reduce_perf_" + std::to_string(n) + ".log", log_of(n, extra));
      paths += " " + files.back().path();
    }
  }
};

}  // namespace

TEST(FitLogs, SmallRunsFindTheLinksAndPredictTheLargeOnes) {
  const Logs logs("--cluster.inter_bw_GBps=12 --cluster.inter_latency_us=6", {1, 2, 4, 8});
  testutil::TempFile base("base.ini", "[cluster]\nplatform = dgx-a100\n");
  testutil::TempFile overlay("fitted.ini");
  const auto r = testutil::run_ddlsim("fit" + logs.paths + " --scenario " + base.path() +
                                      " --train-max-nodes 2 --format json --overlay-out " + overlay.path());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["fitted_on"], "logs on at most 2 nodes");
  EXPECT_EQ(j["scored_nodes"], nlohmann::json::parse("[4, 8]"));
  for (const auto& p : j["effective"]) {
    if (p["name"] == "inter_bw") EXPECT_NEAR(p["after"].get<double>(), 12, 0.01 * 12);
    if (p["name"] == "inter_latency") EXPECT_NEAR(p["after"].get<double>(), 6, 0.01 * 6);
  }
  ASSERT_EQ(j["scale_out"].size(), 4u);  // three bands and all
  for (const auto& b : j["scale_out"]) {
    EXPECT_LT(b["fitted"]["mape"].get<double>(), 0.01) << b;
    EXPECT_GT(b["a_priori"]["mape"].get<double>(), 0.03) << b;  // the platform's own links are off
    EXPECT_EQ(b["baseline"]["n"], b["fitted"]["n"]) << b;       // every size was measured at 2 nodes
  }
  EXPECT_GT(j["scale_out"][3]["baseline"]["mape"].get<double>(), 0.2);
  // The overlay carries the values; collective with it gives the large runs' times.
  const std::string written = testutil::slurp(overlay.path());
  EXPECT_NE(written.find("[cluster]\ninter_bw_GBps = 1"), std::string::npos) << written;
  // Fitted on every log, in sample.
  const auto all = testutil::run_ddlsim("fit" + logs.paths + " --scenario " + base.path() + " --format json");
  ASSERT_EQ(all.code, 0) << all.out;
  EXPECT_LT(nlohmann::json::parse(all.out)["in_sample"][3]["fitted"]["mape"].get<double>(), 0.01);
}

TEST(FitLogs, BadInputsExit2) {
  testutil::TempFile base("base.ini", "[cluster]\nplatform = dgx-a100\n");
  const Logs logs("", {1, 2});
  const auto run = [&](const std::string& args) { return testutil::run_ddlsim("fit" + logs.paths + " --scenario " + base.path() + args); };
  auto r = run(" --params compute");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("nccl-tests logs measure no compute"), std::string::npos) << r.out;
  r = run(" --train-max-nodes 2");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--train-max-nodes 2: no log has more nodes to score"), std::string::npos) << r.out;
  testutil::TempFile anonymous("all_reduce_perf.log", log_of(1, "", false));
  r = testutil::run_ddlsim("fit " + anonymous.path() + " --scenario " + base.path());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("lists no ranks"), std::string::npos) << r.out;
  // The logs' options on a CSV of runs.
  testutil::TempFile runs("runs.csv", "cluster.nodes,step_time_s\n1,0.5\n2,0.6\n");
  r = testutil::run_ddlsim("fit " + runs.path() + " --scenario " + base.path() + " --train-max-nodes 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--train-max-nodes is for nccl-tests logs"), std::string::npos) << r.out;
  // A latency the data push to zero stops at the edge of its range; --strict refuses it (the links'
  // latency alone: NCCL's own per-step floors would hide it).
  const Logs zero("--cluster.inter_latency_us=0 --comm.round_latency=network", {2, 4});
  r = testutil::run_ddlsim("fit" + zero.paths + " --scenario " + base.path() +
                           " --params inter_bw,inter_latency --strict --comm.round_latency=network");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("fit --strict: cluster.inter_latency_us = 0.0001 is at the edge"), std::string::npos) << r.out;
}

// What the fit leaves: measured / fitted time over the fitted sizes of 1 MiB and more, its 10th and
// 90th percentiles, recomputed here from `compare` of each log on the fitted overlay; the overlay
// carries them as comm.time_p10 and comm.time_p90, and a prediction on it takes them as its
// exchanges' spread in place of the default one.
TEST(FitLogs, WhatTheFitLeavesBecomesTheIntervalsSpread) {
  const std::string dir = testutil::source_dir() + "/scenarios/validation/nccl/";
  const std::string scenario = dir + "h100_ib400.ini";
  const std::vector<std::pair<int, std::string>> logs = {{2, dir + "h100_ib400_gjaion/2n_8g_issue309_default.log"},
                                                         {4, dir + "h100_ib400_gjaion/4n_8g_issue309_default.log"}};
  testutil::TempFile overlay("fitted.ini");
  const auto r = testutil::run_ddlsim("fit " + logs[0].second + " " + logs[1].second + " --op allreduce --scenario " +
                                      scenario + " --format json --overlay-out " + overlay.path());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto spread = nlohmann::json::parse(r.out)["time_spread"];
  ASSERT_TRUE(spread.is_object()) << r.out;
  std::vector<double> ratio;
  for (const auto& [nodes, log] : logs) {
    const auto c = testutil::run_ddlsim("compare " + log + " --op allreduce --scenario " + scenario + " --overlay " +
                                        overlay.path() + " --cluster.nodes=" + std::to_string(nodes) + " --format csv");
    ASSERT_EQ(c.code, 0) << c.out;
    std::istringstream in(c.out);
    std::string line;
    std::getline(in, line);  // size_bytes,algorithm,measured_s,predicted_s,error
    while (std::getline(in, line)) {
      std::vector<std::string> cells;
      for (std::stringstream cs(line); std::getline(cs, line, ',');) cells.push_back(line);
      if (std::stod(cells[0]) >= 1 << 20) ratio.push_back(std::stod(cells[2]) / std::stod(cells[3]));
    }
  }
  ASSERT_EQ(spread["n"].get<std::size_t>(), ratio.size());
  const auto quantile = [&](double q) { return testutil::quantile(ratio, q); };
  EXPECT_NEAR(spread["p10"].get<double>(), quantile(0.1), 1e-9);
  EXPECT_NEAR(spread["p90"].get<double>(), quantile(0.9), 1e-9);
  const std::string written = testutil::slurp(overlay.path());
  EXPECT_NE(written.find("[comm]"), std::string::npos) << written;
  EXPECT_NE(written.find("time_p10 = " + fmt_6g(spread["p10"].get<double>())), std::string::npos) << written;
  EXPECT_NE(written.find("time_p90 = " + fmt_6g(spread["p90"].get<double>())), std::string::npos) << written;
  // A prediction on the fitted links: the fit's spread, not the default one.
  const auto t = testutil::run_ddlsim("simulate " + scenario + " --overlay " + overlay.path() +
                                      " --cluster.nodes=4 --explain-uncertainty");
  ASSERT_EQ(t.code, 0) << t.out;
  EXPECT_NE(t.out.find("exchange time (fitted)"), std::string::npos) << t.out;
  EXPECT_EQ(t.out.find("NCCL across nodes"), std::string::npos) << t.out;
}

TEST(FitLogs, FittedSpreadKeysComeTogetherAndInOrder) {
  auto r = testutil::run_ddlsim("simulate --cluster.nodes=2 --comm.time_p10=0.9");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("comm.time_p10 and comm.time_p90 together"), std::string::npos) << r.out;
  r = testutil::run_ddlsim("simulate --cluster.nodes=2 --comm.time_p10=1.2 --comm.time_p90=1.1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("at most comm.time_p90"), std::string::npos) << r.out;
}

// A link's bandwidth is fitted only where it bounds the largest messages of the logs fitted: on two
// DGX H100 nodes NVLink SHARP's tree bounds an allreduce's large sizes (the rails carry half the
// bytes), so logs written with slower rails leave cluster.inter_bw_GBps as it was, and say why;
// on DGX A100 (rings over the rails) the same fit finds the rails' bandwidth (the test above).
TEST(FitLogs, ABandwidthThatBoundsNothingIsKept) {
  testutil::TempFile log("2n_8g_all_reduce_perf.log", "");
  const auto r0 = testutil::run_ddlsim("collective --cluster.platform=dgx-h100 --cluster.nodes=2 -b 1M -e 4G -f 4 "
                                       "--format json --cluster.inter_bw_GBps=40");
  ASSERT_EQ(r0.code, 0) << r0.out;
  std::string t = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
                  "busbw #wrong\n";
  for (const auto& row : nlohmann::json::parse(r0.out)) {
    const std::string us = std::to_string(row["time_s"].get<double>() * 1e6);
    t += "  " + std::to_string(row["size_bytes"].get<long long>()) + "  1  float  sum  -1  " + us + "  1.0  1.0  0  " + us +
         "  1.0  1.0  0\n";
  }
  std::ofstream(log.path()) << t;
  testutil::TempFile base("base.ini", "[cluster]\nplatform = dgx-h100\n");
  const auto r = testutil::run_ddlsim("fit " + log.path() + " --scenario " + base.path() + " --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  bool seen = false;
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& p : j["effective"])
    if (p["name"] == "inter_bw") {
      seen = true;
      EXPECT_DOUBLE_EQ(p["after"].get<double>(), p["before"].get<double>()) << p;
      EXPECT_NE(p["note"].get<std::string>().find("not what bounds the largest messages"), std::string::npos) << p;
    }
  EXPECT_TRUE(seen) << r.out;
}

// A log run as one thread driving several GPUs (nccl-tests -g G, "nGpus G" in its header) is fitted
// as it is, with a note: its small sizes carry G launches from one thread, a job with a process a
// GPU does not. A log of one GPU a thread has no note.
TEST(FitLogs, ALogOfSeveralGpusAThreadIsNoted) {
  std::string one_thread = log_of(1, "");
  one_thread.replace(one_thread.find("nGpus 1"), 7, "nGpus 8");
  testutil::TempFile g8("all_reduce_perf_g8.log", one_thread), g1("all_reduce_perf_g1.log", log_of(1, ""));
  const std::string scenario = " --scenario " + testutil::source_dir() + "/scenarios/validation/nccl/dgx_a100_40gb_8g.ini";
  const auto a = testutil::run_ddlsim("fit " + g8.path() + scenario);
  ASSERT_EQ(a.code, 0) << a.out;
  EXPECT_NE(a.out.find("note: " + g8.path() + " ran 8 GPUs from each thread (nccl-tests -g 8)"), std::string::npos) << a.out;
  const auto b = testutil::run_ddlsim("fit " + g1.path() + scenario);
  ASSERT_EQ(b.code, 0) << b.out;
  EXPECT_EQ(b.out.find("note:"), std::string::npos) << b.out;
}

namespace {

// nccl-tests' text for ddlsim's prediction of an all-gather on `nodes` nodes of 4 A100s and 2 NICs
// of 200 Gb/s (Polaris's shape) with `extra` keys.
std::string gather_log(int nodes, const std::string& extra) {
  const auto r = testutil::run_ddlsim("collective --op allgather --cluster.platform=dgx-a100 --cluster.gpus_per_node=4 "
                                      "--cluster.nics=2 --cluster.inter=200gbe --cluster.nodes=" +
                                      std::to_string(nodes) + " -b 1K -e 1G -f 2 --format json " + extra);
  EXPECT_EQ(r.code, 0) << r.out;
  std::string t = "# nThread 1 nGpus 1 minBytes 1024 maxBytes 1073741824 step: 2(factor)\n#\n# Using devices\n";
  for (int k = 0; k < nodes * 4; ++k)
    t += "#  Rank " + std::to_string(k) + " Group  0 Pid  1234 on node" + std::to_string(k / 4) + " device  " +
         std::to_string(k % 4) + " [0x07] NVIDIA A100-SXM4-40GB\n";
  t += "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
       "#wrong\n";
  for (const auto& row : nlohmann::json::parse(r.out)) {
    const std::string us = fmt::format("{:.6f}", row["time_s"].get<double>() * 1e6);
    t += "  " + std::to_string(row["size_bytes"].get<long long>()) + "  1  float  none  -1  " + us +
         "  1.0  1.0  0  " + us + "  1.0  1.0  0\n";
  }
  return t;
}

double effective(const nlohmann::json& j, const char* name) {
  for (const auto& p : j["effective"])
    if (p["name"] == name) return p["after"].get<double>();
  ADD_FAILURE() << name;
  return NAN;
}

}  // namespace

// A network plugin's rendezvous (--params ...,net_rendezvous): logs written from ddlsim's own
// all-gather at every power of two (so that some step falls between each two limits tried) with a
// 32 KiB limit and 25 us on links changed to 19 GB/s and 13 us; fitted on two nodes, the threshold
// (a power of two) and the three values come back and eight nodes are predicted exactly; the
// overlay carries both keys. On logs with no rendezvous, none is fitted and the overlay leaves the
// keys out.
TEST(FitLogs, ARendezvousIsFoundAndCarriesToMoreNodes) {
  const std::string keys = "--cluster.net_eager_kib=32 --cluster.net_rendezvous_us=25 --cluster.inter_bw_GBps=19 "
                           "--cluster.inter_latency_us=13";
  const testutil::TempFile two("all_gather_perf_2.log", gather_log(2, keys)), eight("all_gather_perf_8.log",
                                                                                     gather_log(8, keys));
  const testutil::TempFile base("base.ini", "[cluster]\nplatform = dgx-a100\ngpus_per_node = 4\nnics = 2\n"
                                            "inter = 200gbe\n");
  testutil::TempFile overlay("fitted.ini");
  const std::string params = " --params inter_bw,inter_latency,net_rendezvous --format json --scenario " + base.path();
  const auto r = testutil::run_ddlsim("fit " + two.path() + " " + eight.path() + params +
                                      " --train-max-nodes 2 --overlay-out " + overlay.path());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(effective(j, "net_eager"), 32);
  EXPECT_NEAR(effective(j, "net_rendezvous"), 25, 0.01 * 25);
  EXPECT_NEAR(effective(j, "inter_bw"), 19, 0.01 * 19);
  EXPECT_NEAR(effective(j, "inter_latency"), 13, 0.01 * 13);
  for (const auto& b : j["scale_out"]) EXPECT_LT(b["fitted"]["mape"].get<double>(), 0.01) << b;
  const std::string written = testutil::slurp(overlay.path());
  EXPECT_NE(written.find("net_eager_kib = 32"), std::string::npos) << written;
  const std::size_t at = written.find("net_rendezvous_us = ");
  ASSERT_NE(at, std::string::npos) << written;
  EXPECT_NEAR(std::stod(written.substr(at + 20)), 25, 0.01 * 25) << written;

  const testutil::TempFile plain("all_gather_perf_2.log", gather_log(2, ""));
  testutil::TempFile none("none.ini");
  const auto p = testutil::run_ddlsim("fit " + plain.path() + params + " --overlay-out " + none.path());
  ASSERT_EQ(p.code, 0) << p.out;
  const auto k = nlohmann::json::parse(p.out);
  EXPECT_EQ(effective(k, "net_rendezvous"), 0);
  EXPECT_EQ(effective(k, "net_eager"), 0);
  EXPECT_EQ(testutil::slurp(none.path()).find("net_"), std::string::npos) << testutil::slurp(none.path());

}
