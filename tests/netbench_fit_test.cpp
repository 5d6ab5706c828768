// netfit on synthetic measurements (closed forms): it recovers alpha, B, e and d exactly, and the
// ring/rhd formulas use the two factors as documented.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <sstream>

#include "calibration/netfit.hpp"
#include "core/error.hpp"
#include "cost/collectives.hpp"
#include "engine/platform_reader.hpp"
#include "predict/uncertainty.hpp"
#include "predict_util.hpp"
#include "system/platform.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {

// alpha 50 us, B 12.5 MB/s, e 0.5, d 0.9.
std::string synthetic_csv() {
  const double a = 50e-6, b = 12.5e6, e = 0.5, d = 0.9;
  std::string csv = "test,ranks,bytes,time_s,algbw_Bps,busbw_Bps\n";
  csv += fmt::format("pingpong,2,8,{},0,0\n", a + 8 / b);
  for (double n : {1e6, 2e6, 4e6}) {
    csv += fmt::format("bw,2,{},{},{},0\n", n, n / b, b);
    csv += fmt::format("exchange,2,{},{},0,0\n", n, a + n / (b * e));
    csv += fmt::format("shift,3,{},{},0,0\n", n, a + n / (b * d));
  }
  return csv;
}

}  // namespace

TEST(NetbenchFit, RecoversSyntheticParameters) {
  const NetFit f = fit_network(parse_netbench_csv(synthetic_csv(), "net.csv"), "net.csv");
  EXPECT_NEAR(f.bw_Bps, 12.5e6, 1);
  EXPECT_NEAR(f.latency_s, 50e-6, 1e-12);
  EXPECT_NEAR(f.exchange_factor, 0.5, 1e-9);
  EXPECT_NEAR(f.duplex_factor, 0.9, 1e-9);
  const std::string xml = fitted_platform_xml(f, 4, "rtx4090", "net.csv");
  EXPECT_NE(xml.find("<prop id=\"ddlsim.exchange_factor\" value=\"0.5\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<prop id=\"ddlsim.duplex_factor\" value=\"0.9\"/>"), std::string::npos);
}

TEST(NetbenchFit, FactorsEnterTheClosedForms) {
  const Route r{1e-4, 1e7, 0.5, 0.8};
  const double n = 8e6;
  EXPECT_DOUBLE_EQ(ring_allreduce_s(2, n, r), 2 * (1e-4 + n / (2 * 1e7 * 0.5)));
  EXPECT_DOUBLE_EQ(ring_allreduce_s(4, n, r), 6 * (1e-4 + n / (4 * 1e7 * 0.8)));
  EXPECT_DOUBLE_EQ(halving_doubling_allreduce_s(4, n, r), 4e-4 + 2 * n * 3 / (4 * 1e7 * 0.5));
  EXPECT_DOUBLE_EQ(tree_allreduce_s(4, n, r), 4 * (1e-4 + n / 1e7));
  const Route ideal{1e-4, 1e7};  // factors default to 1: the plain alpha-beta formulas
  EXPECT_DOUBLE_EQ(ring_allreduce_s(2, n, ideal), 2 * (1e-4 + n / (2 * 1e7)));
}

