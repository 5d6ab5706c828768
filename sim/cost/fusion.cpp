#include "cost/fusion.hpp"

namespace ddlsim {
inline namespace cost_layer {

bool is_pointwise(const Layer& l) {
  switch (l.kind) {
    case LayerKind::Activation: return l.fn != "softmax";
    case LayerKind::Add:
    case LayerKind::Multiply: return l.params_trainable == 0;  // a learned addend's gradient is a reduction
    case LayerKind::Dropout:
    case LayerKind::Permute:
    case LayerKind::Reshape:
    case LayerKind::Normalization: return true;
    default: return false;
  }
}

std::vector<std::vector<std::size_t>> pointwise_chains(const Model& m) {
  std::vector<std::vector<std::size_t>> chains;
  std::vector<int> chain_of(m.layers.size(), -1);
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const Layer& l = m.layers[i];
    if (!is_pointwise(l)) continue;
    // Join the chain of the first input that is pointwise and read by this layer alone.
    for (int j : l.inputs) {
      const Layer& p = m.layers[std::size_t(j)];
      if (!is_pointwise(p) || p.consumers != 1) continue;
      std::vector<std::size_t>& c = chains[std::size_t(chain_of[std::size_t(j)])];
      if (c.back() != std::size_t(j)) continue;  // j already leads on to another layer
      c.push_back(i);
      chain_of[i] = chain_of[std::size_t(j)];
      break;
    }
    if (chain_of[i] >= 0) continue;
    // A layer alone is a chain too: gelu_new's eight operations are one kernel once fused.
    chain_of[i] = int(chains.size());
    chains.push_back({i});
  }
  return chains;
}

}  // namespace cost_layer
}  // namespace ddlsim
