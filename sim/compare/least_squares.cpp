#include "compare/least_squares.hpp"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>

#include <memory>

#include "core/error.hpp"

namespace ddlsim {
inline namespace compare_layer {

namespace {

using Residuals = std::function<std::vector<double>(const std::vector<double>&)>;

struct Context {
  const Residuals& f;
  std::size_t n;
};

int residual_fn(const gsl_vector* x, void* data, gsl_vector* out) {
  const auto& ctx = *static_cast<const Context*>(data);
  std::vector<double> at(x->size);
  for (std::size_t k = 0; k < x->size; ++k) at[k] = gsl_vector_get(x, k);
  const std::vector<double> r = ctx.f(at);
  for (std::size_t i = 0; i < ctx.n; ++i) gsl_vector_set(out, i, r.at(i));
  return GSL_SUCCESS;
}

struct WorkspaceFree {
  void operator()(gsl_multifit_nlinear_workspace* w) const { gsl_multifit_nlinear_free(w); }
};
struct VectorFree {
  void operator()(gsl_vector* v) const { gsl_vector_free(v); }
};
struct MatrixFree {
  void operator()(gsl_matrix* m) const { gsl_matrix_free(m); }
};

}  // namespace

LeastSquares least_squares(const Residuals& residuals, const std::vector<double>& x0, std::size_t n, double step) {
  const std::size_t p = x0.size();
  LeastSquares out;
  out.x = x0;
  if (p == 0 || n < p) return out;
  // GSL's default handler aborts the process; errors come back as status codes instead.
  gsl_set_error_handler_off();
  Context ctx{residuals, n};
  gsl_multifit_nlinear_fdf fdf{};
  fdf.f = residual_fn;
  fdf.df = nullptr;  // finite differences
  fdf.fvv = nullptr;
  fdf.n = n;
  fdf.p = p;
  fdf.params = &ctx;
  gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
  params.h_df = step;
  std::unique_ptr<gsl_multifit_nlinear_workspace, WorkspaceFree> w(
      gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, n, p));
  std::unique_ptr<gsl_vector, VectorFree> x(gsl_vector_alloc(p));
  for (std::size_t k = 0; k < p; ++k) gsl_vector_set(x.get(), k, x0[k]);
  if (gsl_multifit_nlinear_init(x.get(), &fdf, w.get()) != GSL_SUCCESS) return out;
  int info = 0;
  const int status = gsl_multifit_nlinear_driver(200, 1e-10, 1e-12, 1e-12, nullptr, nullptr, &info, w.get());
  out.converged = status == GSL_SUCCESS;
  const gsl_vector* at = gsl_multifit_nlinear_position(w.get());
  for (std::size_t k = 0; k < p; ++k) out.x[k] = gsl_vector_get(at, k);
  const gsl_vector* f = gsl_multifit_nlinear_residual(w.get());
  gsl_blas_ddot(f, f, &out.sum_sq);
  out.dof = int(n) - int(p);
  if (out.dof <= 0) return out;
  std::unique_ptr<gsl_matrix, MatrixFree> covar(gsl_matrix_alloc(p, p));
  if (gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w.get()), 0.0, covar.get()) != GSL_SUCCESS) return out;
  const double s2 = out.sum_sq / out.dof;
  out.covar.assign(p, std::vector<double>(p));
  for (std::size_t a = 0; a < p; ++a)
    for (std::size_t b = 0; b < p; ++b) out.covar[a][b] = s2 * gsl_matrix_get(covar.get(), a, b);
  return out;
}

double t_quantile_95(int dof) { return dof > 0 ? gsl_cdf_tdist_Pinv(0.975, dof) : 0; }

}  // namespace compare_layer
}  // namespace ddlsim
