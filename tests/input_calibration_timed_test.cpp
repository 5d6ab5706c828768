// The input calibration measures real work: four times the pixels cost clearly more to decode.
#include <gtest/gtest.h>

#include "calibration/input_bench.hpp"

using namespace ddlsim;

TEST(InputBenchTimed, DecodeTimeGrowsWithPixels) {
  // Each size's fastest of three short runs, the sizes taken in turn: what other work on a shared
  // machine takes from a run only ever adds to its time.
  const auto small_jpegs = synthetic_jpegs(8, 320, 240, 90), large_jpegs = synthetic_jpegs(8, 1280, 960, 90);
  InputBenchResult small, large;
  for (int k = 0; k < 3; ++k) {
    const InputBenchResult s = time_input_pipeline(small_jpegs, 224, 224, 0.1);
    const InputBenchResult l = time_input_pipeline(large_jpegs, 224, 224, 0.1);
    if (k == 0 || s.decode_s < small.decode_s) small = s;
    if (k == 0 || l.decode_s < large.decode_s) large = l;
  }
  EXPECT_DOUBLE_EQ(large.mean_pixels, 16 * small.mean_pixels);
  EXPECT_GT(large.decode_s, 4 * small.decode_s);  // 16x the pixels; decode is linear in them
  EXPECT_GE(large.sample_s, large.decode_s);
}
