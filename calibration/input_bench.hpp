// Input-pipeline calibration: the CPU time one data-loader worker spends turning one stored JPEG
// into a training sample, as frameworks' loaders do (torchvision's RandomResizedCrop pipeline, TF's
// ImageNet preprocessing): decode the whole image (libjpeg-turbo), take a random crop of 8-100 % of
// its area with aspect 3/4 to 4/3, resize it bilinearly to the model's input, flip it at random,
// normalise to float. The time per image is the scenario's input.decode_ms.
#pragma once
#include <string>
#include <vector>

namespace ddlsim {
inline namespace input_bench_layer {

struct JpegImage {
  std::string origin;  // file, or "synthetic N"
  std::vector<unsigned char> bytes;
};

// Photograph-like test images (smooth gradients, edges and fine noise, so that they compress
// like photographs rather than flat colour), `width` x `height`, JPEG quality `quality`.
std::vector<JpegImage> synthetic_jpegs(int count, int width, int height, int quality);

struct InputBenchResult {
  int images = 0;
  double mean_bytes = 0;   // stored size
  double mean_pixels = 0;  // decoded width x height
  double decode_s = 0;     // per image: decode only
  double sample_s = 0;     // per image: decode, crop, resize, flip, normalise
  int rounds = 0;
};

// Decodes every image once (an undecodable one is an InputError naming it), then times the
// pipeline over all of them with the thread's CPU clock, in rounds until `min_time_s` has passed
// (at least 3); the fastest round counts. Crops and flips follow a fixed seed: same work each round.
InputBenchResult time_input_pipeline(const std::vector<JpegImage>& images, int out_h, int out_w, double min_time_s);

}  // namespace input_bench_layer
}  // namespace ddlsim
