#include "study/gnuplot_runner.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/process.hpp"
#include "core/text.hpp"

namespace ddlsim {
inline namespace study_layer {

namespace {

constexpr int kExecFailed = 127;

// A private temporary folder, removed with its files.
class ScratchDir {
 public:
  ScratchDir() {
    char tmpl[] = "/tmp/ddlsim-report-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error(std::string("report: cannot create a temporary folder: ") + std::strerror(errno));
    path_ = tmpl;
  }
  ~ScratchDir() {
    for (const auto& f : files_) std::remove((path_ + "/" + f).c_str());
    ::rmdir(path_.c_str());
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string write(const std::string& name, const std::string& text) {
    files_.push_back(name);
    std::ofstream out(path_ + "/" + name, std::ios::binary);
    out << text;
    if (!out.flush()) throw std::runtime_error("report: cannot write " + path_ + "/" + name);
    return path_ + "/" + name;
  }
  void expect(const std::string& name) { files_.push_back(name); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

// In the child: into the folder, stdout and stderr to the pipe, stdin from /dev/null, exec.
[[noreturn]] void exec_gnuplot(int fd, const std::string& dir, const std::string& program, const std::string& script) {
  const int null = ::open("/dev/null", O_RDONLY);
  if (null >= 0) ::dup2(null, STDIN_FILENO);
  ::dup2(fd, STDOUT_FILENO);
  ::dup2(fd, STDERR_FILENO);
  if (::chdir(dir.c_str()) == 0) {
    const char* argv[] = {program.c_str(), script.c_str(), nullptr};
    ::execvp(program.c_str(), const_cast<char* const*>(argv));
  }
  const std::string msg = std::strerror(errno);
  if (::write(STDERR_FILENO, msg.data(), msg.size()) < 0) {
  }
  ::_exit(kExecFailed);
}

// Runs `program script` in `dir`; its exit status and what it printed.
std::pair<int, std::string> run_child(const std::string& dir, const std::string& program, const std::string& script) {
  const ChildProcess child =
      fork_with_pipe("report", [&](int fd) { exec_gnuplot(fd, dir, program, script); });
  std::string said;
  char buf[4096];
  for (ssize_t n; (n = ::read(child.fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    said.append(buf, std::size_t(n));
  }
  ::close(child.fd);
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), said};
}

// gnuplot's message, at most 400 characters.
std::string first_lines(const std::string& said) {
  const std::string t = trim(said);
  return t.size() > 400 ? t.substr(0, 400) + "..." : t;
}

DrawnFigure draw_one(ScratchDir& dir, const FigureSource& f, const std::string& program) {
  dir.write(f.name + ".dat", f.data);
  dir.write(f.name + ".gp", f.script);
  dir.expect(f.name + ".svg");
  dir.expect(f.name + ".png");
  const auto [code, said] = run_child(dir.path(), program, f.name + ".gp");
  if (code == kExecFailed)
    throw InputError("report: cannot run '" + program + "' (" + trim(said) +
                     "); the figures are drawn with gnuplot (Debian: apt-get install gnuplot-nox)");
  if (code != 0)
    throw InputError("report: gnuplot failed on " + f.name + ".gp (exit " + std::to_string(code) + "): " + first_lines(said));
  return {f, read_text_file(dir.path() + "/" + f.name + ".svg", "SVG drawn by gnuplot"),
          read_binary_file(dir.path() + "/" + f.name + ".png", "PNG drawn by gnuplot")};
}

}  // namespace

std::vector<DrawnFigure> draw_figures(const std::vector<FigureSource>& figures, const std::string& program) {
  ScratchDir dir;
  std::vector<DrawnFigure> out;
  for (const auto& f : figures) out.push_back(draw_one(dir, f, program));
  return out;
}

}  // namespace study_layer
}  // namespace ddlsim
