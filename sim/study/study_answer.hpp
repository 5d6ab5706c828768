// What a study's sweep answers, stated first on its page: per panel (one combination of the
// layout's facets, study_figures.hpp ReportLayout) its fastest and slowest configuration by epoch time,
// and each other swept factor's effect: the epoch time of each of its values against the best
// value's, over the configurations that differ only in that factor (same other factors, same
// ranks), on more than one rank where the sweep has such rows (the scaling question). Measured runs
// matched to the sweep are scored per panel beside linear scaling from each line's smallest
// measured rank count.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "study/measured_match.hpp"
#include "study/study_figures.hpp"
#include "study/sweep_results.hpp"

namespace ddlsim {
inline namespace study_layer {

struct FactorEffect {
  std::string key;           // a swept scenario key
  std::string best, other;   // two of its values: the fastest overall, and another
  double mean_ratio = 1;     // other's epoch time / best's: geometric mean over the pairs
  double min_ratio = 1, max_ratio = 1;
  int pairs = 0;             // configurations that differ only in this key
};

struct PanelAnswer {
  std::string panel;                // "model=resnet50"; "" when the sweep has one panel
  std::size_t fastest = 0, slowest = 0;  // sweep rows, by epoch time (every rank count)
  double min_ranks = 0, max_ranks = 0;   // the ranks the effects were measured over
  std::vector<FactorEffect> effects;     // per swept key and value other than its best
};

std::vector<PanelAnswer> study_answer(const SweepResults& sweep, const ReportLayout& layout);

// The measured runs matched to the sweep, per panel: ddlsim's MAPE and bias (predicted - measured)
// / measured, and linear scaling's from the smallest rank count measured on the same line (epoch
// and step time in proportion to ranks, throughput against them), where there is one.
struct MeasuredScore {
  std::string panel;
  int n = 0;
  double mape = 0, bias = 0;
  int linear_n = 0;
  double linear_mape = 0, linear_bias = 0;
};
std::vector<MeasuredScore> measured_scores(const SweepResults& sweep, const MeasuredMatch& measured,
                                           const ReportLayout& layout);

}  // namespace study_layer
}  // namespace ddlsim
