// The SimGrid library ddlsim runs with (for `ddlsim --version`).
#pragma once
#include <string>

namespace ddlsim {

std::string simgrid_version();  // "3.32.0", as the loaded library reports it

}  // namespace ddlsim
