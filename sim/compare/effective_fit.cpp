#include "compare/effective_fit.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "compare/least_squares.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {
inline namespace compare_layer {

namespace {

// A parameter that sets `key`, searched within the key's declared bounds (scenario/keys.cpp), so
// that the overlay it writes is one the scenario reader takes back.
SharedParameter declared(const std::string& name, const std::string& key, std::function<double(const Scenario&)> get,
                         std::function<void(System&, double)> set) {
  const KeySpec& k = key_spec(key);
  return {name, key, std::move(get), std::move(set), k.min, k.max, ""};
}

}  // namespace

SharedParameter shared_parameter(const std::string& name, const std::vector<Scenario>& scs) {
  if (name == "inter_bw")
    return declared(name, "cluster.inter_bw_GBps", [](const Scenario& s) { return s.system.cluster.inter.bw_Bps / kGB; },
                    [](System& s, double v) { s.cluster.inter.bw_Bps = v * kGB; });
  if (name == "inter_latency")
    return declared(name, "cluster.inter_latency_us",
                    [](const Scenario& s) { return s.system.cluster.inter.latency_s * 1e6; },
                    [](System& s, double v) { s.cluster.inter.latency_s = v * 1e-6; });
  if (name == "intra_bw")
    return declared(name, "cluster.intra_bw_GBps", [](const Scenario& s) { return s.system.cluster.intra.bw_Bps / kGB; },
                    [](System& s, double v) { s.cluster.intra.bw_Bps = v * kGB; });
  if (name == "intra_latency")
    return declared(name, "cluster.intra_latency_us",
                    [](const Scenario& s) { return s.system.cluster.intra.latency_s * 1e6; },
                    [](System& s, double v) { s.cluster.intra.latency_s = v * 1e-6; });
  if (name == "net_rendezvous")  // with its threshold: collective_fit.cpp fit_collectives
    return declared(name, "cluster.net_rendezvous_us",
                    [](const Scenario& s) { return s.system.cluster.net_rendezvous_s * 1e6; },
                    [](System& s, double v) { s.cluster.net_rendezvous_s = v * 1e-6; });
  if (name == "tcp_thread")
    return declared(name, "cluster.tcp_thread_GBps", [](const Scenario& s) { return s.system.cluster.tcp_thread_Bps / kGB; },
                    [](System& s, double v) { s.cluster.tcp_thread_Bps = v * kGB; });
  if (name != "compute")
    throw InputError("--params: unknown parameter '" + clip(name) + "'; expected inter_bw, inter_latency, intra_bw, "
                     "intra_latency, tcp_thread, net_rendezvous or compute");
  const bool measured = scs.front().system.compute.measured_samples_per_s > 0;
  if (!measured)
    return declared(name, "compute.efficiency", [](const Scenario& s) { return s.system.compute.max_efficiency; },
                    [](System& s, double v) { s.compute.max_efficiency = v; });
  for (const auto& s : scs)
    if (s.system.compute.measured_samples_per_s != scs.front().system.compute.measured_samples_per_s)
      throw InputError("--params compute: compute.throughput differs between configurations; a shared value "
                       "cannot be fitted (leave compute out, or drop the column)");
  return declared(name, "compute.throughput", [](const Scenario& s) { return s.system.compute.measured_samples_per_s; },
                  [](System& s, double v) { s.compute.measured_samples_per_s = v; });
}

namespace {

using Values = std::vector<double>;

void set_values(System& sys, const std::vector<SharedParameter>& params, const Values& values) {
  for (std::size_t k = 0; k < params.size(); ++k) params[k].set(sys, values[k]);
}

Scenario with_values(const Scenario& base, const std::vector<SharedParameter>& params, const Values& values) {
  Scenario s = base;
  set_values(s.system, params, values);
  return s;
}

// Values far from the start may give no prediction at all (a time that overflows); while searching,
// such a point is scored as off by a factor of 10^3, so the search moves away from it.
constexpr double kNoPredictionError = 1e3;

// What a fit evaluates thousands of times. `work` holds a copy of each base made once; an
// evaluation resets only its system from the base (the parameters' setters write nothing else),
// so a model's layers are not copied again for every point of the search.
struct Problem {
  const FitTarget& target;
  const std::vector<Scenario>& bases;
  const std::vector<SharedParameter>& params;
  std::vector<Scenario>& work;

  const Scenario& at(std::size_t i, const Values& values) const {
    Scenario& s = work[i];
    s.system = bases[i].system;
    set_values(s.system, params, values);
    return s;
  }

  // The relative error of each configuration with the parameters at `values`; `searching`: a
  // point with no prediction scores kNoPredictionError instead of throwing.
  std::vector<double> errors_at(const Values& values, bool searching) const {
    std::vector<double> errs;
    errs.reserve(bases.size());
    for (std::size_t i = 0; i < bases.size(); ++i) {
      try {
        errs.push_back(relative_error(target.predicted(i, at(i, values)), target.measured[i]));
      } catch (const InputError&) {
        if (!searching) throw;
        errs.push_back(kNoPredictionError);
      }
    }
    return errs;
  }

  // Sum of squared relative errors over the training rows with parameter k at `v`, the others at `values`.
  double objective_at(const Values& values, std::size_t k, double v) const {
    Values vs = values;
    vs[k] = v;
    double sum = 0;
    for (double e : errors_at(vs, true)) sum += e * e;
    return sum;
  }
};

// The search window in log10(v): 4 decades either side of the starting value, within the bounds.
std::pair<double, double> window(const SharedParameter& p, double start) {
  const double centre = std::log10(start > 0 ? start : 1e-3);
  double a = centre - 4, b = centre + 4;
  if (p.lo > 0) a = std::max(a, std::log10(p.lo));
  if (std::isfinite(p.hi)) b = std::min(b, std::log10(p.hi));
  return {a, b};
}

// Minimises parameter k over log10(v) in the window around `start`, the others held at `values`:
// scan, then golden section around the best scan point.
double search(const Problem& pr, const Values& values, std::size_t k, double start, bool& flat) {
  const auto f = [&](double x) { return pr.objective_at(values, k, std::pow(10.0, x)); };
  const auto [a, b] = window(pr.params[k], start);
  const int n = 49;
  std::vector<double> xs(n), fs(n);
  for (int i = 0; i < n; ++i) {
    xs[i] = a + (b - a) * i / (n - 1);
    fs[i] = f(xs[i]);
  }
  const auto [mn, mx] = std::minmax_element(fs.begin(), fs.end());
  flat = *mx - *mn <= 1e-12 * std::max(1.0, *mx);
  if (flat) return start;
  const int best = int(mn - fs.begin());
  double lo = xs[std::max(0, best - 1)], hi = xs[std::min(n - 1, best + 1)];
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = f(x1), f2 = f(x2);
  while (hi - lo > 1e-9) {
    if (f1 <= f2) {
      hi = x2, x2 = x1, f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = f(x1);
    } else {
      lo = x1, x1 = x2, f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = f(x2);
    }
  }
  const double x = (lo + hi) / 2;
  return f(x) <= *mn ? std::pow(10.0, x) : std::pow(10.0, xs[best]);
}

// The relative errors of every training row with the identifiable parameters `idx` at 10^x.
std::vector<double> residuals_at(const Problem& pr, Values values, const std::vector<std::size_t>& idx,
                                 const std::vector<double>& x) {
  for (std::size_t j = 0; j < idx.size(); ++j) values[idx[j]] = std::pow(10.0, x[j]);
  return pr.errors_at(values, true);
}

double sum_sq(const std::vector<double>& r) {
  double s = 0;
  for (double v : r) s += v * v;
  return s;
}

// Joint refinement of the identifiable parameters with GSL, their intervals and correlations.
void refine_jointly(const Problem& pr, Values& values, const Values& starts, const std::vector<bool>& held,
                    FittedParameters& fit) {
  std::vector<std::size_t> idx;
  std::vector<double> x0;
  for (std::size_t k = 0; k < values.size(); ++k)
    if (fit.params[k].identifiable && !held[k]) {
      idx.push_back(k);
      x0.push_back(std::log10(values[k]));
    }
  const std::size_t p = values.size();
  fit.correlation.assign(p, std::vector<double>(p, NAN));
  if (idx.empty()) return;
  const auto f = [&](const std::vector<double>& x) { return residuals_at(pr, values, idx, x); };
  const LeastSquares ls = least_squares(f, x0, pr.bases.size());
  fit.dof = int(pr.bases.size()) - int(idx.size());
  // Keep the joint solution only where it is no worse and inside every search window.
  bool inside = true;
  for (std::size_t j = 0; j < idx.size(); ++j) {
    const auto [a, b] = window(pr.params[idx[j]], starts[idx[j]]);
    inside = inside && ls.x[j] >= a - 1e-9 && ls.x[j] <= b + 1e-9;
  }
  if (inside && ls.sum_sq <= sum_sq(f(x0)))
    for (std::size_t j = 0; j < idx.size(); ++j) values[idx[j]] = std::pow(10.0, ls.x[j]);
  if (ls.covar.empty()) return;
  const double t = t_quantile_95(ls.dof);
  for (std::size_t a = 0; a < idx.size(); ++a) {
    FitParameter& fp = fit.params[idx[a]];
    // GSL zeroes the covariance of a direction the data do not determine: no interval then.
    const double se = std::sqrt(std::max(0.0, ls.covar[a][a]));
    if (!std::isfinite(se) || se <= 0) continue;
    const double x = std::log10(values[idx[a]]);
    fp.se_log10 = se;
    fp.ci_lo = std::pow(10.0, x - t * se);
    fp.ci_hi = std::pow(10.0, x + t * se);
    // An interval past what a double holds: the data leave the value free (it trades off
    // against another parameter; the correlations say which).
    fp.has_interval = fp.ci_lo > 0 && std::isfinite(fp.ci_hi);
    for (std::size_t b = 0; b < idx.size(); ++b) {
      const double d = std::sqrt(ls.covar[a][a] * ls.covar[b][b]);
      fit.correlation[idx[a]][idx[b]] = d > 0 ? ls.covar[a][b] / d : NAN;
    }
  }
}

}  // namespace

FitTarget step_target(const MeasuredSet& set) {
  FitTarget t;
  for (const auto& c : set.configs) t.measured.push_back(c.mean);
  const Metric m = set.metric;
  t.predicted = [m](std::size_t, const Scenario& s) { return metric_of(predict(s), m); };
  return t;
}

FittedParameters fit_parameters(const MeasuredSet& train, const std::vector<Scenario>& bases,
                                const std::vector<SharedParameter>& params) {
  return fit_parameters(step_target(train), bases, params);
}

namespace {

// One fit from the starting values, the `held` parameters kept at theirs.
FittedParameters fit_once(const Problem& pr, const Values& starts, const std::vector<bool>& held) {
  FittedParameters fit;
  for (std::size_t k = 0; k < pr.params.size(); ++k) {
    FitParameter f;
    f.name = pr.params[k].name;
    f.key = pr.params[k].key;
    f.before = f.after = starts[k];
    fit.params.push_back(f);
  }
  Values values = starts;
  fit.before = error_stats(pr.errors_at(values, false));
  // Coordinate descent; every round searches the same window around each starting value, so a
  // parameter the data push to an extreme stops at the window's edge instead of drifting away.
  for (int round = 0; round < 8; ++round) {
    double moved = 0;
    for (std::size_t k = 0; k < pr.params.size(); ++k) {
      if (held[k]) continue;
      bool flat = false;
      const double found = search(pr, values, k, starts[k], flat);
      const double v = flat ? values[k] : found;  // no effect on any prediction: kept as it was
      if (round == 0) fit.params[k].identifiable = !flat;
      moved = std::max(moved, std::fabs(v - values[k]) / std::max(std::fabs(values[k]), 1e-300));
      values[k] = v;
    }
    if (moved < 1e-7) break;
  }
  refine_jointly(pr, values, starts, held, fit);
  for (std::size_t k = 0; k < pr.params.size(); ++k) {
    fit.params[k].after = values[k];
    const auto [a, b] = window(pr.params[k], starts[k]);
    const double x = std::log10(values[k]);
    if (!fit.params[k].identifiable)
      fit.params[k].note = "no effect on the measured configurations; kept as it was";
    else if (held[k])
      fit.params[k].note = kUndeterminedNote;
    else if (std::fabs(x - a) < 1e-6 || std::fabs(x - b) < 1e-6) {
      fit.params[k].note = "at the edge of its search range (within 4 decades of its start and its bounds)";
      fit.params[k].has_interval = false;  // the optimum is not inside: an interval would mislead
    }
  }
  fit.after = error_stats(pr.errors_at(values, false));
  return fit;
}

// How much the runs see parameter k: the RMS change of their relative errors when its fitted value
// doubles, the others at theirs.
double sensitivity(const Problem& pr, const FittedParameters& fit, std::size_t k) {
  Values values;
  for (const auto& p : fit.params) values.push_back(p.after);
  const std::vector<double> at = pr.errors_at(values, true);
  values[k] *= 2;
  const std::vector<double> doubled = pr.errors_at(values, true);
  double sum = 0;
  for (std::size_t i = 0; i < at.size(); ++i) sum += (doubled[i] - at[i]) * (doubled[i] - at[i]);
  return std::sqrt(sum / double(at.size()));
}

// Among the free parameters the runs do not determine (no interval, or one wider than a factor
// kDeterminedRatio; not those at the edge of their range, which the report flags), the one they see
// least; -1 when there is none.
int least_determined(const Problem& pr, const FittedParameters& fit, const std::vector<bool>& held) {
  int worst = -1;
  double least = INFINITY;
  for (std::size_t k = 0; k < fit.params.size(); ++k) {
    const FitParameter& p = fit.params[k];
    if (held[k] || !p.identifiable || !p.note.empty()) continue;
    if (p.has_interval && p.ci_hi / p.ci_lo <= kDeterminedRatio) continue;
    const double seen = sensitivity(pr, fit, k);
    if (seen < least) worst = int(k), least = seen;
  }
  return worst;
}

}  // namespace

FittedParameters fit_parameters(const FitTarget& target, const std::vector<Scenario>& bases,
                                const std::vector<SharedParameter>& params) {
  if (bases.empty()) throw InputError("fit: no configurations to fit");
  if (target.measured.size() != bases.size()) throw std::logic_error("fit_parameters: one measured value a base");
  std::vector<Scenario> work = bases;
  const Problem pr{target, bases, params, work};
  Values starts;
  for (const auto& p : params) starts.push_back(p.get(bases.front()));
  std::vector<bool> held(params.size(), false);
  for (std::size_t k = 0; k < params.size(); ++k) held[k] = !params[k].held_because.empty();
  FittedParameters fit = fit_once(pr, starts, held);
  // A value the runs do not determine would carry their noise, or another part's error, into every
  // prediction it then makes: keep it as it was and fit the others again.
  for (int k; target.keep_undetermined && (k = least_determined(pr, fit, held)) >= 0;) {
    held[std::size_t(k)] = true;
    fit = fit_once(pr, starts, held);
  }
  for (std::size_t k = 0; k < params.size(); ++k)
    if (!params[k].held_because.empty()) fit.params[k].note = params[k].held_because;
  return fit;
}

std::vector<Scenario> apply_parameters(const std::vector<Scenario>& bases, const std::vector<SharedParameter>& params,
                                       const FittedParameters& fitted) {
  Values values;
  for (const auto& p : fitted.params) values.push_back(p.after);
  std::vector<Scenario> out;
  out.reserve(bases.size());
  for (const auto& b : bases) out.push_back(with_values(b, params, values));
  return out;
}

namespace {

// One hop over Ethernet lasts at least one frame's time on the wire: the smallest frame (64 bytes)
// with its preamble (8) and the inter-frame gap (12), IEEE 802.3 clause 4.4.2, at the line rate.
constexpr Bytes kMinEthernetWireBytes = 64 + 8 + 12;

// A latency below one smallest Ethernet frame's time on the wire cannot be the link's.
std::string latency_floor_warning(const FitParameter& p, const Scenario& s) {
  if (p.name != "inter_latency") return "";
  const LinkKind& link = s.system.cluster.inter;
  const double line_Bps = line_rate_Bps(link.name);
  if (link.name.find("gbe") == std::string::npos || line_Bps <= 0) return "";
  const double floor_us = kMinEthernetWireBytes / line_Bps * 1e6;
  if (p.after >= floor_us) return "";
  return fmt::format("{:.4g} us is below one smallest {} frame's time on the wire ({:.3g} us): no hop is that short; "
                     "the runs want something else from the model",
                     p.after, link.name, floor_us);
}

// A bandwidth above its link's line rate cannot be a property of the link.
std::string physical_range_warning(const FitParameter& p, const Scenario& s) {
  if (p.name == "inter_latency") return latency_floor_warning(p, s);
  const bool inter = p.name == "inter_bw", intra = p.name == "intra_bw";
  if (!inter && !intra) return "";
  const LinkKind& link = inter ? s.system.cluster.inter : s.system.cluster.intra;
  const double line_GBps = line_rate_Bps(link.name) / kGB;
  if (line_GBps <= 0 || p.after <= line_GBps) return "";
  return fmt::format("{:.4g} GB/s is above the {} line rate ({:.4g} GB/s): no link gives that; the runs want "
                     "something else from the model (compute, overlap, another mechanism)",
                     p.after, link.name, line_GBps);
}

}  // namespace

EffectiveFit effective_of(const FittedParameters& fitted, const Scenario& any) {
  EffectiveFit eff;
  eff.params = fitted.params;
  eff.correlation = fitted.correlation;
  eff.dof = fitted.dof;
  for (auto& p : eff.params) p.warning = physical_range_warning(p, any);
  eff.before = fitted.before;
  eff.after = fitted.after;
  return eff;
}

EffectiveFit fit_effective(const MeasuredSet& set, const std::vector<Scenario>& scenarios,
                           const std::vector<std::string>& names) {
  if (scenarios.empty()) throw InputError("fit: no configurations to fit");
  std::vector<SharedParameter> access;
  for (const auto& n : names) {
    access.push_back(shared_parameter(n, scenarios));
    for (const auto& k : set.keys)
      if (k == access.back().key)
        throw InputError(set.file + ": column for " + k + " sets it per row; --params " + n +
                         " needs one shared value (drop the column or the parameter)");
  }
  const FittedParameters fitted = fit_parameters(set, scenarios, access);
  EffectiveFit eff = effective_of(fitted, scenarios.front());
  for (const auto& s : apply_parameters(scenarios, access, fitted)) eff.predictions.push_back(predict(s));
  return eff;
}

std::string overlay_text(const EffectiveFit& fit, const std::string& measured_file, const std::string& scenario_file) {
  std::string out = fmt::format("# ddlsim fit: effective parameters fitted to {} over {}\n", measured_file, scenario_file);
  out += fmt::format("# MAPE before {:.2f} %, after {:.2f} % ({} configurations)\n", 100 * fit.before.mape,
                     100 * fit.after.mape, fit.after.n);
  std::map<std::string, std::vector<std::string>> sections;
  for (const auto& p : fit.params) {
    if (!p.identifiable) continue;
    const auto dot = p.key.find('.');
    sections[p.key.substr(0, dot)].push_back(
        fmt::format("{} = {:.10g}   # was {:.10g}", p.key.substr(dot + 1), p.after, p.before));
  }
  for (const auto& [section, lines] : sections) {
    out += "\n[" + section + "]\n";
    for (const auto& l : lines) out += l + "\n";
  }
  return out;
}

}  // namespace compare_layer
}  // namespace ddlsim
