// Every transcript in the docs (a fenced block's `$ ddlsim ...` line and the output shown under it)
// is what the program prints today: the command runs, and each line shown under it appears in its
// output, in order ("..." marks lines left out). A figure copied from an output cannot drift.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace {

struct Transcript {
  std::string file;
  int line = 0;
  std::string command;              // after "$ ddlsim "
  std::vector<std::string> shown;   // the output lines shown, "..." left out
};

std::string rstrip(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

std::vector<Transcript> transcripts(const std::string& file, const std::string& text) {
  std::vector<Transcript> out;
  std::istringstream in(text);
  bool fenced = false, open = false;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced, open = false;
      continue;
    }
    if (!fenced) continue;
    if (line.rfind("$ ", 0) == 0) {
      open = line.rfind("$ ddlsim ", 0) == 0;
      if (open) out.push_back({file, n, line.substr(std::string("$ ddlsim ").size()), {}});
      continue;
    }
    if (open && rstrip(line) != "..." && !rstrip(line).empty()) out.back().shown.push_back(rstrip(line));
  }
  return out;
}

}  // namespace

TEST(DocsTranscripts, EveryTranscriptIsTodaysOutput) {
  const std::string src = testutil::source_dir();
  std::vector<Transcript> all;
  for (const auto& e : std::filesystem::directory_iterator(src + "/docs"))
    if (e.path().extension() == ".md") {
      const auto t = transcripts("docs/" + e.path().filename().string(), testutil::slurp(e.path().string()));
      all.insert(all.end(), t.begin(), t.end());
    }
  const auto readme = transcripts("README.md", testutil::slurp(src + "/README.md"));
  all.insert(all.end(), readme.begin(), readme.end());
  ASSERT_GE(all.size(), 5u);
  // A fresh folder: the inputs linked, docs/ a folder of its own (a transcript may write a figure there).
  const testutil::TempFile keep("unused");
  const std::string dir = keep.dir();
  ASSERT_EQ(testutil::run_shell("cd " + dir + " && ln -s " + src + "/scenarios " + src + "/tests " + src +
                                "/calibration . && mkdir -p docs").code,
            0);
  for (const Transcript& t : all) {
    const auto r = testutil::run_shell("cd " + dir + " && timeout 300 " + std::string(DDLSIM_BINARY) + " " + t.command +
                                       " 2>&1");
    const std::string where = t.file + ":" + std::to_string(t.line) + ": ddlsim " + t.command;
    EXPECT_EQ(r.code, 0) << where << "\n" << r.out;
    std::vector<std::string> got;
    std::istringstream lines(r.out);
    for (std::string l; std::getline(lines, l);) got.push_back(rstrip(l));
    std::size_t at = 0;
    for (const std::string& want : t.shown) {
      while (at < got.size() && got[at] != want) ++at;
      EXPECT_LT(at, got.size()) << where << "\nshown, not printed (in this order): " << want << "\nprinted:\n" << r.out;
      if (at == got.size()) break;
      ++at;
    }
  }
}

// docs/compare.md's illustrative runs are what their script makes from today's model (so that fit
// finds again the network and kernel efficiency they were made with); tests/golden/regen.sh
// rewrites them with the goldens.
TEST(DocsTranscripts, IllustrativeRunsAreTheirScriptsOutput) {
  const std::string src = testutil::source_dir();
  const auto r = testutil::run_shell(src + "/scenarios/compare_example/make_illustrative.sh " +
                                     std::string(DDLSIM_BINARY) + " 2>/dev/null");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, testutil::slurp(src + "/scenarios/compare_example/poti_illustrative.csv"));
}
