#include "core/output.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.hpp"

namespace fs = std::filesystem;

namespace ddlsim {
inline namespace core_layer {

namespace {

bool is_stdout(const std::string& path) { return path.empty() || path == "-"; }

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw InputError(path + ": cannot write output file (" + why + ")");
}

// The file a write to `path` lands in: symlinks followed (the last one may dangle).
std::string resolve_links(const std::string& path) {
  fs::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return p.string();
    const fs::path link = fs::read_symlink(p, ec);
    if (ec) return p.string();
    p = link.is_absolute() ? link : p.parent_path() / link;
  }
  fail(path, "too many levels of symbolic links");
}

// True for a device or FIFO, symlinks followed (written in place, through `path` itself, which
// also serves /dev/stdout on a pipe); throws for a folder; false for a file to replace or create.
bool written_in_place(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return false;
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a folder (expected an output file path)");
  return true;
}

// Where two spellings of one file meet ("a.json", "./a.json", a symlink to it).
std::string identity(const std::string& target) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(target), ec);
  return ec ? fs::absolute(target).lexically_normal().string() : p.string();
}

int write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    done += std::size_t(n);
  }
  return 0;
}

// The outputs of one commit on their way: temporary files (removed unless renamed) and open
// devices. Everything left is cleaned up when the object goes, so a failure changes no file.
class Staging {
 public:
  ~Staging() {
    for (auto& s : items_) {
      if (s.fd >= 0) ::close(s.fd);
      if (!s.tmp.empty()) ::unlink(s.tmp.c_str());
    }
  }
  void stage(const PendingOutput& o) { o.direct ? open_direct(o) : write_temporary(o); }
  // Writes the devices, then renames every temporary file over its target.
  void finish() {
    for (auto& s : items_)
      if (s.fd >= 0) {
        if (const int err = write_all(s.fd, s.out->text)) fail(s.out->path, std::strerror(err));
        close_item(s);
      }
    for (auto& s : items_)
      if (!s.tmp.empty()) {
        if (std::rename(s.tmp.c_str(), s.out->target.c_str()) != 0) fail(s.out->path, std::strerror(errno));
        s.tmp.clear();
      }
  }

 private:
  struct Item {
    const PendingOutput* out;
    std::string tmp;
    int fd = -1;
  };

  static void close_item(Item& s) {
    const int rc = ::close(s.fd);
    s.fd = -1;
    if (rc != 0) fail(s.out->path, std::strerror(errno));
  }

  // Non-blocking open: a FIFO nobody reads is an error, not a hang.
  void open_direct(const PendingOutput& o) {
    const int fd = ::open(o.target.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) fail(o.path, errno == ENXIO ? "a FIFO with no reader" : std::strerror(errno));
    items_.push_back({&o, "", fd});
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  }

  void write_temporary(const PendingOutput& o) {
    const std::string tmp = o.target + ".tmp." + std::to_string(::getpid());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST && ::unlink(tmp.c_str()) == 0)  // left by an earlier process
      fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) fail(o.path, std::strerror(errno));
    items_.push_back({&o, tmp, fd});
    if (const int err = write_all(fd, o.text)) fail(o.path, std::strerror(err));
    close_item(items_.back());
  }

  std::vector<Item> items_;
};

}  // namespace

void OutputSet::add(const std::string& path, std::string text) {
  PendingOutput o{path, "", false, std::move(text)};
  if (!is_stdout(path)) {
    o.direct = written_in_place(path);
    o.target = o.direct ? path : resolve_links(path);
    for (const auto& e : entries_)
      if (!o.direct && !e.direct && !e.target.empty() && identity(e.target) == identity(o.target))
        throw InputError(path + ": the same file as the output " + e.path + " (expected a different file for each output)");
  }
  entries_.push_back(std::move(o));
}

void OutputSet::commit() {
  {
    Staging staging;
    for (const auto& o : entries_)
      if (!o.target.empty()) staging.stage(o);
    staging.finish();
  }
  for (const auto& o : entries_)
    if (o.target.empty()) std::cout << o.text << std::flush;
  entries_.clear();
}

void write_output(const std::string& path, const std::string& text) {
  OutputSet out;
  out.add(path, text);
  out.commit();
}

}  // namespace core_layer
}  // namespace ddlsim
