// netfit's factors per library (issue 13 item 2): a platform file keeps each measured library's
// exchange and duplex factors (netfit --merge), and a scenario uses those of its comm.library.
#include <gtest/gtest.h>

#include "calibration/netfit.hpp"
#include "core/error.hpp"
#include "scenario/resolve.hpp"
#include "engine/platform_reader.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {

std::string fitted(const std::string& library, double exchange, double duplex) {
  NetFit f;
  f.latency_s = 50e-6;
  f.bw_Bps = 12e6;
  f.exchange_factor = exchange;
  f.duplex_factor = duplex;
  f.library = library;
  f.method = "test";
  return fitted_platform_xml(f, 4, "rtx4090", library + ".csv");
}

}  // namespace

TEST(LibraryFactors, AFileKeepsEachLibrarysFactorsAndAScenarioUsesItsOwn) {
  // Open MPI's two-rank exchange at half rate; gloo's segmented ring at full rate (the case).
  const std::string both = merge_library_factors(fitted("gloo", 0.97, 1.0), fitted("mpi", 0.5, 0.9), "gloo", "mpi.xml");
  testutil::TempFile file("both.xml", both);
  const ClusterDescription c = read_platform_file(file.path());
  EXPECT_EQ(c.factors_library, "gloo");
  ASSERT_EQ(c.library_factors.size(), 2u);
  EXPECT_DOUBLE_EQ(c.library_factors.at("mpi").first, 0.5);
  EXPECT_DOUBLE_EQ(c.library_factors.at("gloo").first, 0.97);

  const auto with = [&](const char* library) {
    ClusterDescription x = c;
    use_library_factors(x, library);
    return std::make_pair(x.inter.exchange_factor, x.inter.duplex_factor);
  };
  EXPECT_EQ(with("mpi"), std::make_pair(0.5, 0.9));
  EXPECT_EQ(with("gloo"), std::make_pair(0.97, 1.0));
  EXPECT_EQ(with("nccl"), std::make_pair(1.0, 1.0));  // measured with others only: the textbook rate

  // Through a scenario: comm.library picks.
  const auto scenario = [&](const char* library) {
    return resolve_scenario(read_scenario("", {"--cluster.platform=" + file.path(), "--cluster.nodes=2",
                                               std::string("--comm.library=") + library}).settings,
                            ".");
  };
  EXPECT_DOUBLE_EQ(scenario("mpi").system.cluster.inter.exchange_factor, 0.5);
  EXPECT_DOUBLE_EQ(scenario("gloo").system.cluster.inter.exchange_factor, 0.97);
}

TEST(LibraryFactors, AFileWithoutALibraryKeepsItsFactorsForEveryLibrary) {
  testutil::TempFile file("old.xml", fitted("", 0.5, 0.9));
  ClusterDescription c = read_platform_file(file.path());
  EXPECT_TRUE(c.library_factors.empty());
  use_library_factors(c, "nccl");
  EXPECT_DOUBLE_EQ(c.inter.exchange_factor, 0.5);
  EXPECT_DOUBLE_EQ(c.inter.duplex_factor, 0.9);
}

TEST(LibraryFactors, MergingAFileWithoutPerLibraryFactorsIsAnInputError) {
  EXPECT_THROW(merge_library_factors(fitted("gloo", 1, 1), fitted("", 0.5, 0.9), "gloo", "old.xml"), InputError);
}
