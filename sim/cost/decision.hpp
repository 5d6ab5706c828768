// `comm.algorithm = auto`: the algorithm each library picks by itself, by collective, ranks and
// message size, so that a scenario predicts what the library really runs.
//   mpi   Open MPI 4.1's fixed decision for commutative operations (coll/tuned,
//         ompi_coll_tuned_allreduce_intra_dec_fixed in coll_tuned_decision_fixed.c): by
//         communicator size and message size it picks recursive doubling (3), ring (4),
//         segmented ring (5: with the fixed rules' segment size of 0 it runs the plain ring) or
//         Rabenseifner (6); nonoverlapping (2, reduce then broadcast) and basic linear (1) are
//         costed as the binomial tree.
//   nccl  ring or dbtree with the protocol (LL, LL128, Simple) NCCL's own tuning model predicts
//         fastest (enqueue.cc getAlgoInfo picks the pair of lowest predicted time); with an
//         NVLink SHARP switch nvls (one node) or nvls_tree (several) where its closed form, as
//         the library runs it (steps in flight), is faster still. A forced
//         algorithm still gets NCCL's protocol choice (cost/protocol.hpp runs it).
//   gloo  ring (PyTorch's ProcessGroupGloo allreduce calls gloo::allreduce with its default
//         algorithm, the ring; gloo's halving-doubling, in binary blocks, only when asked for:
//         `rhd`).
//   gpi2  recursive halving-doubling (Tarantella's allreduce over GPI-2).
//   grpc  ring (TensorFlow's collective allreduce over gRPC).
// Other collectives have one algorithm each (collective_plan.hpp: algorithms_for).
#pragma once
#include "core/units.hpp"
#include "spec/comm.hpp"

namespace ddlsim {
inline namespace cost_layer {

// Open MPI 4.1's allreduce choice for `ranks` ranks and `bytes` bytes.
Algorithm open_mpi_allreduce(int ranks, Bytes bytes);

// NCCL's predicted time of an allreduce with protocol `proto` (NVIDIA/nccl src/graph/tuning.cc at
// master 5067397c; times in us, bandwidths in GB/s there; latencies in spec/comm.hpp nccl_tuning):
//   ring  lat = baseLat + (2(p-1) - 2(N-1)) hwLat_intra (NVLink or PCI; when N > 1 at least the
//               network's post overhead, 1 us, x 3 with Simple) + 2(N-1) hwLat_net; Simple x 1.4
//               (x 1.9 before Ampere) when N > 1 and n >= p/16 x 64 KiB ("plateau effect of ring");
//         bw  = busBw x efficiency p / (2(p-1))
//   tree  lat = baseLat + 2 ((p/N - 1) hwLat_intra + floor(log2 N) hwLat_net);
//         bw  = min(0.9 busBw, 80 GB/s for N > 2 else 110) x efficiency / 2 (NCCL 2.7's caps:
//               the per-channel ones of later versions need channel counts ddlsim does not model),
//               x treeCorrectionFactor[proto][floor(log2(n / 64))] (0.4 to 1)
//   time = lat + n / bw; efficiency: cost/protocol.hpp (Simple 1).
// busBw is the bounding route's bandwidth (inter-node across nodes), the intra-node row NVLink
// when the node's GPUs talk over NVLink (CommTopology::intra_nvlink). Ring and dbtree only (no NVLS, CollNet).
// Other collectives run the ring only, with their own step counts: reduce-scatter and allgather
// p - 1 steps (N - 1 across nodes), latency as the allreduce's; broadcast and reduce p steps and
// one hop's latency (hwLat of the ring's hop: NVLink or PCI on one node, else network; tuning.cc
// with its rings on the same channels), no plateau; bw = busBw x efficiency x p / steps.
Seconds nccl_model_time_s(Algorithm a, const CommTopology& topo, Bytes bytes, Protocol proto = Protocol::Simple,
                          Collective c = Collective::Allreduce);

struct NcclChoice {
  Algorithm algorithm;
  Protocol protocol;
};
// The protocol NCCL runs algorithm `a` with: `allowed` where it is not Auto (NCCL_PROTO; Simple
// where it cannot run), else the fastest by NCCL's model; Simple for algorithms other than ring
// and dbtree, and wherever NCCL's latencies are off (topo.nccl_protocols false).
NcclChoice nccl_choice(Algorithm a, const CommTopology& topo, Bytes bytes, Protocol allowed = Protocol::Auto,
                       Collective c = Collective::Allreduce);
// `auto`: the algorithm and protocol NCCL runs an allreduce with, among the `allowed` protocols.
NcclChoice nccl_allreduce_choice(const CommTopology& topo, Bytes bytes, Protocol allowed = Protocol::Auto);
Algorithm nccl_allreduce(const CommTopology& topo, Bytes bytes, Protocol allowed = Protocol::Auto);

// The algorithm `m` runs for collective `c`: m.algorithm, or the library's choice when it is Auto or
// `c` has no such algorithm.
Algorithm concrete_algorithm(const CommMethod& m, Collective c, const CommTopology& topo, Bytes bytes);

// A call as the library runs it: the algorithm, NCCL's protocol (Simple unless topo.nccl_protocols;
// every collective but all-to-all, which NCCL runs as point-to-point sends), and the topology and
// bytes its rounds run with (cost/protocol.hpp). Both backends run each bucket's exchange through
// this.
struct LibraryCall {
  Algorithm algorithm;
  Protocol protocol;
  CommTopology topo;
  Bytes bytes;
};
LibraryCall library_call(const CommMethod& m, Collective c, const CommTopology& topo, Bytes bytes);
// The eager limit a call runs with: MPI's (CommMethod::eager_limit_bytes), none for NCCL and gloo,
// except that a topology already resolved for a call (simgrid_collective_s) keeps its own.
Bytes eager_limit_bytes(const CommMethod& m, const CommTopology& topo);

}  // namespace cost_layer
}  // namespace ddlsim
