// netfit on synthetic measurements (closed forms): it recovers alpha, B, e and d exactly, and the
// ring/rhd formulas use the two factors as documented.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "calibration/netfit.hpp"
#include "core/error.hpp"
#include "cost/collectives.hpp"
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
  EXPECT_NEAR(f.latency_s, step, 1e-9);
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
