#include "engine/isolate.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "core/error.hpp"
#include "core/process.hpp"
#include "core/text.hpp"

namespace ddlsim {
inline namespace engine_layer {

namespace {

constexpr const char* kStageTag = "[ddlsim/stage] ";

// Set in a forked child only (a process-wide fact, hence static): stage notes go to the child's
// captured stderr, never to the user's.
bool in_child = false;

void write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n <= 0) return;
    done += std::size_t(n);
  }
}

// Reads until end of file or until `deadline_s` has passed (false: the deadline passed first).
bool read_all(int fd, std::string& out, Seconds deadline_s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(deadline_s);
  char buf[65536];
  while (true) {
    const double left_ms = std::chrono::duration<double, std::milli>(end - std::chrono::steady_clock::now()).count();
    if (left_ms <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, int(std::min(left_ms, 1e9)) + 1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // re-check the clock
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    out.append(buf, std::size_t(n));
  }
}

// Reaps the child; false when it cannot be (SIGCHLD ignored: the kernel reaped it already).
bool reap(pid_t pid, int& status) {
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return false;
  return true;
}

std::string read_file(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, f)) out.append(buf, n);
  return out;
}

[[noreturn]] void child(int fd, std::FILE* err, const std::function<std::string()>& work) {
  ::dup2(::fileno(err), STDERR_FILENO);
  in_child = true;
  std::string answer;
  int code = 0;
  try {
    answer = "ok\n" + work();
  } catch (const InputError& e) {
    answer = std::string("input\n") + e.what();
    code = 2;
  } catch (const std::exception& e) {
    answer = std::string("error\n") + e.what();
    code = 1;
  }
  write_all(fd, answer);
  ::close(fd);
  ::_exit(code);
}

// The most telling line SimGrid wrote: a parse error, else its last error line.
std::string simgrid_reason(const std::string& err) {
  std::string last;
  for (const auto& line : split(err, '\n')) {
    const auto at = line.find("Parse error at ");
    if (at != std::string::npos) return line.substr(at);
    if (line.find("/ERROR]") != std::string::npos || line.find("/CRITICAL]") != std::string::npos) {
      const auto msg = line.find("] ", line.find("/"));
      last = msg == std::string::npos ? line : line.substr(msg + 2);
    }
  }
  return last;
}


// The child's last line on stderr that is not a stage note ("" if none).
std::string last_line(const std::string& err) {
  std::string last;
  for (const auto& line : split(err, '\n'))
    if (!line.empty() && line.rfind(kStageTag, 0) != 0) last = line;
  return last;
}

// The last stage the child noted before it stopped ("" if none).
std::string last_stage(const std::string& err) {
  std::string stage;
  for (const auto& line : split(err, '\n'))
    if (line.rfind(kStageTag, 0) == 0) stage = line.substr(std::char_traits<char>::length(kStageTag));
  return stage;
}

bool is_file(const std::string& platform) {
  return platform.size() > 4 && to_lower(platform.substr(platform.size() - 4)) == ".xml";
}
}  // namespace

void note_stage(const std::string& doing) {
  if (in_child) std::fprintf(stderr, "%s%s\n", kStageTag, doing.c_str());
}

std::string run_isolated(const std::function<std::string()>& work, const std::string& platform, Seconds deadline_s) {
  std::FILE* err = std::tmpfile();
  if (!err) throw std::runtime_error("SimGrid backend: cannot create a temporary file");
  ChildProcess child_process;
  try {
    child_process = fork_with_pipe("SimGrid backend", [&](int fd) { child(fd, err, work); });
  } catch (...) {
    std::fclose(err);
    throw;
  }
  const pid_t pid = child_process.pid;
  std::string answer;
  const bool in_time = read_all(child_process.fd, answer, deadline_s);
  ::close(child_process.fd);
  if (!in_time) ::kill(pid, SIGKILL);
  int status = 0;
  const bool reaped = reap(pid, status);
  const std::string stderr_text = read_file(err);
  std::fclose(err);
  if (!in_time)
    throw InputError("SimGrid on " + platform + " did not finish within its deadline of " + format_number(deadline_s) +
                     " s and was stopped; simulation.timeout_s sets the deadline (or try simulation.fidelity = fast, "
                     "fewer ranks or larger buckets)");

  const auto nl = answer.find('\n');
  const std::string kind = answer.substr(0, nl);
  const std::string body = nl == std::string::npos ? "" : answer.substr(nl + 1);
  // Without the exit status (SIGCHLD ignored by whoever started ddlsim), the answer alone tells.
  if (kind == "ok" && (!reaped || (WIFEXITED(status) && WEXITSTATUS(status) == 0))) return body;
  if (kind == "input") throw InputError(body);
  std::string reason = kind == "error" ? body : simgrid_reason(stderr_text);
  if (reason.empty()) {
    reason = !reaped              ? std::string("SimGrid ended without an answer")
             : WIFSIGNALED(status) ? "SimGrid stopped with signal " + std::to_string(WTERMSIG(status))
                                   : "SimGrid exited with code " + std::to_string(WEXITSTATUS(status));
    const std::string stage = last_stage(stderr_text);
    if (!stage.empty()) reason += " while " + stage;
    const std::string said = last_line(stderr_text);
    if (!said.empty()) reason += " (it said: " + clip(said) + ")";
  }
  if (is_file(platform)) {
    if (reason.find(platform) == std::string::npos) reason = platform + ": " + reason;
    if (last_stage(stderr_text).rfind("finding the route", 0) == 0)
      reason += "; a platform file must route every pair of hosts that exchange data";
    throw InputError(reason);
  }
  throw std::runtime_error("SimGrid backend: " + reason);
}

}  // namespace engine_layer
}  // namespace ddlsim
