// `ddlsim collective`: nccl-tests' and OSU's outputs, the bus bandwidth a ring reaches on a plain
// link, and clear errors for bad options.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "system/platform.hpp"
#include "test_util.hpp"

using testutil::run_ddlsim;

TEST(CollectiveCmd, LargeRingAllreduceReachesTheLinkBandwidthAsBusBandwidth) {
  // busbw = 2 (p-1)/p x n / t with t = 2 (p-1) (alpha + n / (p B)) -> B as n grows: 1 GiB on 4 Tupi
  // nodes (1 GbE) is within 0.1 % of the route's bandwidth.
  const auto r = run_ddlsim("collective --cluster.platform=tupi --cluster.nodes=4 --sizes 1G --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  const double route_GBps = ddlsim::find_cluster("tupi", "").inter_route().bw_Bps / 1e9;
  EXPECT_NEAR(j[0]["busbw_GBps"].get<double>(), route_GBps, 1e-3 * route_GBps) << r.out;
  EXPECT_EQ(j[0]["algorithm"], "ring");
  EXPECT_EQ(j[0]["count"], 268435456);
}

TEST(CollectiveCmd, NcclTestsAndOsuLayouts) {
  const auto nccl = run_ddlsim("collective --cluster.nodes=2 -b 8 -e 1K -f 4");
  ASSERT_EQ(nccl.code, 0) << nccl.out;
  EXPECT_NE(nccl.out.find("(B)    (elements)"), std::string::npos) << nccl.out;
  EXPECT_NE(nccl.out.find("(GB/s)"), std::string::npos) << nccl.out;
  // 8, 32, 128, 512 bytes
  EXPECT_NE(nccl.out.find("\n         512           128     float     sum      -1"), std::string::npos) << nccl.out;
  const auto osu = run_ddlsim("collective --cluster.nodes=2 --op broadcast --sizes 4,8 --format osu");
  ASSERT_EQ(osu.code, 0) << osu.out;
  EXPECT_NE(osu.out.find("Avg Latency(us)"), std::string::npos) << osu.out;
  EXPECT_NE(osu.out.find("\n8  "), std::string::npos) << osu.out;
}

TEST(CollectiveCmd, BadOptionsExit2WithTheOptionNamed) {
  const struct {
    const char* args;
    const char* says;
  } cases[] = {
      {"--op gather", "--op = 'gather': unknown collective"},
      {"--sizes 0", "--sizes '0'"},
      {"--sizes 1Q", "--sizes '1Q'"},
      {"--sizes 8,68719476737", "--sizes '68719476737': expected a size in bytes from 1 to 64G"},
      {"-f 1", "--step-factor '1'"},
      {"-b 1M -e 1K", "--max-bytes is below --min-bytes"},
      {"--algorithm pairwise", "algorithm 'pairwise' does not run allreduce"},
      {"--op alltoall --algorithm ring", "algorithm 'ring' does not run alltoall; expected pairwise or auto"},
      {"--format xml", "--format = 'xml'"},
      {"--comm.library=psm", "comm.library = 'psm': unknown communication library"},
  };
  for (const auto& c : cases) {
    const auto r = run_ddlsim(std::string("collective --cluster.nodes=2 ") + c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << c.args << "\n" << r.out;
  }
  // Any byte count up to 64 GiB, written out in full (11 digits were refused as "too many sizes").
  const auto big = run_ddlsim("collective --cluster.nodes=2 --sizes 17179869184,64G --format csv");
  EXPECT_EQ(big.code, 0) << big.out;
  EXPECT_NE(big.out.find(",17179869184,4294967296,"), std::string::npos) << big.out;
}

// The built-in systems users rent or own: a large ring allreduce reaches, as bus bandwidth, the
// effective figure of the link that bounds it (docs/design.md "Link kinds" derives each figure):
// inside a DGX the NVLink kind; across nodes the NICs aggregated (rails) or the NVLink, whichever
// is lower. (The ring is asked for: `auto` takes NVLink SHARP on the H100 node, tests/nvls_test.cpp.)
TEST(CollectiveCmd, BuiltInSystemsReachTheirBoundingLinkAsBusBandwidth) {
  const struct {
    const char* platform;
    int nodes;
    double expected_GBps;
  } cases[] = {
      {"dgx-a100", 1, 230.0},          // nvlink3
      {"dgx-a100", 4, 8 * 24.0},       // 8 x ib-hdr (192 GB/s) < nvlink3
      {"dgx-h100", 1, 345.0},          // nvlink4
      {"dgx-h100", 2, 345.0},          // 8 x ib-ndr (384 GB/s) > nvlink4
      {"aws-p4d-24xlarge", 2, 46.0},   // 4 x 100gbe (4 x 11.5)
      {"aws-p3-16xlarge", 2, 2.9},     // 25gbe
      {"workstation-4x3090", 1, 24.0}, // pcie4
      {"aws-g4dn-metal", 1, 10.0},     // pcie3 over two Cascade Lake sockets: UPI's 10 (NCCL's SKL)
      {"aws-g4dn-metal", 2, 7.6},      // NCCL's socket transport on ENA: 2 channels x min(2 threads x 1.9,
                                       // 16 sockets x 1.25 a flow), below UPI's 10 and 100gbe-tcp's 11.75
      {"aws-p3dn-24xlarge", 2, 11.5},  // 100gbe
      {"aws-p5-48xlarge", 2, 345.0},   // nvlink4 < 8 x 400gbe (368 GB/s)
      {"azure-nc24rs-v3", 1, 10.0},    // pcie3 through a Broadwell root complex: 12 x 5/6
      {"azure-nc24rs-v3", 2, 6.0},     // ib-fdr
      {"azure-nd40rs-v2", 1, 130.0},   // nvlink2
      {"azure-nd40rs-v2", 2, 12.0},    // one ib-edr port
      {"azure-nd96asr-v4", 4, 192.0},  // 8 x ib-hdr, as the DGX A100
      {"azure-nd96isr-h100-v5", 2, 345.0},  // nvlink4 < 8 x ib-ndr, as the DGX H100
  };
  for (const auto& c : cases) {
    const auto r = run_ddlsim(std::string("collective --algorithm ring --cluster.platform=") + c.platform +
                              " --cluster.nodes=" + std::to_string(c.nodes) + " --sizes 16G --format json");
    ASSERT_EQ(r.code, 0) << c.platform << "\n" << r.out;
    const double busbw = nlohmann::json::parse(r.out)[0]["busbw_GBps"].get<double>();
    EXPECT_NEAR(busbw, c.expected_GBps, 0.01 * c.expected_GBps) << c.platform << " x " << c.nodes;
  }
  const auto bad = run_ddlsim("collective --cluster.platform=dgx-a100 --cluster.nodes=2 --cluster.nics=0");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("cluster.nics = '0': expected a positive integer"), std::string::npos) << bad.out;
  const auto list = run_ddlsim("platform list");
  EXPECT_EQ(list.code, 0);
  EXPECT_NE(list.out.find("dgx-h100"), std::string::npos);
}

// Published nccl-tests all_reduce_perf bus bandwidths of whole systems (none of them chosen any
// constant: the link figures come from line rates, docs/design.md "Link kinds"), within 10 %:
// * 8 A100 SXM4 80GB on NVSwitch, one node (`azure-nd96amsr-a100-v4`, NDm A100 v4; the DGX A100's GPU
//   board, so `dgx-a100` is held to it too): Azure's ND A100 v4 results
//   (github.com/Azure/AI-benchmarking-guide, Azure_Results/ND_A100_v4_results.md, NCCL 2.18.5):
//   228.10 GB/s at 1 GB, 231.58 at 8 GB; Microsoft SuperBench's NDmv4 baseline
//   (microsoft/superbench-results v0.4.0/Azure-NDmv4-A100/baseline.json): 231.36 at 1 GiB,
//   235.65 at 8 GiB.
// * AWS p4d.24xlarge across nodes (4 x 100 Gb/s EFA): "effective 340 Gbps for all_reduce tests"
//   (stas00/ml-engineering, network/README.md): 42.5 GB/s; the size is not stated, so the
//   prediction is taken at 8 GiB on 2 nodes.
// * 2 V100 PCIe 32GB on PCIe 3.0 x16 (SuperBench v0.2.1, microsoft/superbench-results
//   v0.2.1/V100/results-summary-v100.json and sysinfo-v100.json, CUDA 10.2): busbw 11.68 GB/s at
//   1 GiB; ddlsim's pcie3 gives 12.0 (the link kinds' 76 % of PCIe 3.0 x16). Checked after this
//   test was written, nothing set from it: from 64 KiB to 8 GiB that curve's busbw is within 3.1 %
//   of ddlsim's on average (1 MiB: 103.6 us measured, 107.2 predicted), but up to 8 KiB it took
//   9.1-11.1 us where the Simple protocol's floors give 19.8 (NCCL runs LL there).
// Known gap, not asserted: between 8 and 256 MB the same Azure curve is up to a third below
// ddlsim's (16 MB: 109 GB/s measured, 160 predicted): NCCL's channels and chunks are not modelled.
// The DGX H100's published 479 GB/s uses NVLink SHARP: tests/nvls_test.cpp.
TEST(CollectiveCmd, PublishedBusBandwidthsOfWholeSystems) {
  const struct {
    const char* platform;
    int nodes;
    const char* size;
    double published_GBps;
    const char* extra;
  } cases[] = {
      {"azure-nd96amsr-a100-v4", 1, "1G", 228.10, ""}, {"azure-nd96amsr-a100-v4", 1, "8G", 231.58, ""},
      {"azure-nd96amsr-a100-v4", 1, "1G", 231.36, ""}, {"azure-nd96amsr-a100-v4", 1, "8G", 235.65, ""},
      {"dgx-a100", 1, "8G", 231.58, ""},  // the same GPU board (HGX A100) as NDm A100 v4
      {"aws-p4d-24xlarge", 2, "8G", 42.5, ""},
      {"cluster4x25g", 1, "1073741824", 11.68, " --cluster.gpus_per_node=2"},
  };
  for (const auto& c : cases) {
    const auto r = run_ddlsim(std::string("collective --comm.library=nccl --cluster.platform=") + c.platform +
                              " --cluster.nodes=" + std::to_string(c.nodes) + " --sizes " + c.size + " --format json" +
                              c.extra);
    ASSERT_EQ(r.code, 0) << c.platform << "\n" << r.out;
    const double busbw = nlohmann::json::parse(r.out)[0]["busbw_GBps"].get<double>();
    EXPECT_NEAR(busbw, c.published_GBps, 0.10 * c.published_GBps) << c.platform << " x " << c.nodes << " " << c.size;
  }
}

// The whole published curves, 1 MB to 8 GB (the sources above, and Azure's ND H100 v5 and ND H200
// v5 results for 8 GPUs with NVLS: H100 43.7 / 234.5 / 361.8 / 466.4 / 478.9 GB/s at 1 MB / 16 MB /
// 67 MB / 1 GB / 8 GB; H200 from 1 MiB to 8 GiB, Azure_Results/ND_H200_v5_results.md, NCCL 2.20.5):
// bus-bandwidth MAPE over the 32 points, 11.5 % with NCCL's Simple protocol and 14.2 % with the
// protocol NCCL's tuning model picks (comm.nccl_protocol = auto, the default, too fast at 1-16
// MB). Over the first 18 points it was 21.7 / 15.6 %, then 19.3 % with auto once NVLink's latency
// came down to NCCL's LL step, 13.2 % with Simple once NVLS kept NCCL's 51/64 share of the link
// (looked for because of the H100's +12 %; the H200 curve was seen before that choice too, so
// these figures are in-sample for it). No constant was fitted to these points. The guard catches a
// change that makes the mid sizes worse.
TEST(CollectiveCmd, PublishedBusBandwidthCurvesAsAWhole) {
  const struct {
    const char* platform;
    const char* sizes;
    std::vector<double> published_GBps;
  } curves[] = {
      {"azure-nd96amsr-a100-v4", "1000000,4000000,16000000,67000000,268000000,1000000000,8000000000",
       {36.2, 71.4, 109.2, 166.6, 213.9, 228.1, 231.6}},
      {"azure-nd96amsr-a100-v4", "1M,4M,16M,64M,1G,8G", {24.6, 66.9, 120.4, 202.2, 231.4, 235.7}},
      {"azure-nd96isr-h100-v5", "1000000,16000000,67000000,1000000000,8000000000", {43.7, 234.5, 361.8, 466.4, 478.9}},
      {"azure-nd96isr-h200-v5", "1M,2M,4M,8M,16M,32M,64M,128M,256M,512M,1G,2G,4G,8G",
       {52.96, 88.78, 138.44, 181.94, 240.41, 300.91, 368.11, 412.45, 432.24, 442.72, 467.58, 472.57, 477.41, 479.98}},
  };
  const auto mape = [&](const std::string& extra) {
    double sum = 0;
    int n = 0;
    for (const auto& c : curves) {
      const auto r = run_ddlsim(std::string("collective --cluster.platform=") + c.platform + " --sizes " + c.sizes +
                                " --format json " + extra);
      EXPECT_EQ(r.code, 0) << r.out;
      const auto rows = nlohmann::json::parse(r.out);
      EXPECT_EQ(rows.size(), c.published_GBps.size());
      for (std::size_t i = 0; i < rows.size() && i < c.published_GBps.size(); ++i, ++n)
        sum += std::abs(rows[i]["busbw_GBps"].get<double>() / c.published_GBps[i] - 1);
    }
    EXPECT_EQ(n, 32);
    return sum / n;
  };
  // The default is now auto (what NCCL does unconfigured), chosen on the multi-node logs of
  // docs/validation-collectives.md, where Simple alone is about 95 % off under 1 MiB; on these
  // single-node curves auto stays the worse of the two (its LL128 too fast at 4-16 MB: NCCL's
  // chunks and channels are not modelled), and both are held where they stand.
  const double simple = mape("--comm.nccl_protocol=simple"), by_model = mape("");
  std::cout << "published busbw curves, MAPE: simple " << 100 * simple << " %, auto " << 100 * by_model << " %\n";
  EXPECT_LE(simple, 0.12);
  EXPECT_LE(by_model, 0.15);
}

// compare reads nccl-tests' and OSU's own output: measured times 1.1 x (nccl-tests) and 1.25 x (OSU)
// ddlsim's own prediction give errors of exactly -1/11 and -20 %.
TEST(CollectiveCmd, CompareReadsNcclTestsAndOsuOutput) {
  testutil::TempFile scenario("s.ini", "[cluster]\nplatform = dgx-a100\nnodes = 2\n[comm]\nlibrary = mpi\nalgorithm = auto\n");
  const auto pred = run_ddlsim("collective " + scenario.path() + " --sizes 1M,16M,64M --format json");
  ASSERT_EQ(pred.code, 0) << pred.out;
  const auto rows = nlohmann::json::parse(pred.out);
  std::string nccl =
      "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 67108864 step: 4(factor) warmup iters: 5 iters: 20\n"
      "#\n# Using devices\n#\n"
      "#                                                              out-of-place                       in-place\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";
  // A row of size 0 (all_gather_perf prints them below one element a rank) moves nothing: skipped.
  nccl += "           0             0     float     sum      -1     0.12    0.00    0.00      0     0.11    0.00    0.00      0\n";
  std::string osu = "# OSU MPI Allreduce Latency Test v7.1\n# Size       Avg Latency(us)\n";
  // The faster of the out-of-place and in-place times is taken: here out of place (1.1 x the
  // prediction; in place 1.25 x), below in place (1.05 x), or out of place where in place is N/A.
  std::string in_place_faster = nccl, in_place_missing = nccl;
  for (const auto& r : rows) {
    const double us = r["time_s"].get<double>() * 1e6;
    const std::string head = "  " + std::to_string(r["size_bytes"].get<long long>()) + "  " +
                             std::to_string(r["count"].get<long long>()) + "  float  sum  -1  " +
                             std::to_string(us * 1.1) + "  1.0  1.0  0  ";
    nccl += head + std::to_string(us * 1.25) + "  1.0  1.0  0\n";
    in_place_faster += head + std::to_string(us * 1.05) + "  1.0  1.0  0\n";
    in_place_missing += head + "N/A  N/A  N/A  N/A\n";
    osu += std::to_string(r["size_bytes"].get<long long>()) + "  " + std::to_string(us / 0.8) + "\n";
  }
  for (const auto& [text, error] : {std::pair{in_place_faster, 1 - 1 / 1.05}, std::pair{in_place_missing, 1 - 1 / 1.1}}) {
    testutil::TempFile f("all_reduce_perf.txt", text);
    const auto r = run_ddlsim("compare " + f.path() + " --scenario " + scenario.path() + " --format json");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NEAR(nlohmann::json::parse(r.out)["mape"].get<double>(), error, 1e-5) << r.out;
  }
  nccl += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.0\n";
  testutil::TempFile nccl_file("all_reduce_perf.txt", nccl), osu_file("osu.txt", osu);
  const auto a = run_ddlsim("compare " + nccl_file.path() + " --scenario " + scenario.path() + " --format json");
  ASSERT_EQ(a.code, 0) << a.out;
  const auto ja = nlohmann::json::parse(a.out);
  EXPECT_EQ(ja["tool"], "nccl-tests");
  EXPECT_EQ(ja["rows"].size(), 3u);
  EXPECT_NEAR(ja["mape"].get<double>(), 1 - 1 / 1.1, 1e-5) << a.out;
  EXPECT_NEAR(ja["mape_10MB_and_more"].get<double>(), 1 - 1 / 1.1, 1e-5) << a.out;
  const auto b = run_ddlsim("compare " + osu_file.path() + " --scenario " + scenario.path() + " --format json");
  ASSERT_EQ(b.code, 0) << b.out;
  EXPECT_NEAR(nlohmann::json::parse(b.out)["mape"].get<double>(), 0.2, 1e-5) << b.out;  // (p - p/0.8) / (p/0.8)
  // No collective named anywhere: --op is asked for.
  testutil::TempFile anon("times.txt", nccl.substr(nccl.find("#       size")));
  const auto c = run_ddlsim("compare " + anon.path() + " --scenario " + scenario.path());
  EXPECT_EQ(c.code, 2);
  EXPECT_NE(c.out.find("give --op"), std::string::npos) << c.out;
  EXPECT_EQ(run_ddlsim("compare " + anon.path() + " --scenario " + scenario.path() + " --op allreduce").code, 0);
  // As CSV: one row a size (this crashed, issue 43: the row was iterated after its temporary died).
  for (const auto* f : {&nccl_file, &osu_file}) {
    const auto csv = run_ddlsim("compare " + f->path() + " --scenario " + scenario.path() + " --format csv");
    ASSERT_EQ(csv.code, 0) << csv.out;
    EXPECT_EQ(csv.out.rfind("size_bytes,algorithm,measured_s,predicted_s,error\n", 0), 0u) << csv.out;
    EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 4) << csv.out;
  }
  testutil::TempFile broken("osu_bcast.txt", "# OSU MPI Broadcast Latency Test\n# Size Avg Latency(us)\n4 abc\n");
  const auto d = run_ddlsim("compare " + broken.path() + " --scenario " + scenario.path());
  EXPECT_EQ(d.code, 2);
  EXPECT_NE(d.out.find("osu_bcast.txt:3: time = 'abc'"), std::string::npos) << d.out;
}

