#include "core/files.hpp"

#include <filesystem>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.hpp"

namespace ddlsim {
inline namespace core_layer {

namespace {

// An open descriptor, closed with the object.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string too_large(const std::string& path, const std::string& what) {
  return path + ": larger than " + std::to_string(kMaxInputFileBytes >> 20) + " MiB (expected a " + what +
         " of at most that size)";
}

// Opens without blocking (a FIFO would wait for a writer forever); the caller owns the result.
int open_input(const std::string& path, const std::string& what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError(path + ": cannot open " + what + " (" + std::strerror(errno) + ")");
  return fd;
}

void check_kind_and_size(const Fd& fd, const std::string& path, const std::string& what) {
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw InputError(path + ": cannot open " + what + " (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode)) throw InputError(path + ": not a regular file (expected a " + what + ")");
  if (std::size_t(st.st_size) > kMaxInputFileBytes) throw InputError(too_large(path, what));
}

// Reads to the end, stopping past the limit (the file may grow while it is read).
std::string read_all(const Fd& fd, const std::string& path, const std::string& what) {
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path + ": cannot read " + what + " (" + std::strerror(errno) + ")");
    if (n == 0) return text;
    text.append(buf, std::size_t(n));
    if (text.size() > kMaxInputFileBytes) throw InputError(too_large(path, what));
  }
}

}  // namespace

std::string read_binary_file(const std::string& path, const std::string& what) {
  const Fd fd(open_input(path, what));
  check_kind_and_size(fd, path, what);
  return read_all(fd, path, what);
}

std::string read_text_file(const std::string& path, const std::string& what) {
  std::string text = read_binary_file(path, what);
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
  const auto nul = text.find('\0');
  if (nul != std::string::npos) {
    const auto line = 1 + std::count(text.begin(), text.begin() + std::ptrdiff_t(nul), '\n');
    throw InputError(path + ":" + std::to_string(line) + ": a NUL byte (expected a " + what + " in plain text)");
  }
  return text;
}

void check_input_file(const std::string& path, const std::string& what) {
  const Fd fd(open_input(path, what));
  check_kind_and_size(fd, path, what);
}

std::string display_path(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path rel = std::filesystem::proximate(path, ec);
  if (ec || rel.empty()) return path;
  const std::string text = rel.generic_string();
  return text.rfind("..", 0) == 0 ? path : text;
}

std::string executable_dir() {
  char buf[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  const std::string p(buf, std::size_t(n));
  return p.substr(0, p.find_last_of('/'));
}

std::string data_dir() {
  const std::string installed =
      std::filesystem::path(executable_dir() + "/../share/ddlsim").lexically_normal().string();
  std::error_code ec;
  if (std::filesystem::is_directory(installed + "/scenarios", ec)) return installed;
  return DDLSIM_SOURCE_DIR;
}

}  // namespace core_layer
}  // namespace ddlsim
