#include "compare/coverage.hpp"

#include <algorithm>
#include <cmath>

#include "predict/prediction.hpp"

namespace ddlsim {
inline namespace compare_layer {

namespace {

Band band_of(const Uncertainty& u, Metric m) {
  switch (m) {
    case Metric::EpochTime: return u.epoch_time_s;
    case Metric::StepTime: return u.step_time_s;
    case Metric::SamplesPerSecond: return u.samples_per_s;
  }
  return {};
}

}  // namespace

double Coverage::share() const { return n > 0 ? double(inside) / n : NAN; }

double Coverage::median_half_width() const {
  if (half_widths.empty()) return NAN;
  std::vector<double> w = half_widths;
  std::sort(w.begin(), w.end());
  const std::size_t m = w.size() / 2;
  return w.size() % 2 ? w[m] : (w[m - 1] + w[m]) / 2;
}

Coverage interval_coverage(const Comparison& cmp, const std::vector<Scenario>& scs, bool multi_gpu_only) {
  return interval_coverage(cmp, scs, [&](const ComparedConfig& r) { return !multi_gpu_only || r.prediction.ranks > 1; });
}

Coverage interval_coverage(const Comparison& cmp, const std::vector<Scenario>& scs,
                           const std::function<bool(const ComparedConfig&)>& counts) {
  Coverage c;
  for (std::size_t i = 0; i < cmp.rows.size() && i < scs.size(); ++i) {
    const Prediction& p = cmp.rows[i].prediction;
    if (!counts(cmp.rows[i])) continue;
    const Band b = band_of(prediction_uncertainty(scs[i], p), cmp.metric);
    const double measured = cmp.rows[i].measured.mean;
    ++c.n;
    if (measured >= b.p10 && measured <= b.p90) ++c.inside;
    c.half_widths.push_back((b.p90 - b.p10) / 2 / metric_of(p, cmp.metric));
  }
  return c;
}

void Coverage::add(const Coverage& b) {
  n += b.n;
  inside += b.inside;
  half_widths.insert(half_widths.end(), b.half_widths.begin(), b.half_widths.end());
}

}  // namespace compare_layer
}  // namespace ddlsim
