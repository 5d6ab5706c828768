// `cmake --install build --prefix PREFIX`: the programs in PREFIX/bin, ddlsim's data in
// PREFIX/share/ddlsim, and an installed ddlsim that finds its data there, not in the sources.
#include <gtest/gtest.h>

#include <sstream>

#include "test_util.hpp"

TEST(Install, APrefixHoldsTheProgramAndTheDataItReads) {
  testutil::TempFile prefix("p");
  const std::string build = std::string(DDLSIM_BINARY).substr(0, std::string(DDLSIM_BINARY).find_last_of('/'));
  const auto in = testutil::run_shell("cmake --install '" + build + "' --prefix '" + prefix.path() + "'");
  ASSERT_EQ(in.code, 0) << in.out;
  const std::string bin = prefix.path() + "/bin/ddlsim", share = prefix.path() + "/share/ddlsim";
  for (const char* f : {"/scenarios/default.ini", "/scenarios/validation/nccl/index.csv", "/platforms/poti.xml",
                        "/calibration/torch/gloo_netbench.py"})
    EXPECT_TRUE(testutil::exists(share + f)) << f;
  EXPECT_TRUE(testutil::exists(prefix.path() + "/bin/ddlsim-slurm-sweep"));
  const auto help = testutil::run_shell("'" + bin + "' validate --help 2>&1");
  EXPECT_NE(help.out.find("(=" + share + "/scenarios/validation)"), std::string::npos) << help.out;
  const auto run = testutil::run_shell("'" + bin + "' simulate '" + share + "/scenarios/default.ini' --format json");
  EXPECT_EQ(run.code, 0) << run.out;
  // The data it reads are the installed ones: without them, validation has nothing to read.
  testutil::run_shell("mv '" + share + "/scenarios/validation' '" + prefix.path() + "/moved'");
  const auto gone = testutil::run_shell("'" + bin + "' validate --set nccl 2>&1");
  EXPECT_EQ(gone.code, 2) << gone.out;
  EXPECT_NE(gone.out.find(share + "/scenarios/validation"), std::string::npos) << gone.out;
}

// The Apptainer definition (Apptainer is not a Debian package, so it is read here, not built): a
// header naming its base, the sections Apptainer knows, and the commands it runs are this
// repository's.
TEST(Install, ApptainerDefinitionBuildsWithTheProjectsOwnCommands) {
  const std::string def = testutil::slurp(testutil::source_dir() + "/scripts/ddlsim.def");
  EXPECT_NE(def.find("\nBootstrap: docker\nFrom: debian:12\n"), std::string::npos);
  std::istringstream in(def);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] == '%') {
      const std::string section = line.substr(0, line.find(' '));
      EXPECT_TRUE(section == "%files" || section == "%post" || section == "%environment" || section == "%runscript" ||
                  section == "%test" || section == "%labels")
          << "unknown section " << section;
    }
  for (const char* cmd : {"./setup.sh build", "cmake --install build --prefix /opt/ddlsim"})
    EXPECT_NE(def.find(cmd), std::string::npos) << cmd;
  EXPECT_NE(testutil::slurp(testutil::source_dir() + "/setup.sh").find("\n  build) "), std::string::npos);
}
