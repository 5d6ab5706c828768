// Writing results: to stdout, or to a file replaced atomically (temporary file, then rename),
// so a failed run never leaves a half-written output.
#pragma once
#include <string>

namespace ddlsim {

void write_output(const std::string& path, const std::string& text);  // "" or "-" = stdout

}  // namespace ddlsim