// What mpirun, NCCL_DEBUG and a framework preset bring to a log: lines tagged by Open MPI's
// --tag-output, NCCL's own log lines, the ranks nccl-tests lists. compare predicts the library's
// own choice per size (as `collective` does; Horovod's preset runs a ring), honours --overlay, and
// refuses a log of another rank count.
TEST(CollectiveCmd, CompareTakesMpirunTaggedLogsAndTheLibrarysChoice) {
  testutil::TempFile scenario("s.ini", "[cluster]\nplatform = dgx-a100\nnodes = 8\n");
  testutil::TempFile overlay("o.ini", "[cluster]\ninter_bw_GBps = 5\n");
  const auto rows_of = [&](const std::string& extra) {
    const auto r = run_ddlsim("collective " + scenario.path() + " --sizes 4K,1M,64M --format json " + extra);
    EXPECT_EQ(r.code, 0) << r.out;
    return nlohmann::json::parse(r.out);
  };
  const auto log_of = [](const nlohmann::json& rows, int ranks) {
    std::string t = "[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 4096 maxBytes 67108864 step: 2(factor)\n"
                    "[1,0]<stdout>:#\n[1,0]<stdout>:# Using devices\n";
    for (int r = 0; r < ranks; ++r)
      t += "[1,0]<stdout>:#  Rank " + std::to_string(r) + " Group  0 Pid  42 on node" + std::to_string(r / 8) +
           " device  " + std::to_string(r % 8) + " [0x07] NVIDIA A100-SXM4-80GB\n";
    t += "node0:42:42 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
         "[1,0]<stdout>:#       size         count      type   redop    root     time   algbw   busbw #wrong     time   "
         "algbw   busbw #wrong\n";
    for (const auto& r : rows) {
      const std::string us = std::to_string(r["time_s"].get<double>() * 1e6 * 1.1);  // out of place and in place
      t += "[1,0]<stdout>:  " + std::to_string(r["size_bytes"].get<long long>()) + "  1  float  sum  -1  " + us +
           "  1.0  1.0  0  " + us + "  1.0  1.0  0\n";
    }
    return t + "[1,0]<stdout>:# Avg bus bandwidth    : 1.0\n";
  };
  const auto plain = rows_of(""), slow = rows_of("--cluster.inter_bw_GBps=5");
  for (const auto& [rows, extra] : {std::pair{plain, std::string()}, std::pair{slow, " --overlay " + overlay.path()}}) {
    testutil::TempFile log("all_reduce_perf.log", log_of(rows, 64));
    const auto a = run_ddlsim("compare " + log.path() + " --scenario " + scenario.path() + " --format json" + extra);
    ASSERT_EQ(a.code, 0) << a.out;
    const auto j = nlohmann::json::parse(a.out);
    ASSERT_EQ(j["rows"].size(), 3u);
    EXPECT_NEAR(j["mape"].get<double>(), 1 - 1 / 1.1, 1e-5) << a.out;
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(j["rows"][i]["algorithm"], rows[i]["algorithm"]) << a.out;
  }
  EXPECT_EQ(plain[1]["algorithm"], "dbtree") << "NCCL's choice for 1 MiB on 64 GPUs, not Horovod's ring";
  // A log on another count: its "#  Rank" lines give the scenario its nodes and GPUs; counts given on
  // the command line must agree with them.
  testutil::TempFile eight("all_reduce_perf.log", log_of(plain, 8));
  const auto own = run_ddlsim("compare " + eight.path() + " --scenario " + scenario.path());
  EXPECT_EQ(own.code, 0) << own.out;
  EXPECT_NE(own.out.find(", 8 ranks,"), std::string::npos) << own.out;
  const auto e = run_ddlsim("compare " + eight.path() + " --scenario " + scenario.path() + " --cluster.nodes=8");
  EXPECT_EQ(e.code, 2);
  EXPECT_NE(e.out.find("nccl-tests measured 8 ranks; the scenario has 64 (8 nodes x 8 GPUs)"), std::string::npos)
      << e.out;
}

