// Golden outputs: every bundled scenario on both backends (and a sweep and `validate`) gives the
// very bytes recorded in tests/golden/. A refactoring must not move a number; a deliberate model
// change regenerates them with tests/golden/regen.sh and says so.
#include <gtest/gtest.h>

#include <fstream>

#include "test_util.hpp"

namespace {

struct Golden {
  std::string name, args;
};

std::vector<Golden> goldens() {
  std::vector<Golden> out;
  std::ifstream in(testutil::source_dir() + "/tests/golden/commands.txt");
  std::string line;
  while (std::getline(in, line)) {
    const auto bar = line.find('|');
    if (line.empty() || line[0] == '#' || bar == std::string::npos) continue;
    out.push_back({line.substr(0, bar), line.substr(bar + 1)});
  }
  return out;
}

// Runs `ddlsim ARGS` from the source root (the recorded paths are relative to it); stdout only, as
// notes on stderr are not part of the output.
testutil::RunResult run_in_source_dir(const std::string& args) {
  return testutil::run_shell("cd '" + testutil::source_dir() + "' && timeout 300 " + std::string(DDLSIM_BINARY) + " " +
                             args + " 2>/dev/null");
}

TEST(Golden, EveryBundledScenarioGivesTheRecordedBytes) {
  const auto all = goldens();
  ASSERT_GE(all.size(), 18u);
  for (const auto& g : all) {
    const auto r = run_in_source_dir(g.args);
    ASSERT_EQ(r.code, 0) << g.args << "\n" << r.out;
    EXPECT_EQ(r.out, testutil::slurp(testutil::source_dir() + "/tests/golden/" + g.name)) << g.name << ": " << g.args;
  }
}

}  // namespace
