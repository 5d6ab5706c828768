// The SimGrid library ddlsim runs with (for `ddlsim --version`).
#pragma once
#include <string>

namespace ddlsim {
inline namespace engine_layer {

std::string simgrid_version();  // "3.32.0", as the loaded library reports it

}  // namespace engine_layer
}  // namespace ddlsim
