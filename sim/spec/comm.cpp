#include "spec/comm.hpp"

#include <utility>
#include <vector>

#include "core/parse.hpp"

namespace ddlsim {

Algorithm parse_algorithm(const std::string& text, const std::string& key) {
  static const std::vector<std::pair<std::string, Algorithm>> names = {
      {"ring", Algorithm::Ring},         {"rhd", Algorithm::HalvingDoubling},
      {"halving_doubling", Algorithm::HalvingDoubling}, {"tree", Algorithm::Tree},
      {"hierarchical", Algorithm::Hierarchical},        {"ps", Algorithm::ParameterServer},
      {"parameter_server", Algorithm::ParameterServer}};
  return lookup(names, text, key, "", "ring, rhd, tree, hierarchical, ps");
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
