#include "compare/collective_fit.hpp"

#include <fmt/format.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/error.hpp"
#include "predict/collective_prediction.hpp"
#include "scenario/resolve.hpp"

namespace ddlsim {
inline namespace compare_layer {

CollectiveLog read_collective_log(const std::string& text, const std::string& file, std::optional<Collective> op,
                                  std::optional<Collective> unsaid) {
  CollectiveLog log;
  log.out = parse_bench_output(text, file);
  if (op) log.out.op = op;
  if (!log.out.op) log.out.op = unsaid;
  if (!log.out.op) throw InputError(file + ": neither the text nor the file name says which collective it measured; give --op");
  log.op = *log.out.op;
  if (log.out.tool != "nccl-tests")
    throw InputError(file + ": OSU output names no nodes; expected nccl-tests output with its \"#  Rank\" lines");
  if (log.out.ranks == 0) {
    // Published tables often lack the rank lines: a file named "<N>n_<G>g..." says the counts.
    const std::string name = file.substr(file.find_last_of('/') + 1);
    int nodes = 0, gpus = 0;
    if (std::sscanf(name.c_str(), "%dn_%dg", &nodes, &gpus) == 2 && nodes > 0 && nodes <= 65536 && gpus > 0 &&
        gpus <= 1024) {
      log.nodes = nodes, log.gpus_per_node = gpus;
      return log;
    }
    throw InputError(file + ": lists no ranks: expected nccl-tests output with its \"#  Rank  N ... on HOST device "
                            "...\" lines, from which the node count is read (or a file named <N>n_<G>g..., e.g. "
                            "2n_8g_run1.log)");
  }
  const std::set<std::string> hosts(log.out.rank_hosts.begin(), log.out.rank_hosts.end());
  if (hosts.count(""))
    throw InputError(file + ": a \"#  Rank\" line names no host (expected '... on HOST device ...')");
  log.nodes = int(hosts.size());
  if (log.out.ranks % log.nodes != 0)
    throw InputError(fmt::format("{}: {} ranks on {} hosts: expected the same number of GPUs on every node", file,
                                 log.out.ranks, log.nodes));
  log.gpus_per_node = log.out.ranks / log.nodes;
  return log;
}

CollectivePoints collective_points(const std::vector<CollectiveLog>& logs, const Settings& base,
                                   const std::string& base_dir) {
  CollectivePoints pts;
  const bool sets_algorithm = !base.at("comm.algorithm").value.empty();
  for (const CollectiveLog& log : logs) {
    Settings s = base;
    const std::string origin = log.out.file + " (its #  Rank lines)";
    s["cluster.nodes"] = Setting{std::to_string(log.nodes), origin, false};
    s["cluster.gpus_per_node"] = Setting{std::to_string(log.gpus_per_node), origin, false};
    Scenario sc = resolve_scenario(s, base_dir);
    sc.execution.algorithm = benchmark_algorithm(sc, sets_algorithm, log.op);
    for (const BenchPoint& p : log.out.points) {
      pts.bases.push_back(sc);
      pts.ops.push_back(log.op);
      pts.bytes.push_back(p.bytes);
      pts.measured_s.push_back(p.time_s);
      pts.nodes.push_back(log.nodes);
      pts.gpus_per_thread.push_back(log.out.gpus_per_thread);
      pts.origins.push_back(log.out.file + ":" + std::to_string(p.line));
    }
  }
  return pts;
}

FitTarget collective_target(const CollectivePoints& points) {
  FitTarget t;
  t.measured = points.measured_s;
  t.keep_undetermined = true;
  t.predicted = [ops = points.ops, bytes = points.bytes, g = points.gpus_per_thread](std::size_t i, const Scenario& s) {
    return benchmark_time_s(predict_collective(s, ops[i], {bytes[i]}).rows.front().time_s, g[i]);
  };
  return t;
}

CollectivePoints points_where(const CollectivePoints& all, int max_nodes, bool larger) {
  CollectivePoints out;
  for (std::size_t i = 0; i < all.bases.size(); ++i) {
    if ((all.nodes[i] > max_nodes) != larger) continue;
    out.bases.push_back(all.bases[i]);
    out.ops.push_back(all.ops[i]);
    out.bytes.push_back(all.bytes[i]);
    out.measured_s.push_back(all.measured_s[i]);
    out.nodes.push_back(all.nodes[i]);
    out.gpus_per_thread.push_back(all.gpus_per_thread[i]);
    out.origins.push_back(all.origins[i]);
  }
  return out;
}

const std::vector<std::string>& size_band_names() {
  static const std::vector<std::string> names = {"< 1 MiB", "1-64 MiB", ">= 64 MiB"};
  return names;
}

int size_band(Bytes bytes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  return bytes < kMiB ? 0 : bytes < 64 * kMiB ? 1 : 2;
}

std::vector<BandScore> score_bands(const CollectivePoints& pts, const std::vector<Scenario>& calibrated,
                                   const std::vector<double>& baseline) {
  const FitTarget target = collective_target(pts);
  std::vector<std::vector<double>> prior(4), after(4), base(4);
  for (std::size_t i = 0; i < pts.bases.size(); ++i) {
    const double p = relative_error(target.predicted(i, pts.bases[i]), pts.measured_s[i]);
    const double c = relative_error(target.predicted(i, calibrated[i]), pts.measured_s[i]);
    for (std::size_t b : {std::size_t(size_band(pts.bytes[i])), std::size_t(3)}) {
      prior[b].push_back(p);
      after[b].push_back(c);
      if (!std::isnan(baseline[i])) base[b].push_back(relative_error(baseline[i], pts.measured_s[i]));
    }
  }
  std::vector<BandScore> out;
  for (std::size_t b = 0; b < 4; ++b)
    out.push_back({b < 3 ? size_band_names()[b] : "all", error_stats(prior[b]), error_stats(after[b]),
                   error_stats(base[b])});
  return out;
}

namespace {

ErrorStats pooled(const ErrorStats& a, const ErrorStats& b) {
  ErrorStats s;
  s.n = a.n + b.n;
  if (s.n == 0) return s;
  s.mape = (a.mape * a.n + b.mape * b.n) / s.n;
  s.bias = (a.bias * a.n + b.bias * b.n) / s.n;
  s.max_abs = std::max(a.max_abs, b.max_abs);
  return s;
}

}  // namespace

std::vector<BandScore> pool_bands(const std::vector<std::vector<BandScore>>& sets) {
  std::vector<BandScore> out;
  for (std::size_t b = 0; b < 4; ++b) out.push_back({b < 3 ? size_band_names()[b] : "all", {}, {}, {}});
  for (const auto& set : sets)
    for (std::size_t b = 0; b < set.size() && b < 4; ++b) {
      out[b].a_priori = pooled(out[b].a_priori, set[b].a_priori);
      out[b].calibrated = pooled(out[b].calibrated, set[b].calibrated);
      out[b].baseline = pooled(out[b].baseline, set[b].baseline);
    }
  return out;
}

namespace {
std::optional<TimeSpread> time_spread(const CollectivePoints& pts, const std::vector<Scenario>& fitted) {
  const FitTarget target = collective_target(pts);
  std::vector<double> buckets, every;
  for (std::size_t i = 0; i < pts.bases.size(); ++i) {
    const double predicted = target.predicted(i, fitted[i]);
    if (!(predicted > 0) || !std::isfinite(predicted)) continue;
    const double ratio = pts.measured_s[i] / predicted;
    every.push_back(ratio);
    if (pts.bytes[i] >= kMiB) buckets.push_back(ratio);
  }
  TimeSpread s;
  s.every_size = buckets.size() < 3;
  std::vector<double>& x = s.every_size ? every : buckets;
  if (x.size() < 3) return std::nullopt;
  gsl_sort(x.data(), 1, x.size());
  s.p10 = gsl_stats_quantile_from_sorted_data(x.data(), 1, x.size(), 0.1);
  s.p90 = gsl_stats_quantile_from_sorted_data(x.data(), 1, x.size(), 0.9);
  s.n = int(x.size());
  return s;
}
}  // namespace

std::string collective_overlay_text(const CollectiveFit& f, const std::string& measured_files,
                                    const std::string& scenario_file) {
  std::string out = overlay_text(f.eff, measured_files, scenario_file);
  if (!f.time_spread) return out;
  const TimeSpread& s = *f.time_spread;
  // Within the keys' bounds (0.01 to 100), so that the overlay reads back.
  const auto bounded = [](double v) { return std::clamp(v, 0.01, 100.0); };
  return out + fmt::format("\n[comm]\n# measured / fitted time over the {} fitted sizes{}: its 10th and 90th "
                           "percentiles\ntime_p10 = {:.6g}\ntime_p90 = {:.6g}\n",
                           s.n, s.every_size ? "" : " of 1 MiB and more", bounded(s.p10), bounded(s.p90));
}

namespace {

// Whether a link's bandwidth bounds the largest message of some fitted log, a priori: a link 25 %
// faster shortens that message's time by at least 1 %. Where it does not (on two H100 nodes NVLink
// SHARP bounds the large sizes and the rails carry half the bytes) the logs would set it through
// what it does to smaller messages (the pipelines' fill), which is not what the link is.
bool bounds_largest(const CollectivePoints& train, const SharedParameter& p) {
  const FitTarget target = collective_target(train);
  std::map<int, std::size_t> largest;  // per node count, the point of the largest message
  for (std::size_t i = 0; i < train.bases.size(); ++i) {
    auto [it, fresh] = largest.emplace(train.nodes[i], i);
    if (!fresh && train.bytes[i] > train.bytes[it->second]) it->second = i;
  }
  for (const auto& [nodes, i] : largest) {
    Scenario faster = train.bases[i];
    p.set(faster.system, 1.25 * p.get(faster));
    if (target.predicted(i, faster) < 0.99 * target.predicted(i, train.bases[i])) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> default_collective_parameters(const CollectivePoints& points) {
  std::vector<std::string> names = {"inter_bw", "inter_latency", "intra_bw", "intra_latency"};
  const auto sockets = [](const Scenario& s) { return s.system.cluster.socket_transport && s.system.nodes > 1; };
  if (std::any_of(points.bases.begin(), points.bases.end(), sockets)) names.push_back("tcp_thread");
  return names;
}

namespace {

// The fit on `all`, whose scenarios may start from values the user did not give (a rendezvous'
// threshold and search start): `given`, where set, is the points as given, what "a priori" and the
// error before the fit are scored on.
CollectiveFit fit_links(const CollectivePoints& all, const std::vector<std::string>& names, int train_max_nodes,
                        const CollectivePoints* given = nullptr) {
  const auto split = [&](const CollectivePoints& p, bool larger) {
    return train_max_nodes > 0 ? points_where(p, train_max_nodes, larger) : p;
  };
  const CollectivePoints train = split(all, false), train_given = given ? split(*given, false) : train;
  if (train.bases.empty())
    throw InputError(fmt::format("--train-max-nodes {}: no log has that few nodes to fit on", train_max_nodes));
  std::vector<SharedParameter> params;
  for (const std::string& n : names) {
    if (n == "compute") throw InputError("--params compute: nccl-tests logs measure no compute; expected inter_bw, "
                                         "inter_latency, intra_bw, intra_latency, tcp_thread or net_rendezvous");
    params.push_back(shared_parameter(n, train.bases));
    if ((n == "inter_bw" || n == "intra_bw" || n == "tcp_thread") && !bounds_largest(train, params.back()))
      params.back().held_because = "not what bounds the largest messages of these logs (a priori, a 25 % faster link "
                                   "moves none by 1 %); kept as it was";
  }
  const FittedParameters fitted = fit_parameters(collective_target(train), train.bases, params);
  CollectiveFit f;
  f.eff = effective_of(fitted, train.bases.front());
  if (given) {
    const FitTarget target = collective_target(train_given);
    std::vector<double> errs;
    for (std::size_t i = 0; i < train_given.bases.size(); ++i)
      errs.push_back(relative_error(target.predicted(i, train_given.bases[i]), target.measured[i]));
    f.eff.before = error_stats(errs);
  }
  f.fitted_on = train_max_nodes > 0 ? fmt::format("logs on at most {} nodes", train_max_nodes) : "every log";
  const std::vector<Scenario> fitted_bases = apply_parameters(train.bases, params, fitted);
  f.in_sample = score_bands(train_given, fitted_bases, std::vector<double>(train.bases.size(), NAN));
  f.time_spread = time_spread(train, fitted_bases);
  for (int n : train.nodes) f.largest_fitted = std::max(f.largest_fitted, n);
  if (train_max_nodes <= 0) return f;
  const CollectivePoints test = points_where(all, train_max_nodes, true);
  const CollectivePoints test_given = given ? points_where(*given, train_max_nodes, true) : test;
  if (test.bases.empty())
    throw InputError(fmt::format("--train-max-nodes {}: no log has more nodes to score", train_max_nodes));
  const std::set<int> scored(test.nodes.begin(), test.nodes.end());
  f.scored_nodes.assign(scored.begin(), scored.end());
  std::map<std::pair<int, double>, double> at_largest;
  for (std::size_t i = 0; i < train.bases.size(); ++i)
    if (train.nodes[i] == f.largest_fitted) at_largest[{int(train.ops[i]), train.bytes[i]}] = train.measured_s[i];
  std::vector<double> baseline;
  for (std::size_t i = 0; i < test.bases.size(); ++i) {
    const auto it = at_largest.find({int(test.ops[i]), test.bytes[i]});
    baseline.push_back(it == at_largest.end() ? NAN : it->second);
  }
  f.scale_out = score_bands(test_given, apply_parameters(test.bases, params, fitted), baseline);
  return f;
}

// A network plugin's rendezvous (`net_rendezvous`) has two values. Its threshold is a step
// function of the sizes the logs hold, which a search cannot follow: each power of two from 4 to
// 256 KiB is tried, every parameter fitted with it, and the one whose fit leaves the least error
// (MAPE over the fitted points) kept. Its time is searched from 10 us where the scenario has none
// (a search window is 4 decades either side of its start). Where the logs do not determine that
// time, there is no rendezvous: the others are fitted without it.
constexpr Seconds kRendezvousSearchStart_s = 10e-6;

CollectivePoints with_eager_limit(CollectivePoints p, Bytes eager) {
  for (Scenario& s : p.bases) {
    s.system.cluster.net_eager_bytes = eager;
    if (s.system.cluster.net_rendezvous_s <= 0) s.system.cluster.net_rendezvous_s = kRendezvousSearchStart_s;
  }
  return p;
}

// A row the fit did not search, with no correlation to the others.
void append_row(EffectiveFit& eff, FitParameter row) {
  eff.params.push_back(std::move(row));
  if (eff.correlation.empty()) return;
  for (auto& r : eff.correlation) r.push_back(NAN);
  eff.correlation.emplace_back(eff.params.size(), NAN);
}

FitParameter given_row(const char* name, const char* key, double value, bool identifiable, std::string note) {
  FitParameter p;
  p.name = name;
  p.key = key;
  p.before = p.after = value;
  p.identifiable = identifiable;
  p.note = std::move(note);
  return p;
}

}  // namespace

CollectiveFit fit_collectives(const CollectivePoints& all, const std::vector<std::string>& names,
                              int train_max_nodes) {
  const auto it = std::find(names.begin(), names.end(), "net_rendezvous");
  if (it == names.end()) return fit_links(all, names, train_max_nodes);
  const ClusterDescription& given = all.bases.front().system.cluster;
  std::optional<CollectiveFit> best;
  Bytes eager = 0;
  for (int kib = 4; kib <= 256; kib *= 2) {
    CollectiveFit f = fit_links(with_eager_limit(all, kib * kKiB), names, train_max_nodes, &all);
    if (!best || f.eff.after.mape < best->eff.after.mape) best = std::move(f), eager = kib * kKiB;
  }
  FitParameter& time = best->eff.params[std::size_t(it - names.begin())];
  const double eager_kib = given.net_eager_bytes / kKiB;
  if (!time.identifiable || !time.note.empty()) {
    std::vector<std::string> rest = names;
    rest.erase(rest.begin() + (it - names.begin()));
    CollectiveFit f = fit_links(all, rest, train_max_nodes);
    append_row(f.eff, given_row("net_rendezvous", "cluster.net_rendezvous_us", given.net_rendezvous_s * 1e6, false,
                                "not determined by these logs at any threshold from 4 to 256 KiB; none"));
    append_row(f.eff, given_row("net_eager", "cluster.net_eager_kib", eager_kib, false, "as it was (no rendezvous)"));
    return f;
  }
  time.before = given.net_rendezvous_s * 1e6;
  const bool edge = eager == 4 * kKiB || eager == 256 * kKiB;  // the limit may lie beyond the powers tried
  FitParameter row = given_row("net_eager", "cluster.net_eager_kib", eager_kib, true,
                               edge ? "at the edge of the powers of two tried (4 to 256 KiB): the least error there"
                                    : "the power of two from 4 to 256 KiB whose fit leaves the least error");
  row.after = eager / kKiB;
  append_row(best->eff, row);
  return *best;
}

}  // namespace compare_layer
}  // namespace ddlsim
