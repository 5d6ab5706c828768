#include "predict/collective_prediction.hpp"

#include <cmath>

#include "backend/backend.hpp"
#include "core/error.hpp"
#include "cost/collective_plan.hpp"
#include "cost/collectives.hpp"
#include "cost/decision.hpp"
#include "cost/library_costs.hpp"

namespace ddlsim {
inline namespace predict_layer {

namespace {

void check_supported(Collective op, Algorithm a) {
  if (a == Algorithm::Auto || supports(op, a)) return;
  std::string names;
  for (Algorithm x : algorithms_for(op)) names += std::string(names.empty() ? "" : ", ") + to_string(x);
  throw InputError(std::string("algorithm '") + to_string(a) + "' does not run " + to_string(op) +
                   "; expected " + names + " or auto");
}

}  // namespace

Algorithm benchmark_algorithm(const Scenario& sc, bool sets_algorithm, Collective op) {
  return op == Collective::Allreduce && sets_algorithm ? sc.execution.algorithm : Algorithm::Auto;
}

CollectivePrediction predict_collective(const Scenario& sc, Collective op, const std::vector<Bytes>& sizes) {
  const Execution& e = sc.execution;
  const System& sys = sc.system;
  check_supported(op, e.algorithm);
  CollectivePrediction out;
  out.op = op;
  out.platform = sys.cluster.name;
  out.library = to_string(e.library);
  out.backend = to_string(sc.backend);
  out.nodes = sys.nodes;
  out.gpus_per_node = sys.cluster.gpus_per_node;
  out.ranks = sys.ranks();
  const CommTopology topo = comm_topology(sys, sys.nodes, sys.cluster.gpus_per_node, e.ps_servers);
  // What a call costs besides its rounds, as on a training step's exchange: the library's per-call
  // cost (NCCL's base latency) and host staging (MPI and gloo on GPUs copy through the host).
  const LibraryCosts lib = library_costs(e, sys, &topo);
  for (Bytes n : sizes) {
    CollectiveRow r;
    r.bytes = n;
    r.count = (long long)(n / 4);
    const LibraryCall k = library_call(e.comm(), op, topo, n);
    r.algorithm = to_string(k.algorithm);
    if (topo.nccl_protocols && op != Collective::Alltoall) r.protocol = to_string(k.protocol);
    r.time_s = lib.per_call_s + lib.nccl_residual_s(n, op) + lib.staging_s(n) + collective_s(sc.backend, op, k, sys, sc.simgrid);
    r.algbw_Bps = algbw_Bps(n, r.time_s);
    r.busbw_Bps = busbw_Bps(op, n, r.time_s, out.ranks);
    if (!std::isfinite(r.time_s) || !std::isfinite(r.busbw_Bps))
      throw InputError("the scenario's values give a non-finite collective time; check for extreme bandwidths or "
                       "latencies");
    out.rows.push_back(r);
  }
  return out;
}

}  // namespace predict_layer
}  // namespace ddlsim
