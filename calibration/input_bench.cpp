#include "calibration/input_bench.hpp"

#include <turbojpeg.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <random>

#include "core/error.hpp"

namespace ddlsim {
inline namespace input_bench_layer {

namespace {

constexpr double kMaxPixels = 100e6;  // a larger image is refused, not decoded into gigabytes

class TjHandle {
 public:
  explicit TjHandle(tjhandle h) : h_(h) {
    if (!h_) throw std::runtime_error("libjpeg-turbo: cannot create a handle");
  }
  ~TjHandle() { tjDestroy(h_); }
  TjHandle(const TjHandle&) = delete;
  TjHandle& operator=(const TjHandle&) = delete;
  tjhandle get() const { return h_; }

 private:
  tjhandle h_;
};

double thread_cpu_s() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Rgb {
  int w = 0, h = 0;
  std::vector<unsigned char> px;  // h x w x 3
};

Rgb decode(const TjHandle& tj, const JpegImage& img) {
  int w = 0, h = 0, subsamp = 0, colorspace = 0;
  const unsigned char* src = img.bytes.data();
  const unsigned long size = static_cast<unsigned long>(img.bytes.size());
  if (tjDecompressHeader3(tj.get(), src, size, &w, &h, &subsamp, &colorspace) != 0)
    throw InputError(img.origin + ": not a JPEG image libjpeg-turbo can read (" + tjGetErrorStr2(tj.get()) + ")");
  if (w <= 0 || h <= 0)
    throw InputError(img.origin + ": not a JPEG image libjpeg-turbo can read (no image size in its header)");
  if (double(w) * h > kMaxPixels)
    throw InputError(img.origin + ": " + std::to_string(w) + "x" + std::to_string(h) +
                     " pixels (expected an image of at most 100 megapixels)");
  Rgb out;
  out.w = w, out.h = h;
  out.px.resize(std::size_t(w) * h * 3);
  if (tjDecompress2(tj.get(), src, size, out.px.data(), w, 0, h, TJPF_RGB, TJFLAG_ACCURATEDCT) != 0 &&
      tjGetErrorCode(tj.get()) == TJERR_FATAL)
    throw InputError(img.origin + ": cannot decode (" + std::string(tjGetErrorStr2(tj.get())) + ")");
  return out;
}

struct Crop {
  int x = 0, y = 0, w = 1, h = 1;
  bool flip = false;
};

// RandomResizedCrop's choice: area 8-100 %, aspect log-uniform in [3/4, 4/3]; the whole image
// when ten tries do not fit.
Crop random_crop(int w, int h, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> area(0.08, 1.0), log_ratio(std::log(3.0 / 4), std::log(4.0 / 3)), u(0, 1);
  Crop c{0, 0, w, h, u(rng) < 0.5};
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double a = area(rng) * w * h, r = std::exp(log_ratio(rng));
    const int cw = int(std::lround(std::sqrt(a * r))), ch = int(std::lround(std::sqrt(a / r)));
    if (cw < 1 || ch < 1 || cw > w || ch > h) continue;
    c.w = cw, c.h = ch;
    c.x = int(u(rng) * (w - cw + 1)), c.y = int(u(rng) * (h - ch + 1));
    c.x = std::min(c.x, w - cw), c.y = std::min(c.y, h - ch);
    break;
  }
  return c;
}

// Bilinear resize of the crop to out_h x out_w, flipped if asked, normalised per channel.
void resize_normalise(const Rgb& img, const Crop& c, int out_h, int out_w, std::vector<float>& out) {
  static const float mean[3] = {0.485f, 0.456f, 0.406f}, inv_std[3] = {1 / 0.229f, 1 / 0.224f, 1 / 0.225f};
  out.resize(std::size_t(out_h) * out_w * 3);
  const float sy = float(c.h) / out_h, sx = float(c.w) / out_w;
  for (int oy = 0; oy < out_h; ++oy) {
    const float fy = std::clamp((oy + 0.5f) * sy - 0.5f, 0.f, float(c.h - 1));
    const int y0 = int(fy), y1 = std::min(y0 + 1, c.h - 1);
    const float wy = fy - y0;
    const unsigned char* r0 = &img.px[(std::size_t(c.y + y0) * img.w + c.x) * 3];
    const unsigned char* r1 = &img.px[(std::size_t(c.y + y1) * img.w + c.x) * 3];
    for (int ox = 0; ox < out_w; ++ox) {
      const float fx = std::clamp((ox + 0.5f) * sx - 0.5f, 0.f, float(c.w - 1));
      const int x0 = int(fx), x1 = std::min(x0 + 1, c.w - 1);
      const float wx = fx - x0;
      float* dst = &out[(std::size_t(oy) * out_w + (c.flip ? out_w - 1 - ox : ox)) * 3];
      for (int ch = 0; ch < 3; ++ch) {
        const float top = r0[x0 * 3 + ch] + wx * (r0[x1 * 3 + ch] - r0[x0 * 3 + ch]);
        const float bottom = r1[x0 * 3 + ch] + wx * (r1[x1 * 3 + ch] - r1[x0 * 3 + ch]);
        dst[ch] = ((top + wy * (bottom - top)) / 255.f - mean[ch]) * inv_std[ch];
      }
    }
  }
}

// One pass over every image; returns CPU seconds. `full`: crop, resize and normalise too.
double timed_pass(const TjHandle& tj, const std::vector<JpegImage>& images, int out_h, int out_w, bool full,
                  std::vector<float>& sample) {
  std::mt19937_64 rng(20171);
  const double t0 = thread_cpu_s();
  for (const auto& img : images) {
    const Rgb rgb = decode(tj, img);
    if (full) resize_normalise(rgb, random_crop(rgb.w, rgb.h, rng), out_h, out_w, sample);
  }
  return thread_cpu_s() - t0;
}

}  // namespace

std::vector<JpegImage> synthetic_jpegs(int count, int width, int height, int quality) {
  const TjHandle tj(tjInitCompress());
  std::mt19937 rng(7);
  std::vector<unsigned char> px(std::size_t(width) * height * 3);
  std::vector<JpegImage> out;
  for (int n = 0; n < count; ++n) {
    std::uniform_real_distribution<double> phase(0, 6.283), freq(0.005, 0.05);
    const double p[3] = {phase(rng), phase(rng), phase(rng)}, f = freq(rng), g = freq(rng);
    std::normal_distribution<double> noise(0, 18);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        for (int c = 0; c < 3; ++c) {
          const double edge = ((x / 37 + y / 23 + c) % 5 == 0) ? 40 : 0;
          const double v = 128 + 70 * std::sin(f * x + p[c]) * std::cos(g * y - p[c]) + edge + noise(rng);
          px[(std::size_t(y) * width + x) * 3 + c] = static_cast<unsigned char>(std::clamp(v, 0.0, 255.0));
        }
    unsigned char* jpeg = nullptr;
    unsigned long size = 0;
    if (tjCompress2(tj.get(), px.data(), width, 0, height, TJPF_RGB, &jpeg, &size, TJSAMP_420, quality, 0) != 0)
      throw std::runtime_error(std::string("libjpeg-turbo: cannot encode a test image: ") + tjGetErrorStr2(tj.get()));
    out.push_back({"synthetic " + std::to_string(n + 1), std::vector<unsigned char>(jpeg, jpeg + size)});
    tjFree(jpeg);
  }
  return out;
}

InputBenchResult time_input_pipeline(const std::vector<JpegImage>& images, int out_h, int out_w, double min_time_s) {
  if (images.empty()) throw InputError("no images to time");
  const TjHandle tj(tjInitDecompress());
  InputBenchResult r;
  r.images = int(images.size());
  for (const auto& img : images) {
    const Rgb rgb = decode(tj, img);  // also the warm-up, and the check that every image decodes
    r.mean_bytes += double(img.bytes.size()) / r.images;
    r.mean_pixels += double(rgb.w) * rgb.h / r.images;
  }
  std::vector<float> sample;
  double best_decode = 1e300, best_sample = 1e300, spent = 0;
  while (r.rounds < 3 || spent < min_time_s) {
    const double d = timed_pass(tj, images, out_h, out_w, false, sample);
    const double s = timed_pass(tj, images, out_h, out_w, true, sample);
    best_decode = std::min(best_decode, d), best_sample = std::min(best_sample, s);
    spent += d + s;
    ++r.rounds;
  }
  r.decode_s = best_decode / r.images;
  r.sample_s = best_sample / r.images;
  return r;
}

}  // namespace input_bench_layer
}  // namespace ddlsim
