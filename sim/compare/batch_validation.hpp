// `ddlsim validate --set batch`: one GPU's training throughput published at several per-GPU
// batches (scenarios/validation/batch/: runs.csv in compare's format with the columns group, role
// and source, one scenario file per group). A series is the rows of one group that differ only in
// training.batch_per_gpu. Each series is calibrated at its largest batch (compute.throughput and
// compute.throughput_batch from that row) and its smaller batches predicted, scored per factor of
// batch change (x2, x4, x8, x16 and more) beside the roofline alone (a priori) and the naive
// baseline "the throughput a GPU measured at the calibrated batch", and how often the calibrated
// prediction's 80 % interval holds the measurement. Development rows and held-out ones (role
// held_out: set aside before their numbers were looked at) are pooled apart, and within each by the
// model's family (transformers: models with attention; convolutional: with convolutions, no attention).
#pragma once
#include <string>
#include <vector>

#include "compare/comparison.hpp"
#include "compare/coverage.hpp"
#include "report/report.hpp"

namespace ddlsim {
inline namespace compare_layer {

struct BatchPoint {
  int batch = 0;
  double measured = 0;      // samples/s of the one GPU
  double a_priori = 0;      // the roofline alone
  double calibrated = 0;    // calibrated at the series' largest batch
  std::string band;         // "x2", "x4", ...; "" for the calibration row itself
};

struct BatchSeries {
  std::string group, role, source, label;  // label: the series' keys but the batch
  std::string family;                      // model_family of the series' model
  int calibrated_batch = 0;
  std::vector<BatchPoint> points;          // by falling batch; the first is the calibration row
  Coverage coverage;  // the calibrated predictions' 80 % intervals (predict/uncertainty.hpp) over the
                      // smaller batches
};

struct BatchBand {
  std::string band;
  ErrorStats a_priori, calibrated, baseline;
};

// One model family's pooled bands.
struct FamilyBands {
  std::string family;
  std::vector<BatchBand> bands;
};

struct BatchValidation {
  std::vector<BatchSeries> series;
  std::vector<BatchBand> dev, held_out;
  std::vector<FamilyBands> dev_families, held_out_families;  // the families the role has, in model_family order
  Coverage dev_coverage, held_out_coverage;
};

// The factor band of a change of batch from `calibrated` down to `batch`: x2, x4, x8 or x16+
// (the nearest power of two of the ratio).
std::string batch_band(int calibrated, int batch);

// "transformer" where a layer is attention, else "convolutional" where one is a convolution (plain
// or depthwise), else "other".
std::string model_family(const Model& m);

// `overrides` (--section.key=value) apply to every group's scenario. Throws InputError naming the
// file and line for a missing column, an unknown role, a row of several GPUs or a group with no scenario.
BatchValidation run_batch_validation(const std::string& folder, const std::vector<std::string>& overrides);
// Markdown tables (table format, docs/validation-batch.md) or JSON.
std::string render_batch_validation(const BatchValidation& v, Format f);

}  // namespace compare_layer
}  // namespace ddlsim
