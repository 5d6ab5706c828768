// Reading input files at the edge: every reader goes through here, so a directory, FIFO or device,
// an oversized file, or one that cannot be opened is the same clear InputError everywhere.
#pragma once
#include <cstddef>
#include <string>

namespace ddlsim {
inline namespace core_layer {

// The largest input file read (scenario, model, CSV, calibration, platform XML).
inline constexpr std::size_t kMaxInputFileBytes = std::size_t(64) << 20;  // 64 MiB

// The whole text of the regular file `path` (symlinks followed), without a leading UTF-8 BOM.
// `what` names the kind of file in messages, e.g. "scenario file":
//   "PATH: not a regular file (expected a scenario file)".
std::string read_text_file(const std::string& path, const std::string& what);

// `path` as a title shows it: relative to the working directory when it lies below it, else as
// given ("/home/u/study/m.csv" run from /home/u/study reads "m.csv").
std::string display_path(const std::string& path);

// The bytes of the regular file `path`, with the same checks (no text rules: an image, say).
std::string read_binary_file(const std::string& path, const std::string& what);

// The same checks without reading, for files another parser opens itself (SimGrid's platform XML).
void check_input_file(const std::string& path, const std::string& what);

// The folder of the running executable (/proc/self/exe), "." where it cannot be read.
std::string executable_dir();

// Where ddlsim's data lies (scenarios/, platforms/, calibration/): PREFIX/share/ddlsim beside an
// installed ddlsim (`cmake --install build --prefix PREFIX`: the binary in PREFIX/bin), else the
// source tree it was built from.
std::string data_dir();

}  // namespace core_layer
}  // namespace ddlsim
