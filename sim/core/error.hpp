// Errors that reach the user. Input problems are thrown as InputError at the edge
// (file readers, CLI) and turned into one message and exit code 2 in main().
#pragma once
#include <functional>
#include <stdexcept>
#include <string>

namespace ddlsim {
inline namespace core_layer {

// Bad user input: the message names the file, line or key and what was expected.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

// `--help` on a command: the text to print on stdout, exit code 0 (thrown by parse_args).
class HelpRequested : public std::exception {
 public:
  explicit HelpRequested(std::string text) : text_(std::move(text)) {}
  const char* what() const noexcept override { return text_.c_str(); }

 private:
  std::string text_;
};

// Runs a command and turns what escapes it into the process's exit code, with one line on stderr:
// InputError -> "ddlsim: error: ..." and 2; any other exception -> "ddlsim: internal error: ..." and 1.
// Both executables' main() exit through it.
int exit_code_of(const std::function<int()>& command);

}  // namespace core_layer
}  // namespace ddlsim
