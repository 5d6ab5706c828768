// ddlsim: predicts the epoch time of data-parallel deep-learning training.
// The one place the process exits: input errors -> 2, internal errors -> 1.
#include <cstring>
#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"

int main(int argc, char** argv) {
  using namespace ddlsim;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::cout << usage();
    return argc < 2 ? 2 : 0;
  }
  const std::string name = argv[1];
  const Args args(argv + 2, argv + argc);
  for (const auto& c : commands()) {
    if (name != c.name) continue;
    try {
      return c.run(args);
    } catch (const InputError& e) {
      std::cerr << "ddlsim: error: " << e.what() << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "ddlsim: internal error: " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "ddlsim: error: unknown command '" << name << "'\n" << usage();
  return 2;
}
