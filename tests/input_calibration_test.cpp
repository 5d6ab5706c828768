// `ddlsim calibrate-input` (calibration/input_bench.*): synthetic JPEGs decode to their size, the
// overlay it writes is a scenario overlay whose decode time reaches the input model exactly, and
// bad folders, images and options stop with exit code 2 and nothing written.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "calibration/input_bench.hpp"
#include "core/error.hpp"
#include "test_util.hpp"

using namespace ddlsim;
using testutil::run_ddlsim;
using testutil::TempFile;

namespace {

void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// The value of `key = V` in an overlay.
double overlay_value(const std::string& text, const std::string& key) {
  const auto at = text.find("\n" + key + " = ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + key.size() + 4));
}

}  // namespace

TEST(InputBench, SyntheticImagesDecodeToTheirSize) {
  const auto images = synthetic_jpegs(3, 120, 80, 90);
  ASSERT_EQ(images.size(), 3u);
  const InputBenchResult r = time_input_pipeline(images, 32, 32, 0.01);
  EXPECT_EQ(r.images, 3);
  EXPECT_DOUBLE_EQ(r.mean_pixels, 120.0 * 80);
  EXPECT_GT(r.mean_bytes, 1000);  // photograph-like, not flat colour
  EXPECT_GE(r.rounds, 3);
  EXPECT_GT(r.decode_s, 0);
  EXPECT_GT(r.sample_s, 0);
}

TEST(InputBench, AnUndecodableImageIsNamed) {
  std::vector<JpegImage> images = synthetic_jpegs(1, 64, 64, 90);
  images.push_back({"broken.jpg", {0xFF, 0xD8, 'n', 'o'}});
  try {
    time_input_pipeline(images, 32, 32, 0.01);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("broken.jpg: not a JPEG image"), std::string::npos) << e.what();
  }
}

TEST(CalibrateInput, OverlayFeedsTheInputModel) {
  TempFile dir("a.jpg");
  const auto images = synthetic_jpegs(2, 160, 120, 90);
  write_bytes(dir.path(), images[0].bytes);
  write_bytes(dir.dir() + "/b.JPEG", images[1].bytes);
  std::ofstream(dir.dir() + "/notes.txt") << "not an image\n";
  const std::string overlay = dir.dir() + "/input.ini";
  const auto r = run_ddlsim("calibrate-input --images " + dir.dir() + " --min-time 0.02 --out " + overlay);
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string text = testutil::slurp(overlay);
  EXPECT_NE(text.find("# 2 images from " + dir.dir()), std::string::npos) << text;
  const double decode_ms = overlay_value(text, "decode_ms");
  ASSERT_GT(decode_ms, 0) << text;
  const double kb = (images[0].bytes.size() + images[1].bytes.size()) / 2.0 / 1024;
  EXPECT_NEAR(overlay_value(text, "sample_kb"), kb, kb * 1e-3) << text;

  // In memory, reading is free: a micro-batch's input time is batch x decode / workers.
  const auto sim = run_ddlsim("simulate --overlay " + overlay +
                              " --input.storage=memory --input.format=records --training.batch_per_gpu=64 "
                              "--input.loader_workers=4 --format json");
  ASSERT_EQ(sim.code, 0) << sim.out;
  const auto j = nlohmann::json::parse(sim.out);
  EXPECT_NEAR(j["input_time_s"].get<double>(), 64 * decode_ms * 1e-3 / 4, 1e-12);
}

TEST(CalibrateInput, SyntheticImagesWithoutAFolder) {
  const auto r = run_ddlsim("calibrate-input --synthetic-size 48x64 --max-images 2 --min-time 0.01");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("# 2 images from synthetic 48x64 JPEGs"), std::string::npos) << r.out;
  EXPECT_GT(overlay_value(r.out, "decode_ms"), 0) << r.out;
  EXPECT_EQ(r.out.find("sample_kb"), std::string::npos) << "synthetic images say nothing of the dataset's size";
}

TEST(CalibrateInput, BadInputIsExit2AndWritesNothing) {
  TempFile dir("broken.jpg", "this is not a JPEG\n");
  const std::string out = dir.dir() + "/o.ini";
  const struct { std::string args, want; } cases[] = {
      {"--images /nonexistent", "--images /nonexistent: not a folder"},
      {"--images " + dir.path(), "not a folder"},
      {"--images " + dir.dir(), dir.path() + ": not a JPEG image"},
      {"--min-time 0", "--min-time 0: expected seconds from 0.01 to 600"},
      {"--min-time nan", "--min-time"},
      {"--max-images 0", "--max-images 0"},
      {"--input-size 0", "--input-size '0'"},
      {"--input-size 224x", "--input-size '224x'"},
      {"--synthetic-size 8", "at least 16x16"},
      {"extra", "unexpected argument 'extra'"},
  };
  for (const auto& c : cases) {
    const std::string time = c.args.find("--min-time") == std::string::npos ? " --min-time 0.01" : "";
    const auto r = run_ddlsim("calibrate-input --out " + out + time + " " + c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.want), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_FALSE(testutil::exists(out)) << c.args;
  }
  TempFile empty("x");
  const auto r = run_ddlsim("calibrate-input --images " + empty.dir());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("no .jpg or .jpeg files"), std::string::npos) << r.out;
}
