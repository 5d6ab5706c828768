// Errors that reach the user. Input problems are thrown as InputError at the edge
// (file readers, CLI) and turned into one message and exit code 2 in main().
#pragma once
#include <stdexcept>
#include <string>

namespace ddlsim {

// Bad user input: the message names the file, line or key and what was expected.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace ddlsim
