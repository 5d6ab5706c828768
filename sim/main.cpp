// ddlsim: predicts the epoch time of data-parallel deep-learning training.
// The one place the process exits: input errors -> 2, internal errors -> 1 (core/error.hpp).
#include <cstring>
#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"

int main(int argc, char** argv) {
  using namespace ddlsim;
  if (argc == 2 && !std::strcmp(argv[1], "--version")) {
    std::cout << version_text();
    return 0;
  }
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::cout << usage();
    return argc < 2 ? 2 : 0;
  }
  const std::string name = argv[1];
  const Args args(argv + 2, argv + argc);
  for (const auto& c : commands()) {
    if (name != c.name) continue;
    return exit_code_of([&] { return c.run(args); });
  }
  std::cerr << "ddlsim: error: " << unknown_command(name) << "\n" << usage();
  return 2;
}
