// Every `build/ddlsim ...` command of the README's shell blocks runs, in order, and exits 0: the
// README cannot show a command that the program no longer takes. They run in a fresh folder that
// links the source tree's scenarios/, tests/ and docs/, so the files they write stay there.
#include <gtest/gtest.h>

#include <cstdio>
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

namespace {

// The files a command reads: its first argument after the subcommand when it names a file, and the
// values of the options that name input files. Outputs (-o, --output, --csv, --svg, --plot, ...)
// are not inputs.
std::vector<std::string> inputs_of(const std::string& command) {
  std::istringstream in(command);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  std::vector<std::string> out;
  const auto is_file = [](const std::string& w) {
    for (const char* ext : {".csv", ".log", ".ini", ".xml", ".cal"})
      if (w.size() > 4 && w.compare(w.size() - std::string(ext).size(), std::string::npos, ext) == 0) return true;
    return false;
  };
  if (words.size() > 1 && words[1].rfind("-", 0) != 0 && is_file(words[1])) out.push_back(words[1]);
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    for (const char* opt : {"--scenario", "--overlay", "--measured", "--merge"})
      if (w == opt && i + 1 < words.size()) out.push_back(words[i + 1]);
    for (const char* opt : {"--cluster.platform=", "--scenario="})
      if (w.rfind(opt, 0) == 0 && is_file(w)) out.push_back(w.substr(std::string(opt).size()));
  }
  return out;
}

}  // namespace

// Every `build/ddlsim ...` command of the user docs' shell blocks that can run here runs, in order
// per page, and exits 0. Not run: templates (FILE.ini, KEY=LO..HI, [options]), commands that need
// a cluster (a launcher, hosts) or a file of the user's own (a measured CSV, a log, a platform file
// made by an earlier step on a cluster); each page runs at least one.
TEST(DocsCommands, EveryRunnableCommandRunsAndExitsZero) {
  const std::string src = testutil::source_dir();
  int ran = 0;
  for (const char* page : {"guide.md", "compare.md", "collectives.md", "simgrid-backend.md", "your-cluster.md",
                           "calibration.md", "model.md", "model-file.md"}) {
    const std::vector<std::string> cmds = readme_commands(testutil::slurp(src + "/docs/" + page));
    const testutil::TempFile keep("unused");
    const std::string dir = keep.dir();
    ASSERT_EQ(testutil::run_shell("cd " + dir + " && ln -s " + src + "/scenarios " + src + "/tests " + src +
                                  "/platforms " + src + "/calibration . && mkdir -p docs").code,
              0);
    for (std::string c : cmds) {
      if (c.find_first_of("[") != std::string::npos || c.find("FILE") != std::string::npos ||
          c.find("KEY") != std::string::npos || c.find("--launcher") != std::string::npos ||
          c.find("--hosts") != std::string::npos || c.find("$HOME") != std::string::npos)
        continue;
      // $PWD and $M as a shell gives them (compare.md defines M in its block).
      const std::string m = "--map model=model.name --map framework=training.framework --map "
                            "batch=training.batch_per_gpu --map nodes=cluster.nodes";
      for (auto at = c.find("$M"); at != std::string::npos; at = c.find("$M")) c.replace(at, 2, m);
      for (auto at = c.find("$PWD"); at != std::string::npos; at = c.find("$PWD")) c.replace(at, 4, dir);
      bool missing = false;
      for (const std::string& f : inputs_of(c))
        missing = missing || !testutil::exists(f.front() == '/' ? f : dir + "/" + f);
      if (missing) continue;
      const auto r = testutil::run_shell("cd " + dir + " && timeout 300 " + std::string(DDLSIM_BINARY) + " " + c +
                                         " > out.txt 2>&1; s=$?; tail -5 out.txt; exit $s");
      EXPECT_EQ(r.code, 0) << "docs/" << page << ": build/ddlsim " << c << "\n" << r.out;
      ++ran;
    }
  }
  std::printf("%d docs commands ran\n", ran);
  EXPECT_GE(ran, 20);
}
