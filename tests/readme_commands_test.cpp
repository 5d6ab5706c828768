// Every `build/ddlsim ...` command of the README's shell blocks runs, in order, and exits 0: the
// README cannot show a command that the program no longer takes. They run in a fresh folder that
// links the source tree's scenarios/, tests/ and docs/, so the files they write stay there.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace {

// The commands of ```sh blocks starting with build/ddlsim, continuation lines joined, comments cut.
std::vector<std::string> readme_commands(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  bool in_sh = false;
  std::string pending;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) {
      in_sh = !in_sh && line == "```sh";
      continue;
    }
    if (!in_sh) continue;
    if (const auto hash = line.find(" #"); hash != std::string::npos) line.erase(hash);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    const bool more = !line.empty() && line.back() == '\\';
    if (more) line.pop_back();
    pending += line;
    if (more) continue;
    if (pending.rfind("build/ddlsim ", 0) == 0) out.push_back(pending.substr(std::string("build/ddlsim ").size()));
    pending.clear();
  }
  return out;
}

}  // namespace

TEST(Readme, EveryCommandRunsAndExitsZero) {
  const std::string src = testutil::source_dir();
  const std::vector<std::string> cmds = readme_commands(testutil::slurp(src + "/README.md"));
  ASSERT_GE(cmds.size(), 10u);
  const testutil::TempFile keep("unused");
  const std::string dir = keep.dir();
  ASSERT_EQ(testutil::run_shell("cd " + dir + " && ln -s " + src + "/scenarios " + src + "/tests " + src + "/docs .").code, 0);
  for (const std::string& c : cmds) {
    const auto r = testutil::run_shell("cd " + dir + " && timeout 300 " + std::string(DDLSIM_BINARY) + " " + c +
                                       " > out.txt 2>&1; s=$?; tail -5 out.txt; exit $s");
    EXPECT_EQ(r.code, 0) << "build/ddlsim " << c << "\n" << r.out;
  }
}
