// SimGrid runs one simulation per process (its clock, configuration and platform persist) and
// may exit or abort on a bad platform file. Every SimGrid run therefore happens in a forked
// child: the child's answer comes back over a pipe; its stderr goes to a temporary file so a
// SimGrid message ("Parse error at FILE:LINE: ...") can be reported as an input error.
#pragma once
#include <functional>
#include <string>

namespace ddlsim {

// Runs `work` in a forked child and returns what it returned. An InputError thrown in the child
// is rethrown here as InputError; any other failure (exception, exit, abort, signal) becomes an
// InputError naming `platform` when it is a file and SimGrid said why, else a runtime_error.
std::string run_isolated(const std::function<std::string()>& work, const std::string& platform);

// In the child: names what it is doing now, so that a crash inside SimGrid (a segmentation fault
// on a route the file does not give, say) is reported as "... while DOING".
void note_stage(const std::string& doing);

}  // namespace ddlsim
