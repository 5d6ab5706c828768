#include "plan/advise.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"
#include "predict/rests_on.hpp"

namespace ddlsim {
inline namespace plan_layer {

Objective parse_objective(const std::string& text) {
  return lookup<Objective>({{"epoch_time", Objective::EpochTime},
                            {"efficiency", Objective::Efficiency},
                            {"gpu_hours", Objective::GpuHours}},
                           text, "--objective");
}

Metric objective_metric(Objective o) {
  switch (o) {
    case Objective::EpochTime: return {"epoch_time_s", false};
    case Objective::Efficiency: return {"efficiency", true};
    case Objective::GpuHours: return {"gpu_hours", false};
  }
  return {"epoch_time_s", false};
}

Target parse_target(const std::string& text) {
  if (to_lower(trim(text)) == "fits") return {find_metric(kHeadroomMetric, "--target"), 0};
  const auto eq = text.find('=');
  if (eq == std::string::npos)
    throw InputError("--target = '" + clip(text) + "': expected METRIC=VALUE, e.g. efficiency=0.8");
  Target t;
  t.metric = find_metric(trim(text.substr(0, eq)), "--target");
  if (is_interval_metric(t.metric.name))
    throw InputError("--target = '" + clip(text) + "': " + t.metric.name + " is an end of the 80 % interval; target " +
                     "the figure itself, and the answer comes with the values each end needs");
  const auto v = parse_real(trim(text.substr(eq + 1)), -1e300, 1e300);
  if (!v) throw InputError("--target = '" + clip(text) + "': the value of " + t.metric.name + " is not a number");
  t.value = *v;
  return t;
}

std::pair<double, double> parse_range(const std::string& text, const std::string& origin) {
  const auto dots = text.find("..");
  const std::string expected = ": expected LO..HI, two numbers with LO < HI (e.g. 0.1..100)";
  if (dots == std::string::npos) throw InputError(origin + " = '" + clip(text) + "'" + expected);
  const auto lo = parse_real(trim(text.substr(0, dots)), -1e300, 1e300);
  const auto hi = parse_real(trim(text.substr(dots + 2)), -1e300, 1e300);
  if (!lo || !hi) throw InputError(origin + " = '" + clip(text) + "': not a number" + expected);
  if (!(*lo < *hi)) throw InputError(origin + " = '" + clip(text) + "': the range is empty" + expected);
  return {*lo, *hi};
}

namespace {

struct Probe {
  double x = 0;
  double m = 0;  // the target's metric
};

// Whether a is better than b for the metric.
bool better(const Metric& metric, double a, double b) { return metric.higher_is_better ? a > b : a < b; }

std::string value_text(const PlanKey& k, double x) {
  return k.kind == KeyKind::Integer ? std::to_string(std::llround(x)) : format_number(x);
}

// A value as shown to people: reals to 5 significant digits.
std::string shown_text(const PlanKey& k, double x) {
  return k.kind == KeyKind::Integer ? value_text(k, x) : fmt::format("{:.5g}", x);
}

// n points over [lo, hi]; integers rounded and distinct (all of them when they are few).
std::vector<double> sample(double lo, double hi, int n, bool log, bool integer) {
  std::vector<double> xs;
  if (integer && hi - lo + 1 <= n) {
    for (double x = lo; x <= hi; ++x) xs.push_back(x);
    return xs;
  }
  for (int i = 0; i < n; ++i) {
    const double f = double(i) / (n - 1);
    double x = log ? lo * std::pow(hi / lo, f) : lo + (hi - lo) * f;
    if (integer) x = std::round(x);
    if (xs.empty() || x != xs.back()) xs.push_back(x);
  }
  xs.back() = hi;
  return xs;
}

struct Search {
  const Evaluator& ev;
  const PlanKey& key;
  const Target& target;
  std::string first_error;
  std::size_t failed = 0;  // values that could not be predicted
  std::optional<bool> p90 = std::nullopt;  // the metric's 10th (false) or 90th percentile; none: the point

  std::optional<double> metric_at(double x) {
    const Outcome o = ev.try_at({{key.name, value_text(key, x)}}, p90.has_value());
    if (!o.prediction) {
      if (first_error.empty()) first_error = o.error;
      ++failed;
      return std::nullopt;
    }
    if (p90) return metric_percentile(*o.prediction, target.metric.name, *p90);
    return metric_value(*o.prediction, target.metric.name);
  }

  std::vector<Probe> scan(const std::vector<double>& xs) {
    failed = 0, first_error.clear();
    std::vector<Probe> out;
    for (double x : xs)
      if (const auto m = metric_at(x)) out.push_back({x, *m});
    if (out.size() < 2)
      throw InputError("--vary " + key.name + ": fewer than two values of the range could be predicted; first "
                       "failure: " + first_error);
    return out;
  }

  // Bisection between a value that misses the target and one that reaches it; returns the latter.
  double bisect(double miss, double reach, bool log) {
    for (int i = 0; i < 200; ++i) {
      if (key.kind == KeyKind::Integer ? std::fabs(reach - miss) <= 1
                                       : std::fabs(reach - miss) <= 1e-9 * std::max(std::fabs(reach), 1e-300))
        break;
      double mid = log && miss > 0 && reach > 0 ? std::sqrt(miss * reach) : (miss + reach) / 2;
      if (key.kind == KeyKind::Integer) mid = std::round(mid);
      if (mid == miss || mid == reach) break;
      const auto m = metric_at(mid);
      (m && target.reached_by(*m) ? reach : miss) = mid;
    }
    return reach;
  }
};

// The largest step against the overall trend, as a fraction of the metric's span (0: monotone).
double largest_reversal(const std::vector<Probe>& ps) {
  double lo = ps.front().m, hi = lo;
  for (const auto& p : ps) lo = std::min(lo, p.m), hi = std::max(hi, p.m);
  if (hi <= lo) return 0;
  const double trend = ps.back().m >= ps.front().m ? 1 : -1;
  double worst = 0;
  for (std::size_t i = 1; i < ps.size(); ++i) worst = std::max(worst, -trend * (ps[i].m - ps[i - 1].m));
  return worst / (hi - lo) > 1e-9 ? worst / (hi - lo) : 0;
}

// The boundary rounded to 5 significant digits away from the value that missed.
std::string rounded_answer(const PlanKey& k, double reach, double miss) {
  if (k.kind == KeyKind::Integer || reach == 0) return value_text(k, reach);
  const double scale = std::pow(10.0, std::floor(std::log10(std::fabs(reach))) - 4);
  const double q = reach > miss ? std::ceil(reach / scale) : std::floor(reach / scale);
  return fmt::format("{:.5g}", q * scale);
}

std::string range_text(const PlanKey& k, double lo, double hi, bool log, std::size_t points) {
  return fmt::format("{} .. {}{}{}, {} scale, {} points", value_text(k, lo), value_text(k, hi),
                     k.unit.empty() ? "" : " ", k.unit, log ? "log" : "linear", points);
}

std::pair<double, double> key_range(const Evaluator& ev, const PlanKey& k, const AdviseRequest& req) {
  if (req.range) {
    auto [lo, hi] = *req.range;
    if (k.kind == KeyKind::Integer) {
      lo = std::ceil(lo), hi = std::floor(hi);
      if (lo > hi) throw InputError("--range: no integer of " + k.name + " lies in it");
    }
    return {lo, hi};
  }
  if (k.name == "cluster.nodes") {
    const int max_nodes = ev.base_scenario().system.cluster.max_nodes;
    return {1, max_nodes > 1 ? max_nodes : 64};
  }
  return {k.lo, k.hi};
}

std::string relation(const Target& t) {
  return fmt::format("{} {} {}", t.metric.name, t.metric.higher_is_better ? ">=" : "<=", format_number(t.value));
}

// Samples the range (every integer when there are few, else 33 points; 257 when the result is not
// monotone over the first samples), noting what was found. Probes come back in increasing order.
std::vector<Probe> scan_range(Search& s, double lo, double hi, bool log, Advice& a) {
  const bool integer = a.key.kind == KeyKind::Integer;
  const bool every_integer = integer && hi - lo < 4096;  // few enough to predict them all
  std::vector<Probe> ps = s.scan(sample(lo, hi, every_integer ? int(hi - lo + 1) : 33, log, integer));
  a.method = every_integer ? "every integer" : "bisection";
  if (const double reversal = largest_reversal(ps); reversal > 0) {
    a.notes.push_back(fmt::format("{} is not monotone in {} over the range (its largest step back is {:.2g} % of its "
                                  "span){}", a.target->metric.name, a.key.name, 100 * reversal,
                                  every_integer ? "; every integer was predicted, so the answer is exact"
                                                : ": scanned 257 points, then bisected the first bracket"));
    if (!every_integer) {
      ps = s.scan(sample(lo, hi, 257, log, integer));
      a.method = "scan + bisection";
    }
  }
  a.searched = range_text(a.key, lo, hi, log, ps.size() + s.failed);
  if (s.failed > 0)
    a.notes.push_back(fmt::format("{} values could not be predicted and were left out; the first reason: {}", s.failed,
                                  s.first_error));
  return ps;
}

// What bounds the metric past the best value of `key`, where ddlsim knows it: a socket transport
// (NCCL's, gloo's, MPI's over TCP), for an inter-node link faster than its threads. "" where not.
std::string what_limits(const Evaluator& ev, const std::string& key, double best) {
  if (key != "cluster.inter_bw_GBps") return "";
  const ClusterDescription& c = ev.base_scenario().system.cluster;
  if (!c.socket_transport || best * kGB < c.transport_Bps()) return "";
  return fmt::format("{}, whose CPU threads move at most {:.3g} GB/s a GPU across nodes "
                     "(cluster.tcp_thread_GBps; an RDMA network or more socket threads lifts it)",
                     socket_transport_name(ev.base_scenario()), c.transport_Bps() / kGB);
}

// No probe reaches the target: the best one, and where the metric stops improving.
void answer_unreachable(const Evaluator& ev, const std::vector<Probe>& ps, double lo, double hi, Advice& a) {
  const auto best = std::max_element(ps.begin(), ps.end(), [&](const Probe& x, const Probe& y) {
    return better(a.target->metric, y.m, x.m);
  });
  a.reachable = false;
  if (a.method == "bisection") a.method = "scan";
  a.answer = shown_text(a.key, best->x);
  a.conclusion = fmt::format("not reachable: no {} from {} to {} gives {}; the best is {} = {} ({} = {:.6g})",
                             a.key.name, value_text(a.key, lo), value_text(a.key, hi), relation(*a.target), a.key.name,
                             a.answer, a.target->metric.name, best->m);
  if (best == ps.end() - 1) return;
  const std::string limit = what_limits(ev, a.key.name, best->x);
  a.notes.push_back(fmt::format("{} stops improving beyond {} = {}: {}", a.target->metric.name, a.key.name, a.answer,
                                limit.empty() ? "something else limits it there (`ddlsim simulate` shows where the "
                                                "step's time goes)"
                                              : limit + " limits it there"));
}

// Returns how many values it sampled before bisecting.
std::size_t search_boundary(const Evaluator& ev, const AdviseRequest& req, Advice& a) {
  const auto [lo, hi] = key_range(ev, a.key, req);
  const bool log = a.key.log && lo > 0;
  Search s{ev, a.key, *a.target, "", 0};
  std::vector<Probe> ps = scan_range(s, lo, hi, log, a);
  const bool grows = !better(a.target->metric, ps.front().m, ps.back().m);  // larger values help
  if (!grows) std::reverse(ps.begin(), ps.end());  // from the loose end
  const auto first = std::find_if(ps.begin(), ps.end(), [&](const Probe& p) { return a.target->reached_by(p.m); });
  const std::size_t points = ps.size() + s.failed;
  if (first == ps.end()) {
    answer_unreachable(ev, ps, lo, hi, a);
    return points;
  }
  if (first == ps.begin()) {
    if (a.method == "bisection") a.method = "scan";
    a.answer = value_text(a.key, first->x);
    a.conclusion = fmt::format("the whole range reaches the target: {} = {} (the range's {} end) already does; "
                               "widen --range to look further", a.key.name, a.answer, grows ? "low" : "high");
    return points;
  }
  const double boundary = s.bisect(std::prev(first)->x, first->x, log);
  a.boundary = boundary;
  a.answer = rounded_answer(a.key, boundary, std::prev(first)->x);
  a.conclusion = fmt::format("the {} {} reaching {} is {}{}{}", grows ? "least" : "greatest", a.key.name,
                             relation(*a.target), a.answer, a.key.unit.empty() ? "" : " ", a.key.unit);
  return points;
}

// The boundary as the metric's 10th or 90th percentile sees it, over the points the point's search
// sampled: the answer at that end of the interval, or none where that end reaches the target
// nowhere in the range. A range whose loose end already reaches gives that end.
std::optional<std::string> boundary_at(const Evaluator& ev, const AdviseRequest& req, const Advice& a, bool p90,
                                       std::size_t points) {
  const auto [lo, hi] = key_range(ev, a.key, req);
  const bool log = a.key.log && lo > 0, integer = a.key.kind == KeyKind::Integer;
  Search s{ev, a.key, *a.target, "", 0, p90};
  std::vector<Probe> ps;
  try {
    ps = s.scan(sample(lo, hi, int(points), log, integer));
  } catch (const InputError&) {
    return std::nullopt;
  }
  if (better(a.target->metric, ps.front().m, ps.back().m)) std::reverse(ps.begin(), ps.end());  // from the loose end
  const auto first = std::find_if(ps.begin(), ps.end(), [&](const Probe& p) { return a.target->reached_by(p.m); });
  if (first == ps.end()) return std::nullopt;
  if (first == ps.begin()) return value_text(a.key, first->x);
  return rounded_answer(a.key, s.bisect(std::prev(first)->x, first->x, log), std::prev(first)->x);
}

// The answer's 80 % interval: the boundary where the metric's optimistic and its pessimistic
// percentile reach the target (for a metric the interval covers).
void answer_interval(const Evaluator& ev, const AdviseRequest& req, Advice& a, std::size_t points) {
  if (!a.boundary || !has_percentiles(a.target->metric.name)) return;
  const bool higher = a.target->metric.higher_is_better;
  const std::optional<std::string> optimistic = boundary_at(ev, req, a, higher, points),
                                   pessimistic = boundary_at(ev, req, a, !higher, points);
  AnswerInterval i;
  i.optimistic = optimistic.value_or("");
  i.pessimistic = pessimistic.value_or("");
  a.interval = i;
  const std::string unit = a.key.unit.empty() ? "" : " " + a.key.unit;
  a.conclusion += fmt::format(" (80 % interval: {} at the optimistic end, {} at the pessimistic end)",
                              optimistic ? *optimistic + unit : "none in the range",
                              pessimistic ? *pessimistic + unit : "none in the range");
}

std::vector<std::string> ranked_values(const Evaluator& ev, const AdviseRequest& req, const PlanKey& k) {
  if (!req.values.empty()) return req.values;
  if (k.kind == KeyKind::Choice) return k.choices;
  if (k.kind == KeyKind::Real)
    throw InputError("--vary " + k.name + ": a continuous key needs --target METRIC=VALUE (or --values V1,V2,... "
                     "to rank listed values)");
  const auto [lo, hi] = key_range(ev, k, req);
  if (hi - lo >= 4096)
    throw InputError("--range for " + k.name + ": " + value_text(k, hi - lo + 1) +
                     " integers are too many to rank (at most 4096); narrow it or give --values");
  std::vector<std::string> out;
  for (double x = lo; x <= hi; ++x) out.push_back(value_text(k, x));
  return out;
}

// Best objective first (stable: equal values keep the listed order); values that failed last.
void sort_by_objective(std::vector<Candidate>& cs, const Metric& obj) {
  std::stable_sort(cs.begin(), cs.end(), [&](const Candidate& x, const Candidate& y) {
    if (!x.outcome.prediction || !y.outcome.prediction) return bool(x.outcome.prediction) && !y.outcome.prediction;
    return better(obj, metric_value(*x.outcome.prediction, obj.name), metric_value(*y.outcome.prediction, obj.name));
  });
}

// The ranked answer: the best by the objective (that reaches the target, when there is one).
void choose_ranked(std::size_t predicted, Advice& a) {
  const Metric& obj = a.objective;
  const auto end = a.ranked.begin() + std::ptrdiff_t(predicted);
  const auto reaching = std::find_if(a.ranked.begin(), end, [](const Candidate& c) { return c.reaches; });
  if (a.target && reaching == end) {
    const Metric& m = a.target->metric;
    const auto best = std::min_element(a.ranked.begin(), end, [&](const Candidate& x, const Candidate& y) {
      return better(m, metric_value(*x.outcome.prediction, m.name), metric_value(*y.outcome.prediction, m.name));
    });
    a.reachable = false;
    a.answer = best->value;
    a.conclusion = fmt::format("not reachable: no listed {} gives {}; the best is {} = {} ({} = {:.6g})", a.key.name,
                               relation(*a.target), a.key.name, a.answer, m.name,
                               metric_value(*best->outcome.prediction, m.name));
    return;
  }
  const Candidate& chosen = a.target ? *reaching : a.ranked.front();
  a.answer = chosen.value;
  a.conclusion = fmt::format("{} = {} {} ({} = {:.6g})", a.key.name, a.answer,
                             a.target ? "is the best value reaching the target by " + obj.name : "is best by " + obj.name,
                             obj.name, metric_value(*chosen.outcome.prediction, obj.name));
}

void rank(const Evaluator& ev, const AdviseRequest& req, Advice& a) {
  const std::vector<std::string> values = ranked_values(ev, req, a.key);
  a.method = "ranking";
  a.searched = fmt::format("{} values of {}", values.size(), a.key.name);
  std::size_t predicted = 0;
  for (const auto& v : values) {
    Candidate c{v, ev.try_at({{a.key.name, v}}), false};
    if (c.outcome.prediction) {
      ++predicted;
      if (a.target) c.reaches = a.target->reached_by(metric_value(*c.outcome.prediction, a.target->metric.name));
    }
    a.ranked.push_back(std::move(c));
  }
  if (predicted == 0)
    throw InputError("--vary " + a.key.name + ": no value could be predicted; first failure: " +
                     a.ranked.front().outcome.error);
  if (predicted < a.ranked.size())
    a.notes.push_back(fmt::format("{} of {} values could not be predicted (listed last, with the reason)",
                                  a.ranked.size() - predicted, a.ranked.size()));
  sort_by_objective(a.ranked, a.objective);
  // A value whose step does not fit in the device's memory is no answer: listed after those that fit.
  const auto fits = [](const Candidate& c) { return c.outcome.prediction && c.outcome.prediction->fits_in_memory; };
  const auto split = std::stable_partition(a.ranked.begin(), a.ranked.begin() + std::ptrdiff_t(predicted), fits);
  const std::size_t fitting = std::size_t(split - a.ranked.begin());
  if (fitting < predicted)
    a.notes.push_back(fmt::format("{} of {} values need more memory than the device has (listed after those that "
                                  "fit; memory_headroom_bytes < 0){}",
                                  predicted - fitting, a.ranked.size(), fitting ? "" : ": none fits"));
  if (fitting > 0) return choose_ranked(fitting, a);
  const auto least = std::min_element(a.ranked.begin(), a.ranked.begin() + std::ptrdiff_t(predicted), [](const Candidate& x, const Candidate& y) {
    return x.outcome.prediction->memory_per_gpu_bytes < y.outcome.prediction->memory_per_gpu_bytes;
  });
  const Prediction& p = *least->outcome.prediction;
  a.reachable = false;
  a.answer = least->value;
  a.conclusion = fmt::format("no listed {} fits in the device's {:.1f} GiB; the least memory is {} = {} ({:.1f} GiB "
                             "a GPU)", a.key.name, p.device_memory_bytes / kGiB, a.key.name, a.answer,
                             p.memory_per_gpu_bytes / kGiB);
}

void nodes_optimum_note(const Evaluator& ev, const AdviseRequest& req, Advice& a) {
  std::vector<int> nodes;
  for (const auto& c : a.ranked)
    if (c.outcome.prediction) nodes.push_back(c.outcome.prediction->nodes);
  if (nodes.empty()) return;
  const int best = a.ranked.front().outcome.prediction->nodes;
  const ClusterDescription cluster = ev.base_scenario().system.cluster;
  if (best < *std::max_element(nodes.begin(), nodes.end()))
    a.notes.push_back(fmt::format("epoch time is least on {} node{}; more nodes are slower (within the range)", best,
                                  best == 1 ? "" : "s"));
  else if (!req.range && cluster.max_nodes > 0)
    a.notes.push_back(fmt::format("epoch time still falls at {} nodes, all that platform {} has; for a larger "
                                  "cluster of its kind: ddlsim platform generate --from {} --nodes N -o FILE.xml, "
                                  "then --cluster.platform=FILE.xml --range 1..N", best, cluster.name, cluster.name));
  else
    a.notes.push_back(fmt::format("epoch time still falls at {} nodes, the range's end: widen --range", best));
}

Candidate forward_check(const Evaluator& ev, const Advice& a, bool simgrid) {
  Assignment at{{a.key.name, a.answer}};
  if (simgrid) at.emplace_back("simulation.backend", "simgrid");
  Candidate c{a.answer, ev.try_at(at), false};
  if (c.outcome.prediction && a.target)
    c.reaches = a.target->reached_by(metric_value(*c.outcome.prediction, a.target->metric.name));
  return c;
}

}  // namespace

Advice advise(const Evaluator& ev, const AdviseRequest& req) {
  AdviseRequest r = req;
  if (r.nodes_optimum) {
    if (!r.key.empty() && to_lower(r.key) != "cluster.nodes")
      throw InputError("--nodes-optimum varies cluster.nodes; --vary " + clip(r.key) + " cannot be given with it");
    if (r.target) throw InputError("--nodes-optimum ranks node counts by epoch time; --target cannot be given with it");
    r.key = "cluster.nodes";
    r.objective = Objective::EpochTime;
  }
  if (r.key.empty()) throw InputError("ddlsim advise: expected --vary KEY (or --nodes-optimum)");
  Advice a;
  a.key = find_plan_key(r.key, "--vary");
  a.target = r.target;
  a.objective = objective_metric(r.objective);
  if (r.range && !r.values.empty()) throw InputError("--range and --values: give one of them (a range to search, or values to rank)");
  if (r.range && a.key.kind == KeyKind::Choice)
    throw InputError("--range: " + a.key.name + " is a choice of names, not a number; give --values instead");
  if (r.range) check_range(a.key, r.range->first, r.range->second, "--range");
  if (r.range && a.key.log && r.range->first <= 0) a.key.log = false;
  for (const auto& v : r.values)
    if (trim(v).empty()) throw InputError("--values: an empty value in the list for " + a.key.name);
  if (a.key.name == kModelParamsKey) a.notes.push_back(ev.model_params_note());
  const bool search = r.target && r.values.empty() && a.key.kind != KeyKind::Choice;
  if (search) {
    answer_interval(ev, r, a, search_boundary(ev, r, a));
  } else {
    rank(ev, r, a);
  }
  if (r.nodes_optimum) nodes_optimum_note(ev, r, a);
  a.check = forward_check(ev, a, false);
  if (r.verify_simgrid) a.simgrid_check = forward_check(ev, a, true);
  return a;
}

}  // namespace plan_layer
}  // namespace ddlsim
