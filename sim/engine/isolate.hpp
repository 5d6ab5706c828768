// SimGrid runs one simulation per process (its clock, configuration and platform persist) and
// may exit or abort on a bad platform file. Every SimGrid run therefore happens in a forked
// child: the child's answer comes back over a pipe; its stderr goes to a temporary file so a
// SimGrid message ("Parse error at FILE:LINE: ...") can be reported as an input error.
#pragma once
#include <functional>
#include <string>

#include "core/units.hpp"

namespace ddlsim {
inline namespace engine_layer {

// A generous default for reading platform files and small simulations; the backend derives a
// budget from the simulation's size (simgrid_backend.cpp), simulation.timeout_s overrides it.
constexpr Seconds kDefaultDeadline_s = 600;

// Runs `work` in a forked child and returns what it returned. An InputError thrown in the child
// is rethrown here as InputError; any other failure (exception, exit, abort, signal) becomes an
// InputError naming `platform` when it is a file and SimGrid said why, else a runtime_error; the
// child's last line on stderr is part of the message. A child still running after `deadline_s`
// is killed (InputError naming simulation.timeout_s). The exit status is not needed when SIGCHLD
// is ignored by the caller's environment (the child's answer tells).
std::string run_isolated(const std::function<std::string()>& work, const std::string& platform,
                         Seconds deadline_s = kDefaultDeadline_s);

// In the child: names what it is doing now, so that a crash inside SimGrid (a segmentation fault
// on a route the file does not give, say) is reported as "... while DOING".
void note_stage(const std::string& doing);

}  // namespace engine_layer
}  // namespace ddlsim
