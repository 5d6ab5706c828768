// Interference of communication with compute on the CPU path (`ddlsim calibrate --interference`):
// a GEMM-heavy kernel is timed alone and while communication threads run MPI/gloo-like local
// allreduce traffic beside it (each thread reduces a peer's buffer into its own and copies the
// result back, the memory traffic of a shared-memory ring allreduce between two local ranks);
// the slow-down fraction is written into the calibration file (cost/library_costs.hpp uses it).
// The GPU path (NCCL allreduces beside a cuBLAS GEMM) is calibration/cuda_interference.hpp.
#pragma once
#include "core/units.hpp"

namespace ddlsim {
inline namespace calibration_layer {

struct InterferenceOptions {
  int comm_threads = 1;        // communication threads running beside the kernel
  Bytes buffer_bytes = 32 * kMiB;  // each thread's allreduce buffer
  Seconds min_time_s = 0.2;    // per timing; the median of `repeats` timings is kept
  int repeats = 5;
};

struct InterferenceMeasurement {
  Seconds alone_s = 0;         // median GEMM batch time alone
  Seconds with_comm_s = 0;     // ... with the communication threads running
  double factor() const { return alone_s > 0 ? with_comm_s / alone_s - 1 : 0; }
};

InterferenceMeasurement measure_cpu_interference(const InterferenceOptions& o);

}  // namespace calibration_layer
}  // namespace ddlsim
