// A forked child that answers through a pipe: the SimGrid hand-off (engine/isolate.cpp) and the
// sweep's per-configuration processes (sweep/sweep.cpp) both start their children this way.
#pragma once
#include <sys/types.h>

#include <functional>

namespace ddlsim {
inline namespace core_layer {

struct ChildProcess {
  pid_t pid = -1;
  int fd = -1;  // read end of the pipe the child writes its answer to
};

// Flushes stdio, creates the pipe and forks. The child runs `in_child(write_fd)` and then exits
// with _exit(0) if it returned. Throws std::runtime_error naming `who` when the pipe or the fork fails.
ChildProcess fork_with_pipe(const char* who, const std::function<void(int write_fd)>& in_child);

}  // namespace core_layer
}  // namespace ddlsim
