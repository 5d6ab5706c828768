// Writing results: to stdout, or to files replaced atomically (temporary file, then rename), so a
// failed run never leaves a half-written output. A command with several outputs adds them all to
// one OutputSet once everything is rendered and commits it: every temporary file is written before
// any is renamed, so a failure leaves no new or changed output file.
// A symlink is written through (its target is replaced, the link stays); a device or FIFO
// (/dev/null, /dev/stdout, a pipe) is written directly, never replaced by a regular file.
#pragma once
#include <string>
#include <vector>

namespace ddlsim {
inline namespace core_layer {

// One output of an OutputSet.
struct PendingOutput {
  std::string path;    // as given, for messages
  std::string target;  // the file written (symlinks resolved); "" = stdout
  bool direct = false; // a device or FIFO: written in place, not replaced
  std::string text;
};

class OutputSet {
 public:
  // path "" or "-" = stdout (written last). Throws InputError when another output names the same file.
  void add(const std::string& path, std::string text);
  // Writes everything; on failure throws InputError naming the path and changes no file.
  void commit();

 private:
  std::vector<PendingOutput> entries_;
};

void write_output(const std::string& path, const std::string& text);  // "" or "-" = stdout

}  // namespace core_layer
}  // namespace ddlsim
