// `comm.algorithm = auto`: the algorithm each library picks by itself, by collective, ranks and
// message size, so that a scenario predicts what the library really runs.
//   mpi   Open MPI 4.1's fixed decision for commutative operations (coll/tuned,
//         ompi_coll_tuned_allreduce_intra_dec_fixed in coll_tuned_decision_fixed.c): by
//         communicator size and message size it picks recursive doubling (3), ring (4),
//         segmented ring (5: with the fixed rules' segment size of 0 it runs the plain ring) or
//         Rabenseifner (6); nonoverlapping (2, reduce then broadcast) and basic linear (1) are
//         costed as the binomial tree.
//   nccl  ring (NCCL's double binary tree, which NCCL prefers for small messages across nodes,
//         is not modelled yet).
//   gloo  ring (PyTorch's ProcessGroupGloo allreduce: gloo's ring).
//   gpi2  recursive halving-doubling (Tarantella's allreduce over GPI-2).
//   grpc  ring (TensorFlow's collective allreduce over gRPC).
// Other collectives have one algorithm each (collective_plan.hpp: algorithms_for).
#pragma once
#include "core/units.hpp"
#include "spec/comm.hpp"

namespace ddlsim {

// Open MPI 4.1's allreduce choice for `ranks` ranks and `bytes` bytes.
Algorithm open_mpi_allreduce(int ranks, Bytes bytes);

// The algorithm `m` runs for collective `c`: m.algorithm, or the library's choice when it is Auto.
Algorithm concrete_algorithm(const CommMethod& m, Collective c, int ranks, Bytes bytes);

}  // namespace ddlsim
