// `comm.algorithm = auto`: the algorithm each library picks by itself, by collective, ranks and
// message size, so that a scenario predicts what the library really runs.
//   mpi   Open MPI 4.1's fixed decision for commutative operations (coll/tuned,
//         ompi_coll_tuned_allreduce_intra_dec_fixed in coll_tuned_decision_fixed.c): by
//         communicator size and message size it picks recursive doubling (3), ring (4),
//         segmented ring (5: with the fixed rules' segment size of 0 it runs the plain ring) or
//         Rabenseifner (6); nonoverlapping (2, reduce then broadcast) and basic linear (1) are
//         costed as the binomial tree.
//   nccl  ring or dbtree, whichever NCCL's own tuning model predicts faster (nccl_allreduce); on one
//         node with an NVLink SHARP switch nvls where its closed form is faster still. NCCL
//         picks the algorithm and protocol of lowest predicted time (enqueue.cc getAlgoInfo);
//         only the Simple protocol is modelled (ddlsim's per-call cost is Ring/Simple's).
//   gloo  ring (PyTorch's ProcessGroupGloo allreduce calls gloo::allreduce with its default
//         algorithm, the ring; gloo's halving-doubling is only used when asked for: `rhd`).
//   gpi2  recursive halving-doubling (Tarantella's allreduce over GPI-2).
//   grpc  ring (TensorFlow's collective allreduce over gRPC).
// Other collectives have one algorithm each (collective_plan.hpp: algorithms_for).
#pragma once
#include "core/units.hpp"
#include "spec/comm.hpp"

namespace ddlsim {

// Open MPI 4.1's allreduce choice for `ranks` ranks and `bytes` bytes.
Algorithm open_mpi_allreduce(int ranks, Bytes bytes);

// NCCL's predicted time of an allreduce (NVIDIA/nccl src/graph/tuning.cc, NCCL 2.7 to 2.8,
// protocol Simple; times in us, bandwidths in GB/s there):
//   ring  lat = baseLat 8.4 + (2(p-1) - 2(N-1)) hwLat_intra 3.4 (NVLink) or 5.7 (PCI)
//               + 2(N-1) hwLat_net 9.6, x 1.9 when N > 1 and n >= p/16 x 64 KiB ("plateau");
//         bw  = busBw p / (2(p-1))
//   tree  lat = baseLat 0 + 2 ((p/N - 1) hwLat_intra 28 + floor(log2 N) hwLat_net 50);
//         bw  = min(0.9 busBw, 80 GB/s for N > 2 else 110) / 2, x treeCorrectionFactor[Simple]
//               [floor(log2(n / 64))] below 256 MiB (0.5 to 0.9)
//   time = lat + n / bw.
// busBw is the bounding route's bandwidth (inter-node across nodes), the intra-node row NVLink
// when the intra route is at least 40 GB/s. Ring and dbtree only (no NVLS, CollNet, LL, LL128).
Seconds nccl_model_time_s(Algorithm a, const CommTopology& topo, Bytes bytes);
Algorithm nccl_allreduce(const CommTopology& topo, Bytes bytes);

// The algorithm `m` runs for collective `c`: m.algorithm, or the library's choice when it is Auto.
Algorithm concrete_algorithm(const CommMethod& m, Collective c, const CommTopology& topo, Bytes bytes);

}  // namespace ddlsim
