#include "cost/decision.hpp"

#include <vector>

#include "cost/collective_plan.hpp"

namespace ddlsim {

namespace {

// One row of Open MPI 4.1's table: below `ranks` ranks, the algorithm of the first size bound the
// message is under (bytes), else `otherwise`.
struct SizeRule {
  double below_bytes;
  int alg;
};
struct RankRule {
  int below_ranks;
  std::vector<SizeRule> sizes;
  int otherwise;
};

// coll_tuned_decision_fixed.c (Open MPI v4.1), allreduce, commutative operations.
const std::vector<RankRule>& open_mpi_table() {
  static const std::vector<RankRule> table = {
      {4, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}}, 6},
      {8, {{16, 4}, {8192, 3}}, 6},
      {16, {{8192, 3}}, 6},
      {32, {{64, 5}, {4096, 3}}, 6},
      {64, {{128, 5}}, 6},
      {128, {{262144, 3}}, 6},
      {256, {{131072, 2}, {262144, 3}}, 6},
      {512, {{4096, 2}}, 6},
      {2048, {{2048, 2}, {16384, 3}}, 6},
      {4096, {{2048, 2}, {4096, 5}, {16384, 3}}, 6},
      {1 << 30, {{2048, 2}, {16384, 5}, {32768, 3}}, 6},
  };
  return table;
}

Algorithm open_mpi_algorithm(int id) {
  switch (id) {
    case 3: return Algorithm::RecursiveDoubling;
    case 4:
    case 5: return Algorithm::Ring;
    case 6: return Algorithm::Rabenseifner;
    default: return Algorithm::Tree;  // 1 basic linear, 2 nonoverlapping: reduce then broadcast
  }
}

}  // namespace

Algorithm open_mpi_allreduce(int ranks, Bytes bytes) {
  for (const RankRule& rule : open_mpi_table()) {
    if (ranks >= rule.below_ranks) continue;
    for (const SizeRule& s : rule.sizes)
      if (bytes < s.below_bytes) return open_mpi_algorithm(s.alg);
    return open_mpi_algorithm(rule.otherwise);
  }
  return Algorithm::Rabenseifner;
}

Algorithm concrete_algorithm(const CommMethod& m, Collective c, int ranks, Bytes bytes) {
  if (m.algorithm != Algorithm::Auto) return m.algorithm;
  if (c != Collective::Allreduce) return algorithms_for(c).front();
  switch (m.library) {
    case Library::Mpi: return open_mpi_allreduce(ranks, bytes);
    case Library::Gpi2: return Algorithm::HalvingDoubling;
    default: return Algorithm::Ring;
  }
}

}  // namespace ddlsim
