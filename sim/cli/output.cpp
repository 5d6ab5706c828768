#include "cli/output.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "core/error.hpp"

namespace ddlsim {

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text << std::flush;
    return;
  }
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError(path + ": cannot write output file");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw InputError(path + ": cannot write output file");
  }
}

}  // namespace ddlsim
