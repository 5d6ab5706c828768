#include "calibration/calibration_file.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace ddlsim {
inline namespace calibration_layer {

namespace {

constexpr const char* kMagic = "ddlsim-calibration";
constexpr const char* kHeader = "layer,batch,forward_s,backward_s,update_s,accumulate_s,kernels";
constexpr const char* kKernelHeader = "layer,batch,phase,kernel,seconds";
constexpr int kFirstVersion = 1;  // layer times only

std::string sci(double v) { return fmt::format("{:.6e}", v); }

}  // namespace

std::string render_calibration(const Calibration& c) {
  std::string out = "# ddlsim compute calibration: per-layer kernel times (docs/calibration.md)\n";
  out += fmt::format("format = {} {}\n", kMagic, c.version);
  out += fmt::format("device = {}\ndevice_kind = {}\nmodel = {}\nmodel_params = {}\nmodel_fwd_flops = {}\n",
                     c.device, c.device_kind, c.model, c.model_params, format_number(c.model_fwd_flops));
  out += fmt::format("precision = {}\nclock = {}\ntool = {}\nhost = {}\ndate = {}\n", c.precision, c.clock,
                     c.tool, c.host, c.date);
  if (c.interference >= 0) out += fmt::format("interference = {}\n", format_number(c.interference));
  out += "\n";
  out += std::string(kHeader) + "\n";
  for (const auto& r : c.rows)
    out += fmt::format("{},{},{},{},{},{},{}\n", r.layer, r.batch, sci(r.fwd_s), sci(r.bwd_s), sci(r.update_s),
                       sci(r.accum_s), r.kernels);
  if (c.kernels.empty()) return out;
  out += "\n" + std::string(kKernelHeader) + "\n";
  for (const auto& k : c.kernels) out += fmt::format("{},{},{},{},{}\n", k.layer, k.batch, k.phase, k.kernel, sci(k.s));
  return out;
}

namespace {

class Parser {
 public:
  explicit Parser(std::string origin) : origin_(std::move(origin)) {}

  [[noreturn]] void fail(int line, const std::string& msg) const {
    throw InputError(fmt::format("{}:{}: {}", origin_, line, msg));
  }

  double number(const std::string& t, int line, const char* col, bool allow_zero = true) const {
    if (const auto v = parse_real(t, 0, HUGE_VAL, !allow_zero)) return *v;
    fail(line, fmt::format("{} = '{}': expected a number >= 0{}", col, t, allow_zero ? "" : " (not 0)"));
  }

  int integer(const std::string& t, int line, const char* col, int min) const {
    if (const auto v = parse_integer(t, min, 100000000)) return int(*v);
    fail(line, fmt::format("{} = '{}': expected an integer from {} to 100000000", col, t, min));
  }

  // A parameter count: up to 2^50 (a model builder's layer holds at most 2^40).
  std::int64_t count(const std::string& t, int line, const char* col) const {
    if (const auto v = parse_integer(t, 0, std::int64_t(1) << 50)) return *v;
    fail(line, fmt::format("{} = '{}': expected an integer from 0 to 2^50", col, t));
  }

  void header(const std::string& key, const std::string& value, int line, Calibration& c) {
    const auto [first, fresh] = seen_keys_.emplace(key, line);
    if (!fresh) fail(line, fmt::format("'{}' is given twice (first on line {})", key, first->second));
    if (key == "format") {
      if (value.rfind(kMagic, 0) != 0) fail(line, fmt::format("format = '{}': expected '{} 1'", value, kMagic));
      c.version = integer(trim(value.substr(std::string(kMagic).size())), line, "format version", 1);
      if (c.version < kFirstVersion || c.version > kCalibrationVersion)
        fail(line, fmt::format("calibration format version {} is not supported (this ddlsim reads {} to {})",
                               c.version, kFirstVersion, kCalibrationVersion));
      seen_format_ = true;
    } else if (key == "device") c.device = value;
    else if (key == "device_kind") c.device_kind = device_kind(value, line);
    else if (key == "model") c.model = value;
    else if (key == "model_params") c.model_params = count(value, line, "model_params");
    else if (key == "model_fwd_flops") c.model_fwd_flops = number(value, line, "model_fwd_flops");
    else if (key == "precision") c.precision = value;
    else if (key == "clock") c.clock = value;
    else if (key == "tool") c.tool = value;
    else if (key == "host") c.host = value;
    else if (key == "date") c.date = value;
    else if (key == "interference") c.interference = fraction(value, line);
    else fail(line, fmt::format("unknown key '{}' (expected format, device, device_kind, model, model_params, "
                                "model_fwd_flops, precision, clock, tool, host, date, interference)", key));
  }

  double fraction(const std::string& t, int line) const {
    if (const auto v = parse_real(t, 0, 10, false)) return *v;
    fail(line, fmt::format("interference = '{}': expected a slow-down fraction from 0 to 10", clip(t)));
  }

  std::string device_kind(const std::string& value, int line) const {
    if (value != "cpu" && value != "cuda")
      fail(line, fmt::format("device_kind = '{}': expected cpu or cuda", clip(value)));
    return value;
  }

  // Layer names are written as they are: a quoted name is rejected, not unquoted.
  std::string layer_name(const std::string& t, int line) const {
    if (t.empty()) fail(line, "layer name is empty");
    if (t.find('"') != std::string::npos)
      fail(line, fmt::format("layer = '{}': expected the layer name without quotes", clip(t)));
    return t;
  }

  void row(const std::string& text, int line, Calibration& c) {
    const auto f = split(text, ',');
    if (f.size() != 7) fail(line, fmt::format("expected 7 comma-separated fields ({}), got {}", kHeader, f.size()));
    LayerTiming r;
    r.layer = layer_name(f[0], line);
    r.line = line;
    r.batch = integer(f[1], line, "batch", 1);
    r.fwd_s = number(f[2], line, "forward_s");
    r.bwd_s = number(f[3], line, "backward_s");
    r.update_s = number(f[4], line, "update_s");
    r.accum_s = number(f[5], line, "accumulate_s");
    r.kernels = integer(f[6], line, "kernels", 0);
    if (!seen_rows_.insert({r.layer, r.batch}).second)
      fail(line, fmt::format("layer '{}' at batch {} is listed twice", r.layer, r.batch));
    c.rows.push_back(r);
  }

  // A kernel of a layer at a batch the layer table lists (the kernel table comes second).
  void kernel_row(const std::string& text, int line, Calibration& c) {
    const auto f = split(text, ',');
    if (f.size() != 5)
      fail(line, fmt::format("expected 5 comma-separated fields ({}), got {}", kKernelHeader, f.size()));
    KernelTiming k;
    k.layer = layer_name(f[0], line);
    k.batch = integer(f[1], line, "batch", 1);
    k.phase = f[2];
    if (k.phase != "forward" && k.phase != "backward" && k.phase != "update" && k.phase != "accumulate")
      fail(line, fmt::format("phase = '{}': expected forward, backward, update or accumulate", clip(k.phase)));
    k.kernel = f[3];
    if (k.kernel.empty() || k.kernel.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
      fail(line, fmt::format("kernel = '{}': expected a kernel name (lower-case letters, digits and '_')", clip(k.kernel)));
    k.s = number(f[4], line, "seconds");
    k.line = line;
    if (!seen_rows_.count({k.layer, k.batch}))
      fail(line, fmt::format("kernel of layer '{}' at batch {}: the layer table has no such row", clip(k.layer), k.batch));
    c.kernels.push_back(k);
  }

  // Each layer's kernels add up to its row's times (to the files' 7 significant digits).
  void check_kernel_sums(const Calibration& c) const {
    std::map<std::pair<std::string, int>, std::array<double, 4>> sums;
    std::map<std::pair<std::string, int>, int> last_line;
    const auto at = [](const std::string& phase) {
      return phase == "forward" ? 0 : phase == "backward" ? 1 : phase == "update" ? 2 : 3;
    };
    for (const KernelTiming& k : c.kernels) {
      sums[{k.layer, k.batch}][std::size_t(at(k.phase))] += k.s;
      last_line[{k.layer, k.batch}] = k.line;
    }
    for (const LayerTiming& r : c.rows) {
      const auto it = sums.find({r.layer, r.batch});
      const std::array<double, 4> got = it == sums.end() ? std::array<double, 4>{} : it->second;
      const std::array<double, 4> want = {r.fwd_s, r.bwd_s, r.update_s, r.accum_s};
      static const char* names[] = {"forward_s", "backward_s", "update_s", "accumulate_s"};
      for (std::size_t i = 0; i < 4; ++i)
        if (std::fabs(got[i] - want[i]) > 1e-5 * std::max(got[i], want[i]) + 1e-12)
          fail(it == sums.end() ? r.line : last_line[{r.layer, r.batch}],
               fmt::format("layer '{}' at batch {}: its kernels' {} add up to {}, the layer table (line {}) says {}",
                           clip(r.layer), r.batch, names[i], sci(got[i]), r.line, sci(want[i])));
    }
  }

  Calibration parse(const std::string& text) {
    Calibration c;
    std::istringstream in(text);
    std::string raw;
    bool in_table = false, in_kernels = false;
    int n = 0;
    while (std::getline(in, raw)) {
      ++n;
      const std::string line = trim(raw.substr(0, in_table || in_kernels ? raw.size() : raw.find('#')));
      if (line.empty() || line[0] == '#') continue;
      if (in_table && line == kKernelHeader) {
        if (c.version < 2) fail(n, fmt::format("a kernel table needs 'format = {} 2'", kMagic));
        in_kernels = true;
        in_table = false;
      } else if (in_kernels) {
        kernel_row(line, n, c);
      } else if (in_table) {
        row(line, n, c);
      } else if (line == kHeader) {
        if (!seen_format_) fail(n, fmt::format("the table starts before 'format = {} 1'", kMagic));
        in_table = true;
      } else {
        const auto eq = line.find('=');
        if (eq == std::string::npos)
          fail(n, fmt::format("expected 'key = value' or the table header '{}', got '{}'", kHeader, line));
        header(trim(line.substr(0, eq)), trim(line.substr(eq + 1)), n, c);
      }
    }
    if (!seen_format_) fail(n, fmt::format("not a ddlsim calibration file (no 'format = {} 1' line)", kMagic));
    if (c.model.empty()) fail(n, "missing 'model = NAME'");
    if (c.rows.empty()) fail(n, fmt::format("no rows (expected the table '{}')", kHeader));
    if (!c.kernels.empty()) check_kernel_sums(c);
    return c;
  }

 private:
  std::string origin_;
  bool seen_format_ = false;
  std::set<std::pair<std::string, int>> seen_rows_;
  std::map<std::string, int> seen_keys_;  // header key -> its line
};

}  // namespace

Calibration parse_calibration(const std::string& text, const std::string& origin) {
  return Parser(origin).parse(text);
}

Calibration load_calibration_file(const std::string& path) {
  return parse_calibration(read_text_file(path, "calibration file"), path);
}

}  // namespace calibration_layer
}  // namespace ddlsim
