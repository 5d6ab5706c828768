#include "model/synthetic.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"

namespace ddlsim {
inline namespace model_layer {

namespace {
std::int64_t scaled(std::int64_t n, double factor) { return std::int64_t(std::llround(double(n) * factor)); }

// Moves the rounding difference onto the layer with the most trainable parameters.
void fix_total(Model& m, std::int64_t target) {
  auto largest = std::max_element(m.layers.begin(), m.layers.end(), [](const Layer& a, const Layer& b) {
    return a.params_trainable < b.params_trainable;
  });
  if (largest == m.layers.end()) return;
  largest->params_trainable = std::max<std::int64_t>(0, largest->params_trainable + target - m.params_total());
}
}  // namespace

Model widen_to_params(const Model& base, double params) {
  const std::int64_t base_params = base.params_total();
  if (!(params >= 1) || !std::isfinite(params) || params > kMaxSyntheticParams)
    throw InputError("model.params = " + format_number(params) + ": expected a parameter count from 1 to 1e13");
  if (base_params <= 0) throw InputError("model.params: the base model '" + base.name + "' has no parameters to scale");
  const double area = params / double(base_params);  // w^2
  const double width = std::sqrt(area);
  Model m = base;
  m.name = base.name + " widened to " + format_number(std::round(params)) + " params";
  for (Layer& l : m.layers) {
    l.params_trainable = scaled(l.params_trainable, area);
    l.params_non_trainable = scaled(l.params_non_trainable, area);
    l.fwd_flops *= area;
    l.in_elems = scaled(l.in_elems, width);
    l.out_elems = scaled(l.out_elems, width);
  }
  fix_total(m, std::int64_t(std::llround(params)));
  return m;
}

}  // namespace model_layer
}  // namespace ddlsim
