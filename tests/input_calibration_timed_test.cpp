// The input calibration measures real work: four times the pixels cost clearly more to decode.
#include <gtest/gtest.h>

#include "calibration/input_bench.hpp"

using namespace ddlsim;

TEST(InputBenchTimed, DecodeTimeGrowsWithPixels) {
  const InputBenchResult small = time_input_pipeline(synthetic_jpegs(8, 320, 240, 90), 224, 224, 0.3);
  const InputBenchResult large = time_input_pipeline(synthetic_jpegs(8, 1280, 960, 90), 224, 224, 0.3);
  EXPECT_DOUBLE_EQ(large.mean_pixels, 16 * small.mean_pixels);
  EXPECT_GT(large.decode_s, 4 * small.decode_s);  // 16x the pixels; decode is linear in them
  EXPECT_GE(large.sample_s, large.decode_s);
}