TEST(NetbenchFit, BadCsvNamesFileAndLine) {
  try {
    parse_netbench_csv("test,ranks,bytes,time_s\nbw,2,abc,1\n", "net.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("net.csv:2: bytes = 'abc'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(fit_network(parse_netbench_csv("pingpong,2,8,0.001\n", "n.csv"), "n.csv"), InputError);
}

TEST(NetbenchFit, RingRowsGiveTheLoadedStepLatency) {
  const double a = 50e-6, b = 12.5e6, e = 0.5, d = 0.9, step = 2e-3;
  std::string csv = synthetic_csv();
  for (double n : {2e6, 4e6}) {
    csv += fmt::format("ring,2,{},{},0,0\n", n, 2 * (step + n / (2 * b * e)));
    csv += fmt::format("ring,3,{},{},0,0\n", n, 4 * (step + n / (3 * b * d)));
  }
  const NetFit f = fit_network(parse_netbench_csv(csv, "net.csv"), "net.csv");
  EXPECT_NEAR(f.idle_latency_s, a, 1e-12);
  EXPECT_NEAR(f.step_latency_s, step, 1e-9);
  EXPECT_NEAR(f.latency_s, a, 1e-12);  // the network's; the rest of a step is software overhead
  EXPECT_NEAR(f.step_overhead_s, step - a, 1e-9);
  const Route r = fitted_route(f);
  EXPECT_NEAR(ring_allreduce_s(3, 4e6, r), 4 * (step + 4e6 / (3 * b * d)), 1e-9);
}

// --check scores each ring size from a fit of the other sizes: on measurements made by the model
// itself it is exact out of sample too; a per-step latency far above the idle one is warned about.
TEST(NetbenchFit, CheckHoldsEachSizeOutAndWarnsOfSoftwareLatency) {
  const double b = 12.5e6, e = 0.5, d = 0.9, step = 400e-6;  // 8 x the idle 50 us
  std::string csv = synthetic_csv();
  const Route r{step, b, e, d};
  for (double n : {1e6, 4e6})
    for (int p : {2, 3}) csv += fmt::format("ring,{},{},{},0,0\n", p, n, ring_allreduce_s(p, n, r));
  testutil::TempFile file("net.csv", csv);
  const auto out = testutil::run_ddlsim("netfit " + file.path() + " --out " + file.dir() + "/f.xml --check");
  ASSERT_EQ(out.code, 0) << out.out;
  EXPECT_NE(out.out.find("out of sample"), std::string::npos) << out.out;
  EXPECT_EQ(out.out.find("IN-SAMPLE"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("warning: the latency per ring step"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("held_out"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("     1000000      1000000"), std::string::npos) << out.out;  // bytes, held_out
  // Every held-out ring row within 0.1 % (printed as +0.0% or -0.0%).
  std::size_t rows = 0;
  for (std::size_t at = out.out.find("%\n"); at != std::string::npos; at = out.out.find("%\n", at + 1)) {
    EXPECT_EQ(out.out.substr(at - 3, 3), "0.0") << out.out;
    ++rows;
  }
  EXPECT_EQ(rows, 4u) << out.out;
}

// The library that measured a netbench CSV: its `# library:` line, kept through concatenation
// (later files' lines are comments too), recorded in the fitted platform; two libraries in one
// CSV, or a name netbench does not write, are input errors naming the line.
TEST(NetbenchFit, LibraryLineIsReadCheckedAndRecorded) {
  const std::string rows = synthetic_csv();
  EXPECT_EQ(netbench_library(rows, "net.csv"), "");
  EXPECT_EQ(netbench_library("# library: gloo\n" + rows + "# library: gloo\n", "net.csv"), "gloo");
  try {
    netbench_library("# library: gloo\n" + rows + "# library: mpi\n", "net.csv");
    ADD_FAILURE() << "two libraries accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("net.csv:13: library 'mpi', but earlier rows were measured with 'gloo'"),
              std::string::npos) << e.what();
  }
  EXPECT_THROW(netbench_library("# library: ucx\n", "net.csv"), InputError);
  NetFit f = fit_network(parse_netbench_csv(rows, "net.csv"), "net.csv");
  EXPECT_EQ(fitted_platform_xml(f, 2, "rtx4090", "net.csv").find("ddlsim.netbench_library"), std::string::npos);
  f.library = "gloo";
  const std::string xml = fitted_platform_xml(f, 2, "rtx4090", "net.csv");
  EXPECT_NE(xml.find("<prop id=\"ddlsim.netbench_library\" value=\"gloo\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("measured with gloo"), std::string::npos);
}

// `ddlsim netfit --library` says which library measured a CSV without the line, and must agree
// with a CSV that has one.
TEST(NetbenchFit, NetfitLibraryOptionAgreesWithTheCsv) {
  testutil::TempFile csv("net.csv", "# library: gloo\n" + synthetic_csv());
  testutil::TempFile xml("fitted.xml");
  const auto ok = testutil::run_ddlsim("netfit " + csv.path() + " --out " + xml.path());
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_NE(ok.out.find("library gloo"), std::string::npos) << ok.out;
  EXPECT_NE(testutil::slurp(xml.path()).find("value=\"gloo\""), std::string::npos);
  const auto clash = testutil::run_ddlsim("netfit " + csv.path() + " --library mpi --out " + xml.path());
  EXPECT_EQ(clash.code, 2) << clash.out;
  EXPECT_NE(clash.out.find("--library mpi: " + csv.path() + " says it was measured with gloo"), std::string::npos)
      << clash.out;
  const auto bad = testutil::run_ddlsim("netfit " + csv.path() + " --library ucx --out " + xml.path());
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--library 'ucx': expected mpi, gloo or nccl"), std::string::npos) << bad.out;
}

// nccl-tests output given to netfit (which reads netbench's CSV) is pointed at the command that
// fits it, and nothing is written.
TEST(NetbenchFit, NcclTestsOutputIsPointedAtFit) {
  const std::string log = testutil::source_dir() + "/scenarios/validation/nccl/snellius_h100_4g_ndr200/2n_4g_all_gather_odissei.log";
  testutil::TempFile xml("fitted.xml");
  const auto r = testutil::run_ddlsim("netfit " + log + " --out " + xml.path());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("nccl-tests or OSU output, not netbench's CSV: `ddlsim fit " + log + " --scenario BASE.ini"),
            std::string::npos) << r.out;
  EXPECT_FALSE(testutil::exists(xml.path()));
}

// netbench's spread columns (min_s,p10_s,p50_s,p90_s,reps) are read when a row has them; rows
// without them (files from before) still load, with the spread 0; a partial or unordered spread is
// an input error naming the line.
TEST(NetbenchFit, SpreadColumnsAreOptionalAndChecked) {
  const auto rows = parse_netbench_csv(
      "test,ranks,bytes,time_s,algbw_Bps,busbw_Bps,min_s,p10_s,p50_s,p90_s,reps\n"
      "pingpong,2,8,5.2e-05,153846,153846,4.1e-05,4.6e-05,5.2e-05,9.8e-05,1000\n"
      "bw,2,1000000,0.08,1.25e7,1.25e7\n"
      "ring,2,1000000,0.1\n", "net.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_DOUBLE_EQ(rows[0].time_s, 52e-6);
  EXPECT_DOUBLE_EQ(rows[0].min_s, 41e-6);
  EXPECT_DOUBLE_EQ(rows[0].p10_s, 46e-6);
  EXPECT_DOUBLE_EQ(rows[0].p50_s, 52e-6);
  EXPECT_DOUBLE_EQ(rows[0].p90_s, 98e-6);
  EXPECT_EQ(rows[0].reps, 1000);
  EXPECT_EQ(rows[1].reps, 0);
  EXPECT_EQ(rows[2].p50_s, 0);
  const auto error_of = [](const std::string& row) {
    try {
      parse_netbench_csv("test,ranks,bytes,time_s\n" + row + "\n", "net.csv");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error_of("pingpong,2,8,5e-5,0,0,4e-5").find("net.csv:2: 7 columns: expected 6"), std::string::npos);
  EXPECT_NE(error_of("pingpong,2,8,5e-5,0,0,4e-5,6e-5,5e-5,9e-5,10").find("net.csv:2: min_s, p10_s, p50_s, p90_s"),
            std::string::npos);
  EXPECT_NE(error_of("pingpong,2,8,5e-5,0,0,4e-5,4e-5,5e-5,9e-5,0").find("net.csv:2: reps = '0'"), std::string::npos);
  EXPECT_NE(error_of("pingpong,2,8,5e-5,0,0,4e-5,x,5e-5,9e-5,10").find("net.csv:2: p10_s = 'x'"), std::string::npos);
}

// The split of a loaded ring step into the network's latency and the library's software overhead.
// Made with alpha = 50 us (the ping-pong median; its fastest repetition 30 us must not count),
// o = 350 us, B = 12.5 MB/s, e = 0.5, d = 0.9. By hand: ring of 2 ranks, 2 MB:
// 2 (50 + 350 us + 2e6 / (2 x 12.5e6 x 0.5) s) = 2 (0.0004 + 0.16) = 0.3208 s; 3 ranks, 2 MB:
// 4 (0.0004 + 2e6 / (3 x 12.5e6 x 0.9)) = 4 (0.0004 + 0.0592593) = 0.2386370 s.
TEST(NetbenchFit, RingStepSplitsIntoNetworkLatencyAndSoftwareOverhead) {
  const double a = 50e-6, o = 350e-6, b = 12.5e6;
  std::string csv = "test,ranks,bytes,time_s,algbw_Bps,busbw_Bps,min_s,p10_s,p50_s,p90_s,reps\n";
  const double pp = a + 8 / b;
  csv += fmt::format("pingpong,2,8,{},0,0,{},{},{},{},1000\n", pp, 30e-6, 45e-6, pp, 120e-6);
  std::istringstream rest(synthetic_csv());  // its bw, exchange and shift rows
  for (std::string line; std::getline(rest, line);)
    if (line.rfind("pingpong", 0) != 0 && line.rfind("test,", 0) != 0) csv += line + "\n";
  csv += "ring,2,2000000,0.3208,0,0\nring,3,2000000,0.238637037,0,0\n";
  csv += "ring,2,4000000,0.6408,0,0\nring,3,4000000,0.475674074,0,0\n";  // 2 (0.0004 + 0.32), 4 (0.0004 + 0.118519)
  const NetFit f = fit_network(parse_netbench_csv(csv, "net.csv"), "net.csv");
  EXPECT_NEAR(f.latency_s, a, 1e-12);
  EXPECT_NEAR(f.idle_latency_s, a, 1e-12);
  EXPECT_NEAR(f.step_overhead_s, o, 1e-9);
  EXPECT_NEAR(f.step_latency_s, a + o, 1e-9);
  EXPECT_DOUBLE_EQ(f.pingpong_p10_s, 45e-6);
  EXPECT_DOUBLE_EQ(f.pingpong_p90_s, 120e-6);
  EXPECT_EQ(f.pingpong_reps, 1000);
  EXPECT_NE(f.method.find("median half round trip of 1000 repetitions"), std::string::npos) << f.method;
  // The platform: links carry the network's alpha (two uplink hops of 25 us), the overhead its property.
  const std::string xml = fitted_platform_xml(f, 3, "rtx4090", "net.csv");
  EXPECT_NE(xml.find("<prop id=\"ddlsim.step_overhead_us\" value=\"350\"/>"), std::string::npos) << xml;
  testutil::TempFile file("fitted.xml", xml);
  ClusterDescription c = read_platform_file(file.path());
  EXPECT_NEAR(c.step_overhead_s, o, 1e-12);
  EXPECT_NEAR(c.inter_route().latency_s, a, 1e-12);
  EXPECT_NEAR(ring_allreduce_s(2, 2e6, c.inter_route()), 0.3208, 1e-9);
  EXPECT_NEAR(ring_allreduce_s(3, 2e6, fitted_route(f)), 0.238637037, 1e-9);
  // Another library's scenario does not pay this library's overhead; an unrecorded one does.
  NetFit g = f;
  g.library = "mpi";
  testutil::TempFile mpi("mpi.xml", fitted_platform_xml(g, 3, "rtx4090", "net.csv"));
  ClusterDescription m = read_platform_file(mpi.path());
  use_library_factors(m, "gloo");
  EXPECT_EQ(m.step_overhead_s, 0);
  use_library_factors(c, "gloo");
  EXPECT_NEAR(c.step_overhead_s, o, 1e-12);
}

// The ring rows' repetitions become the fitted platform's spread, and the spread the interval of a
// scenario's exchanges on it. The rows above, with their 10th and 90th percentiles: 2 ranks 2 MB
// 0.31-0.35 s, 3 ranks 2 MB 0.23-0.26, 2 ranks 4 MB 0.62-0.70, 3 ranks 4 MB 0.47-0.50, each over
// its fitted time (the rows' medians, fitted exactly): the lowest 10th 0.23 / 0.238637037 =
// 0.963807, the highest 90th 0.70 / 0.6408 = 1.092385.
TEST(NetbenchFit, RingRepetitionsGiveThePlatformsSpread) {
  std::string csv = "test,ranks,bytes,time_s,algbw_Bps,busbw_Bps,min_s,p10_s,p50_s,p90_s,reps\n";
  csv += fmt::format("pingpong,2,8,{},0,0,{},{},{},{},1000\n", 50e-6 + 8 / 12.5e6, 30e-6, 45e-6, 50e-6 + 8 / 12.5e6, 120e-6);
  std::istringstream rest(synthetic_csv());
  for (std::string line; std::getline(rest, line);)
    if (line.rfind("pingpong", 0) != 0 && line.rfind("test,", 0) != 0) csv += line + "\n";
  csv += "ring,2,2000000,0.3208,0,0,0.30,0.31,0.3208,0.35,5\nring,3,2000000,0.238637037,0,0,0.22,0.23,0.238637037,0.26,5\n";
  csv += "ring,2,4000000,0.6408,0,0,0.61,0.62,0.6408,0.70,5\nring,3,4000000,0.475674074,0,0,0.46,0.47,0.475674074,0.50,5\n";
  testutil::TempFile in("net.csv", csv);
  const std::string xml = in.dir() + "/fitted.xml";
  const auto r = testutil::run_ddlsim("netfit " + in.path() + " --out " + xml + " --nodes 3");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("time_spread p10 0.9638 p90 1.092"), std::string::npos) << r.out;
  const ClusterDescription c = read_platform_file(xml);
  EXPECT_NEAR(c.time_p10, 0.963807, 1e-6);
  EXPECT_NEAR(c.time_p90, 1.092385, 1e-5);
  const auto inputs = [&](std::vector<std::string> keys) {
    keys.push_back("--cluster.platform=" + xml);
    keys.push_back("--cluster.nodes=3");
    return ddlsim::uncertain_inputs(testutil::scenario_default(keys));
  };
  bool found = false;
  for (const auto& u : inputs({}))
    if (u.name == "exchange time (fitted)") {
      found = true;
      EXPECT_NEAR(u.lo, 0.963807, 1e-6);
      EXPECT_NEAR(u.hi, 1.092385, 1e-5);
    }
  EXPECT_TRUE(found);
  for (const auto& u : inputs({"--comm.time_p10=0.9", "--comm.time_p90=1.2"}))
    if (u.name == "exchange time (fitted)") EXPECT_EQ(u.lo, 0.9);  // the keys win
  // Measured with another library: its repetitions say nothing of this one's.
  testutil::TempFile mpi("mpi.csv", "# library: mpi\n" + csv);
  const std::string mpi_xml = mpi.dir() + "/fitted.xml";
  ASSERT_EQ(testutil::run_ddlsim("netfit " + mpi.path() + " --out " + mpi_xml + " --nodes 3").code, 0);
  for (const auto& u : ddlsim::uncertain_inputs(testutil::scenario_default(
           {"--cluster.platform=" + mpi_xml, "--cluster.nodes=3", "--comm.library=nccl"})))
    EXPECT_NE(u.name, "exchange time (fitted)");
}

// The warning names both latencies and fires only above --latency-factor (default 3).
TEST(NetbenchFit, LatencyWarningAboveTheFactor) {
  NetFit f;
  f.latency_s = f.idle_latency_s = 50e-6;
  f.step_latency_s = 400e-6;  // 8 x
  f.step_overhead_s = 350e-6;
  const std::string w = latency_warning(f, 3);
  EXPECT_NE(w.find("(0.0004 s) is 8.0 times the idle ping-pong latency (5e-05 s"), std::string::npos) << w;
  EXPECT_NE(w.find("0.00035 s per round as software overhead"), std::string::npos) << w;
  EXPECT_EQ(latency_warning(f, 8.5), "");
  f.idle_latency_s = 0;  // no pingpong rows: nothing to compare with
  EXPECT_EQ(latency_warning(f, 3), "");
  const double b = 12.5e6;
  std::string csv = synthetic_csv();
  for (double n : {1e6, 4e6}) csv += fmt::format("ring,2,{},{},0,0\n", n, ring_allreduce_s(2, n, Route{400e-6, b, 0.5, 0.9}));
  testutil::TempFile file("net.csv", csv);
  const std::string run = "netfit " + file.path() + " --out " + file.dir() + "/f.xml";
  const auto quiet = testutil::run_ddlsim(run + " --latency-factor 10");
  ASSERT_EQ(quiet.code, 0) << quiet.out;
  EXPECT_EQ(quiet.out.find("warning"), std::string::npos) << quiet.out;
  EXPECT_NE(quiet.out.find("step_overhead_s 0.00035"), std::string::npos) << quiet.out;
  const auto loud = testutil::run_ddlsim(run);
  EXPECT_NE(loud.out.find("warning: the latency per ring step"), std::string::npos) << loud.out;
  const auto bad = testutil::run_ddlsim(run + " --latency-factor 0.5");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--latency-factor 0.5: expected a factor from 1 to 1e6"), std::string::npos) << bad.out;
}

// A platform file's step overhead that is not a number of microseconds: an input error naming the
// file and the property.
TEST(NetbenchFit, BadStepOverheadPropertyNamesFileAndKey) {
  NetFit f;
  f.latency_s = 50e-6, f.bw_Bps = 12.5e6, f.step_overhead_s = 1e-4;
  std::string xml = fitted_platform_xml(f, 2, "rtx4090", "net.csv");
  const std::string good = "value=\"100\"";
  ASSERT_NE(xml.find(good), std::string::npos) << xml;
  xml.replace(xml.find(good), good.size(), "value=\"-3\"");
  testutil::TempFile file("bad.xml", xml);
  try {
    read_platform_file(file.path());
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(file.path() + ": property ddlsim.step_overhead_us = '-3'"), std::string::npos)
        << e.what();
  }
}

// A spread property out of its range, or one end without the other, is refused naming the file.
TEST(NetbenchFit, BadSpreadPropertiesNameFileAndKey) {
  NetFit f;
  f.latency_s = 50e-6, f.bw_Bps = 12.5e6, f.time_p10 = 0.9, f.time_p90 = 1.2;
  const std::string xml = fitted_platform_xml(f, 2, "rtx4090", "net.csv");
  const std::string p10 = "<prop id=\"ddlsim.time_p10\" value=\"0.9\"/>";
  ASSERT_NE(xml.find(p10), std::string::npos) << xml;
  const auto refused = [](std::string text, const std::string& what) {
    testutil::TempFile file("bad.xml", text);
    try {
      read_platform_file(file.path());
      ADD_FAILURE() << "accepted: " << what;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(file.path() + ": propert"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  std::string nan = xml;
  nan.replace(nan.find(p10), p10.size(), "<prop id=\"ddlsim.time_p10\" value=\"nan\"/>");
  refused(nan, "ddlsim.time_p10 = 'nan'");
  std::string alone = xml;
  alone.erase(alone.find(p10), p10.size());
  refused(alone, "ddlsim.time_p10 and ddlsim.time_p90");
}

// netfit's bounds (issue 43): --nodes within what a generated file holds, rows within a day and
// 1e15 bytes; each refused with exit 2 naming the option or the row, and no file written.
TEST(NetbenchFit, NetfitRefusesUnboundedNodesAndRowsPastTheirBounds) {
  testutil::TempFile csv("net.csv", synthetic_csv());
  const std::string xml = csv.dir() + "/f.xml";
  for (const char* nodes : {"-1", "513", "1000000000"}) {
    const auto r = testutil::run_ddlsim("netfit " + csv.path() + " --nodes " + nodes + " --out " + xml);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find(std::string("--nodes ") + nodes + ": expected 1 to 512 nodes"), std::string::npos) << r.out;
    EXPECT_FALSE(testutil::exists(xml));
  }
  EXPECT_EQ(testutil::run_ddlsim("netfit " + csv.path() + " --nodes 512 --out " + xml).code, 0);
  testutil::TempFile huge("huge.csv", synthetic_csv() + "bw,2,8000000,1e308,0,0\n");
  const auto r = testutil::run_ddlsim("netfit " + huge.path() + " --out " + huge.dir() + "/f.xml");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("huge.csv:12: time_s = '1e308': expected a number from 0 to 86400"), std::string::npos) << r.out;
  EXPECT_FALSE(testutil::exists(huge.dir() + "/f.xml"));
  testutil::TempFile wide("wide.csv", synthetic_csv() + "ring,5000,1000000,2.0,0,0\n");
  const auto auto_nodes = testutil::run_ddlsim("netfit " + wide.path() + " --out " + wide.dir() + "/f.xml");
  EXPECT_EQ(auto_nodes.code, 2) << auto_nodes.out;
  EXPECT_NE(auto_nodes.out.find("rows of up to 5000 ranks"), std::string::npos) << auto_nodes.out;
}