// nccl-tests run as one thread driving G GPUs (-g G) reports at least G issues of 4.2 us a size
// (nccl-tests issue 123): compare predicts that, and a log of one GPU a thread the library alone.
TEST(CollectiveCmd, OneThreadDrivingSeveralGpusIssuesEachInTurn) {
  testutil::TempFile scenario("s.ini", "[cluster]\nplatform = dgx-a100\nnodes = 1\ngpus_per_node = 8\n");
  const auto pred = run_ddlsim("collective " + scenario.path() + " --sizes 8,1G --format json");
  ASSERT_EQ(pred.code, 0) << pred.out;
  const auto rows = nlohmann::json::parse(pred.out);
  const double small = rows[0]["time_s"].get<double>(), large = rows[1]["time_s"].get<double>();
  ASSERT_LT(small, 8 * 4.2e-6);
  ASSERT_GT(large, 8 * 4.2e-6);
  for (int g : {1, 8}) {
    const std::string log = "# nThread 1 nGpus " + std::to_string(g) +
                            " minBytes 8 maxBytes 1073741824 step: 2(factor)\n"
                            "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
                            "           8             2     float     sum      -1    40.00    0.00    0.00      0\n"
                            "  1073741824     268435456     float     sum      -1  9000.00  119.30  208.78      0\n";
    testutil::TempFile f("all_reduce_perf.log", log);
    const auto r = run_ddlsim("compare " + f.path() + " --scenario " + scenario.path() + " --format json");
    ASSERT_EQ(r.code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["gpus_per_thread"], g);
    EXPECT_DOUBLE_EQ(j["rows"][0]["predicted_s"].get<double>(), g == 8 ? 8 * 4.2e-6 : small) << g;
    EXPECT_DOUBLE_EQ(j["rows"][1]["predicted_s"].get<double>(), large) << g;
  }
}
