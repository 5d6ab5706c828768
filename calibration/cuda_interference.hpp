// Interference on the GPU path (`ddlsim calibrate --device cuda:N --interference`, ddlsim_cuda
// only): a cuBLAS SGEMM batch on cuda:N timed alone and while NCCL allreduces run between all of
// this node's GPUs (one communicator over every visible GPU, ncclCommInitAll, each call as NCCL's
// own tests make it), the slow-down fraction as on the CPU path (calibration/interference.hpp).
// Needs NCCL at configure time and two GPUs or more; throws InputError saying which is missing.
#pragma once
#include "calibration/interference.hpp"

namespace ddlsim {
inline namespace calibration_layer {

InterferenceMeasurement measure_cuda_interference(int device, const InterferenceOptions& o);

}  // namespace calibration_layer
}  // namespace ddlsim
