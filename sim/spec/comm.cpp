#include "spec/comm.hpp"

#include "core/error.hpp"
#include "core/text.hpp"

namespace ddlsim {

Algorithm parse_algorithm(const std::string& text, const std::string& key) {
  const std::string t = to_lower(text);
  if (t == "ring") return Algorithm::Ring;
  if (t == "rhd" || t == "halving_doubling") return Algorithm::HalvingDoubling;
  if (t == "tree") return Algorithm::Tree;
  if (t == "hierarchical") return Algorithm::Hierarchical;
  if (t == "ps" || t == "parameter_server") return Algorithm::ParameterServer;
  throw InputError(key + " = '" + clip(text) + "': expected one of ring, rhd, tree, hierarchical, ps");
}

const char* to_string(Algorithm a) {
  switch (a) {
    case Algorithm::Ring: return "ring";
    case Algorithm::HalvingDoubling: return "rhd";
    case Algorithm::Tree: return "tree";
    case Algorithm::Hierarchical: return "hierarchical";
    case Algorithm::ParameterServer: return "ps";
  }
  return "?";
}

}  // namespace ddlsim
