#include "engine/version.hpp"

#include <simgrid/config.h>
#include <xbt/base.h>

#include <simgrid/version.h>

namespace ddlsim {
inline namespace engine_layer {

std::string simgrid_version() {
  int major = 0, minor = 0, patch = 0;
  sg_version_get(&major, &minor, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace engine_layer
}  // namespace ddlsim
