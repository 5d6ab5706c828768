// `ddlsim calibrate-input`: times the data loader's work per image on this host's CPU (see
// calibration/input_bench.hpp) on the user's JPEGs (--images DIR) or on synthetic ones, and writes
// the result as a scenario overlay: [input] decode_ms (and sample_kb, from real images).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "calibration/input_bench.hpp"
#include "core/args.hpp"
#include "cli/commands.hpp"
#include "core/output.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/text.hpp"
#include "kernels/runner.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace ddlsim {
inline namespace cli_layer {

namespace {

constexpr double kMaxTotalBytes = 256.0 * 1024 * 1024;  // images held in memory at once
constexpr int kSyntheticCount = 32;

bool is_jpeg_name(const fs::path& p) {
  const std::string ext = to_lower(p.extension().string());
  return ext == ".jpg" || ext == ".jpeg";
}

// The first `max_images` JPEG files of `dir` in name order, at most kMaxTotalBytes in all.
std::vector<JpegImage> read_jpegs(const std::string& dir, int max_images) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError("--images " + dir + ": not a folder (expected a folder of JPEG files)");
  std::vector<fs::path> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (is_jpeg_name(it->path()) && fs::is_regular_file(it->path(), ec)) names.push_back(it->path());
  if (ec) throw InputError("--images " + dir + ": cannot list (" + ec.message() + ")");
  if (names.empty()) throw InputError("--images " + dir + ": no .jpg or .jpeg files in it");
  std::sort(names.begin(), names.end());
  std::vector<JpegImage> images;
  double total = 0;
  for (const auto& p : names) {
    if (int(images.size()) == max_images || total >= kMaxTotalBytes) break;
    const std::string bytes = read_binary_file(p.string(), "JPEG image");
    images.push_back({p.string(), std::vector<unsigned char>(bytes.begin(), bytes.end())});
    total += double(bytes.size());
  }
  return images;
}

std::string overlay_text(const InputBenchResult& r, const std::string& source, bool real_images, int out_h, int out_w) {
  std::string t = "# ddlsim calibrate-input on " + make_cpu_runner()->device() + "\n";
  t += fmt::format("# {} images from {}: mean {:.1f} KiB, {:.2f} megapixels; samples of {}x{}; {} rounds\n",
                   r.images, source, r.mean_bytes / 1024, r.mean_pixels / 1e6, out_h, out_w, r.rounds);
  t += fmt::format("# per image on one loader worker (CPU time): decode {:.3f} ms; decode, crop, resize, "
                   "flip and normalise {:.3f} ms\n",
                   r.decode_s * 1e3, r.sample_s * 1e3);
  t += "[input]\n";
  t += fmt::format("decode_ms = {:.4g}\n", r.sample_s * 1e3);
  if (real_images) t += fmt::format("sample_kb = {:.4g}\n", r.mean_bytes / 1024);
  return t;
}

}  // namespace

int cmd_calibrate_input(const Args& args) {
  po::options_description own("calibrate-input options");
  own.add_options()("images", po::value<std::string>()->default_value(""),
                    "folder of JPEG files from your dataset (default: synthetic images)")(
      "max-images", po::value<int>()->default_value(256), "images used at most, in name order (1 to 100000)")(
      "synthetic-size", po::value<std::string>()->default_value("375x500"),
      "height x width of the synthetic images (ImageNet-like; 16 to 8192)")(
      "input-size", po::value<std::string>()->default_value("224"), "the model's input, N or HxW (1 to 8192)")(
      "min-time", po::value<double>()->default_value(2.0), "seconds of timing, 0.01 to 600")(
      "out,o", po::value<std::string>()->default_value(""), "write the overlay here (default: stdout)");
  const ParsedArgs pa = parse_args(args, own, "calibrate-input");
  if (!pa.positional.empty() || !pa.overrides.empty())
    throw InputError("ddlsim calibrate-input: unexpected argument '" +
                     (pa.positional.empty() ? pa.overrides.front() : pa.positional.front()) + "'");
  const auto& vm = pa.vm;
  const int max_images = vm["max-images"].as<int>();
  if (max_images < 1 || max_images > 100000)
    throw InputError("--max-images " + std::to_string(max_images) + ": expected an integer from 1 to 100000");
  const double min_time = vm["min-time"].as<double>();
  if (!(min_time >= 0.01 && min_time <= 600))
    throw InputError("--min-time " + format_number(min_time) + ": expected seconds from 0.01 to 600");
  const auto [out_h, out_w] = size_option("input-size", vm["input-size"].as<std::string>(), 8192);
  const auto [syn_h, syn_w] = size_option("synthetic-size", vm["synthetic-size"].as<std::string>(), 8192);
  if (syn_h < 16 || syn_w < 16) throw InputError("--synthetic-size: expected at least 16x16 pixels");
  const std::string dir = vm["images"].as<std::string>();
  const bool real = !dir.empty();
  const std::vector<JpegImage> images =
      real ? read_jpegs(dir, max_images) : synthetic_jpegs(std::min(max_images, kSyntheticCount), syn_w, syn_h, 90);
  const InputBenchResult r = time_input_pipeline(images, out_h, out_w, min_time);
  const std::string source = real ? dir : fmt::format("synthetic {}x{} JPEGs (quality 90)", syn_h, syn_w);
  write_output(vm["out"].as<std::string>(), overlay_text(r, source, real, out_h, out_w));
  return 0;
}

}  // namespace cli_layer
}  // namespace ddlsim
