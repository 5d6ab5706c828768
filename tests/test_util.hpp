// Helpers shared by the tests: temporary files and running the ddlsim binary.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

namespace testutil {

inline std::string source_dir() { return DDLSIM_SOURCE_DIR; }

// The q-quantile of `x`, linear between order statistics (numpy's default, Hyndman and Fan's type
// 7): the tests' own recomputation of the spreads the program's constants state.
inline double quantile(std::vector<double> x, double q) {
  std::sort(x.begin(), x.end());
  const double h = double(x.size() - 1) * q;
  const std::size_t lo = std::size_t(std::floor(h));
  return lo + 1 < x.size() ? x[lo] + (h - double(lo)) * (x[lo + 1] - x[lo]) : x[lo];
}

// A file in a fresh temporary folder, removed with the object.
class TempFile {
 public:
  explicit TempFile(const std::string& name, const std::string& text = "") {
    char tmpl[] = "/tmp/ddlsim-test-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    path_ = dir_ + "/" + name;
    if (!text.empty()) std::ofstream(path_) << text;
  }
  ~TempFile() { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  const std::string& path() const { return path_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_, path_;
};

inline bool exists(const std::string& path) { return std::ifstream(path).good(); }

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct RunResult {
  int code;
  std::string out;  // stdout and stderr together
};

// Runs a shell command; its exit code and its standard output.
inline RunResult run_shell(const std::string& cmd) {
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// Runs `ddlsim ARGS` in a shell; ARGS are passed as written. Under a time limit, so that a hang
// fails the test instead of stalling the suite; `env` (e.g. "PATH=/nonexistent") is added to the
// environment. Standard output and error together.
// A /24 subnet "PREFIX.X" that no interface of this machine uses yet, X from `start` on (mod 250):
// a testbed left behind by a killed run, or another test's, must not share its addresses.
inline std::string free_subnet(const std::string& prefix, int start) {
  const std::string used = run_shell("ip -4 -o addr show 2>/dev/null").out;
  for (int i = 0; i < 250; ++i) {
    const std::string s = prefix + "." + std::to_string((start + i) % 250);
    if (used.find(" " + s + ".") == std::string::npos) return s;
  }
  return prefix + "." + std::to_string(start % 250);
}

inline RunResult run_ddlsim(const std::string& args, const std::string& env = "") {
  return run_shell("timeout 300 env " + env + " " + std::string(DDLSIM_BINARY) + " " + args + " 2>&1");
}

}  // namespace testutil
