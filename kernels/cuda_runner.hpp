// The GPU runner (kernels/cuda_runner.cu): cuBLAS GEMMs and CUDA kernels timed with CUDA events.
// Only built where nvcc was found; no CUDA header leaks out of this interface.
#pragma once
#include <memory>

#include "kernels/runner.hpp"

namespace ddlsim {
inline namespace kernels_layer {

// Throws InputError when device `index` cannot be used (no GPU, no driver, index out of range).
std::unique_ptr<KernelRunner> make_cuda_runner(int index);

}  // namespace kernels_layer
}  // namespace ddlsim
