#include "compare/regression.hpp"

#include <Eigen/Dense>
#include <fmt/format.h>
#include <cmath>
#include <map>
#include <set>

namespace ddlsim {
inline namespace compare_layer {

namespace {

struct Obs {
  double nodes, batch, y;
};

std::string group_of(const Scenario& sc) {
  return fmt::format("{} / {} k={}", sc.model.name, sc.execution.framework, sc.execution.sync_period);
}

double term_value(const std::string& t, const Obs& o) {
  if (t == "1") return 1;
  if (t == "nodes") return o.nodes;
  if (t == "batch") return o.batch;
  if (t == "nodes^2") return o.nodes * o.nodes;
  if (t == "batch^2") return o.batch * o.batch;
  return o.nodes * o.batch;  // nodes*batch
}

std::vector<std::string> terms_for(const std::vector<Obs>& obs, bool quadratic) {
  std::set<double> nodes, batches;
  for (const auto& o : obs) {
    nodes.insert(o.nodes);
    batches.insert(o.batch);
  }
  std::vector<std::string> t = {"1"};
  if (nodes.size() > 1) t.push_back("nodes");
  if (batches.size() > 1) t.push_back("batch");
  if (!quadratic) return t;
  if (nodes.size() > 2) t.push_back("nodes^2");
  if (batches.size() > 2) t.push_back("batch^2");
  if (nodes.size() > 1 && batches.size() > 1) t.push_back("nodes*batch");
  return t;
}

RegressionFit fit_one(const std::string& group, const std::vector<Obs>& obs, bool quadratic) {
  RegressionFit f;
  f.group = group;
  f.kind = quadratic ? "quadratic" : "linear";
  f.terms = terms_for(obs, quadratic);
  f.n = int(obs.size());
  const int k = int(f.terms.size());
  if (k == 1) f.note = "neither nodes nor batch size varies";
  else if (f.n <= k) f.note = fmt::format("{} rows for {} terms: too few to fit", f.n, k);
  if (!f.note.empty()) return f;
  Eigen::MatrixXd x(f.n, k);
  Eigen::VectorXd y(f.n);
  for (int i = 0; i < f.n; ++i) {
    for (int j = 0; j < k; ++j) x(i, j) = term_value(f.terms[j], obs[i]);
    y(i) = obs[i].y;
  }
  const Eigen::VectorXd beta = x.colPivHouseholderQr().solve(y);
  const Eigen::VectorXd res = y - x * beta;
  const double ss_tot = (y.array() - y.mean()).square().sum();
  f.r2 = ss_tot > 0 ? 1 - res.squaredNorm() / ss_tot : 1;
  f.adjusted_r2 = 1 - (1 - f.r2) * (f.n - 1) / double(f.n - k);
  const double s2 = res.squaredNorm() / (f.n - k);
  const Eigen::MatrixXd xtx_inv = (x.transpose() * x).completeOrthogonalDecomposition().pseudoInverse();
  for (int j = 0; j < k; ++j) f.std_errors.push_back(std::sqrt(std::max(0.0, s2 * xtx_inv(j, j))));
  f.coefficients.assign(beta.data(), beta.data() + k);
  f.residuals.assign(res.data(), res.data() + f.n);
  return f;
}

}  // namespace

std::vector<RegressionFit> fit_regressions(const MeasuredSet& set, const std::vector<Scenario>& scenarios) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<Obs>> groups;
  for (std::size_t i = 0; i < set.configs.size(); ++i) {
    const Scenario& sc = scenarios.at(i);
    const std::string g = group_of(sc);
    if (!groups.count(g)) order.push_back(g);
    for (double v : set.configs[i].samples)
      groups[g].push_back({double(sc.system.nodes), double(sc.execution.batch_per_gpu), v});
  }
  std::vector<RegressionFit> fits;
  for (const auto& g : order) {
    fits.push_back(fit_one(g, groups[g], false));
    fits.push_back(fit_one(g, groups[g], true));
  }
  return fits;
}

}  // namespace compare_layer
}  // namespace ddlsim
