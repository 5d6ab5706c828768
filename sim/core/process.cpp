#include "core/process.hpp"

#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace ddlsim {
inline namespace core_layer {

ChildProcess fork_with_pipe(const char* who, const std::function<void(int write_fd)>& in_child) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string(who) + ": cannot create a pipe");
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string(who) + ": cannot fork");
  }
  if (pid == 0) {
    ::close(fds[0]);
    in_child(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

}  // namespace core_layer
}  // namespace ddlsim
