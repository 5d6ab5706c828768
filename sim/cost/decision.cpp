#include "cost/decision.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "cost/collective_plan.hpp"
#include "cost/collectives.hpp"
#include "cost/protocol.hpp"

namespace ddlsim {
inline namespace cost_layer {

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

// tuning.cc treeCorrectionFactor[protocol]: powers of two from 64 B, applied below 2^23 x 64 B
// (512 MiB).
double tree_correction(Protocol p, int log_size) {
  static const std::array<std::array<double, 23>, 3> f = {{
      {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
      {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
  }};
  return log_size < 23 ? f[std::size_t(p)][std::size_t(log_size)] : 1.0;
}

int floor_log2(long long v) {
  int l = 0;
  while (v >= 2) {
    v /= 2;
    ++l;
  }
  return l;
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

Seconds nccl_model_time_s(Algorithm a, const CommTopology& topo, Bytes bytes, Protocol proto, Collective c) {
  using namespace nccl_tuning;
  const int p = topo.ranks(), nodes = topo.nodes;
  if (p <= 1) return 0;
  const double eff = protocol_efficiency(a, proto, topo, c);
  if (a == Algorithm::Ring) {
    const Latencies& l = kRing[int(proto)];
    Seconds intra_s = intra_step_s(l, topo.intra_nvlink);
    if (nodes > 1) intra_s = std::max(intra_s, kNetOverhead_s * (proto == Protocol::Simple ? kNetOverheadSimple : 1));
    const bool allreduce = c == Collective::Allreduce, chain = c == Collective::Broadcast || c == Collective::Reduce;
    const int steps = allreduce ? 2 * (p - 1) : chain ? p : p - 1;
    const int inter_steps = allreduce ? 2 * (nodes - 1) : chain ? nodes : nodes - 1;
    const Seconds net_s = net_step_s(l.net, proto, topo);
    double lat_us = 1e6 * (l.base + (steps - inter_steps) * intra_s + inter_steps * net_s);
    if (chain) lat_us = 1e6 * (l.base + (nodes > 1 ? net_s : intra_step_s(l, topo.intra_nvlink)));
    if (allreduce && proto == Protocol::Simple && nodes > 1 && bytes >= p / 16.0 * 65536)
      lat_us *= topo.intra.bw_Bps >= kAmpereIntraMin_Bps ? 1.4 : 1.9;
    return lat_us * 1e-6 + bytes / (topo.flat_route().bw_Bps * eff * p / steps);
  }
  const Latencies& l = kTree[int(proto)];
  const double lat_us =
      1e6 * (l.base + 2 * ((p / nodes - 1) * intra_step_s(l, topo.intra_nvlink) + floor_log2(nodes) * net_step_s(l.net, proto, topo)));
  double bw = nccl_tree_bus_Bps(topo) * eff / 2;
  const int log_size = bytes >= 64 ? floor_log2((long long)(bytes / 64)) : 0;  // NCCL: log2i(nBytes >> 6)
  bw *= tree_correction(proto, log_size);
  return lat_us * 1e-6 + bytes / bw;
}

NcclChoice nccl_choice(Algorithm a, const CommTopology& topo, Bytes bytes, Protocol allowed, Collective c) {
  NcclChoice best{a, Protocol::Simple};
  const bool modelled = a == Algorithm::Ring || (a == Algorithm::DoubleBinaryTree && c == Collective::Allreduce);
  if (!topo.nccl_protocols || !modelled || c == Collective::Alltoall) return best;
  if (allowed != Protocol::Auto) return {a, protocol_enabled(allowed, topo) ? allowed : Protocol::Simple};
  Seconds best_s = nccl_model_time_s(a, topo, bytes, Protocol::Simple, c);
  for (Protocol p : {Protocol::LL, Protocol::LL128}) {
    if (!protocol_enabled(p, topo)) continue;
    const Seconds t = nccl_model_time_s(a, topo, bytes, p, c);
    if (t < best_s) best = {a, p}, best_s = t;
  }
  return best;
}

Seconds run_time_s(const NcclChoice& c, const CommTopology& topo, Bytes bytes) {
  const double eff = protocol_efficiency(c.algorithm, c.protocol, topo);
  return collective_time_s(c.algorithm, protocol_topology(topo, c.algorithm, c.protocol, eff), bytes / eff);
}

NcclChoice nccl_allreduce_choice(const CommTopology& topo, Bytes bytes, Protocol allowed) {
  NcclChoice best = nccl_choice(Algorithm::Ring, topo, bytes, allowed);
  const NcclChoice tree = nccl_choice(Algorithm::DoubleBinaryTree, topo, bytes, allowed);
  if (nccl_model_time_s(tree.algorithm, topo, bytes, tree.protocol) < nccl_model_time_s(best.algorithm, topo, bytes, best.protocol))
    best = tree;
  // NVLS: tuning.cc's constants for it are not modelled; it runs where its closed form beats the
  // choice above (NCCL enables it by default where the switch has it, NCCL_NVLS_ENABLE).
  // Across nodes, NVLS with trees between them (NVLSTree, NCCL 2.18+), likewise; and CollNet
  // Direct where the network's switches reduce (NCCL_COLLNET_ENABLE=1 with the SHARP plugin).
  const std::pair<bool, Algorithm> in_switch[] = {{topo.nvls_available(), Algorithm::Nvls},
                                                  {topo.nvls_tree_available(), Algorithm::NvlsTree},
                                                  {topo.collnet_available(), Algorithm::CollnetDirect}};
  Seconds best_s = run_time_s(best, topo, bytes);
  for (const auto& [available, algorithm] : in_switch) {
    if (!available) continue;
    const NcclChoice c{algorithm, Protocol::Simple};
    const Seconds t = run_time_s(c, topo, bytes);
    if (t < best_s) best = c, best_s = t;
  }
  return best;
}

Algorithm nccl_allreduce(const CommTopology& topo, Bytes bytes, Protocol allowed) {
  return nccl_allreduce_choice(topo, bytes, allowed).algorithm;
}

Algorithm concrete_algorithm(const CommMethod& m, Collective c, const CommTopology& topo, Bytes bytes) {
  // The algorithm set for the gradients' allreduce, where this collective has it (a synchronised
  // layer's allgather on a scenario of comm.algorithm = tree takes the library's own).
  if (m.algorithm != Algorithm::Auto && supports(c, m.algorithm)) return m.algorithm;
  // NCCL broadcasts and reduces along its ring; the others' default is a binomial tree.
  if (c == Collective::Broadcast || c == Collective::Reduce)
    return m.library == Library::Nccl ? Algorithm::Ring : Algorithm::Tree;
  if (c != Collective::Allreduce) return algorithms_for(c).front();
  switch (m.library) {
    case Library::Mpi: return open_mpi_allreduce(topo.ranks(), bytes);
    case Library::Nccl: return nccl_allreduce(topo, bytes, m.protocol);
    case Library::Gpi2: return Algorithm::HalvingDoubling;
    default: return Algorithm::Ring;
  }
}

Bytes eager_limit_bytes(const CommMethod& m, const CommTopology& topo) {
  return m.library == Library::Mpi ? m.eager_limit_bytes : topo.eager_limit_bytes;
}

LibraryCall library_call(const CommMethod& m, Collective c, const CommTopology& topo, Bytes bytes) {
  CommTopology as_run = topo;
  as_run.steps_in_flight = m.library == Library::Nccl && m.ring_steps_in_flight;
  as_run.binary_blocks = topo.binary_blocks || m.library == Library::Gloo;
  as_run.eager_limit_bytes = eager_limit_bytes(m, topo);
  // The choice compares ddlsim's own closed forms (nvls, nvls_tree) as the library runs them; NCCL's
  // own allreduce choice gives the algorithm and its protocol at once.
  const auto run_with = [&](Algorithm a, Protocol p) {
    const double eff = protocol_efficiency(a, p, topo, c);
    return LibraryCall{a, p, protocol_topology(as_run, a, p, eff), bytes / eff};
  };
  const bool protocols = topo.nccl_protocols && topo.ranks() > 1;
  if (protocols && c == Collective::Allreduce && m.algorithm == Algorithm::Auto && m.library == Library::Nccl) {
    const NcclChoice choice = nccl_allreduce_choice(as_run, bytes, m.protocol);
    return run_with(choice.algorithm, choice.protocol);
  }
  const Algorithm a = concrete_algorithm(m, c, as_run, bytes);
  if (!protocols) return {a, Protocol::Simple, as_run, bytes};
  return run_with(a, nccl_choice(a, topo, bytes, m.protocol, c).protocol);
}

}  // namespace cost_layer
}  // namespace ddlsim
