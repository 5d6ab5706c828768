#include "calibration/cuda_interference.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"

#ifdef DDLSIM_WITH_NCCL
#include <nccl.h>
#endif

namespace ddlsim {
inline namespace calibration_layer {

#ifndef DDLSIM_WITH_NCCL

InterferenceMeasurement measure_cuda_interference(int, const InterferenceOptions&) {
  throw InputError("--interference on cuda: this ddlsim_cuda was built without NCCL (nccl.h and libnccl were not "
                   "found when CMake ran); measure on cpu or leave the library's default");
}

#else

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(int(s)));
}
void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(r));
}

// FP32 GEMMs of 4096 x 4096 x 4096 (137 GFLOP each) on one GPU, timed with CUDA events.
class Gemm {
 public:
  explicit Gemm(int device) : device_(device) {
    check(cudaSetDevice(device_), "cudaSetDevice");
    const std::size_t bytes = std::size_t(kN) * kN * sizeof(float);
    for (float** p : {&a_, &b_, &c_}) {
      check(cudaMalloc(p, bytes), "cudaMalloc (GEMM operands)");
      check(cudaMemset(*p, 0, bytes), "cudaMemset");
    }
    check(cublasCreate(&handle_), "cublasCreate");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cublasSetStream(handle_, stream_), "cublasSetStream");
    check(cudaEventCreate(&t0_), "cudaEventCreate");
    check(cudaEventCreate(&t1_), "cudaEventCreate");
  }
  ~Gemm() {
    cudaSetDevice(device_);
    cudaEventDestroy(t0_);
    cudaEventDestroy(t1_);
    cublasDestroy(handle_);
    cudaStreamDestroy(stream_);
    for (float* p : {a_, b_, c_}) cudaFree(p);
  }
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  Seconds batch_s(int calls) {
    check(cudaSetDevice(device_), "cudaSetDevice");
    const float one = 1, zero = 0;
    check(cudaEventRecord(t0_, stream_), "cudaEventRecord");
    for (int i = 0; i < calls; ++i)
      check(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, kN, kN, kN, &one, a_, kN, b_, kN, &zero, c_, kN), "cublasSgemm");
    check(cudaEventRecord(t1_, stream_), "cudaEventRecord");
    check(cudaEventSynchronize(t1_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, t0_, t1_), "cudaEventElapsedTime");
    return ms * 1e-3;
  }

 private:
  static constexpr int kN = 4096;
  int device_;
  float *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
  cublasHandle_t handle_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t t0_ = nullptr, t1_ = nullptr;
};

// In-place FP32 allreduces of `bytes` between every GPU of the machine, one stream per GPU.
class Allreduce {
 public:
  Allreduce(int gpus, Bytes bytes) : comms_(std::size_t(gpus)), bufs_(std::size_t(gpus)), streams_(std::size_t(gpus)) {
    count_ = std::max<std::size_t>(1, std::size_t(bytes / sizeof(float)));
    check(ncclCommInitAll(comms_.data(), gpus, nullptr), "ncclCommInitAll");
    for (int g = 0; g < gpus; ++g) {
      check(cudaSetDevice(g), "cudaSetDevice");
      check(cudaMalloc(&bufs_[std::size_t(g)], count_ * sizeof(float)), "cudaMalloc (allreduce buffer)");
      check(cudaMemset(bufs_[std::size_t(g)], 0, count_ * sizeof(float)), "cudaMemset");
      check(cudaStreamCreateWithFlags(&streams_[std::size_t(g)], cudaStreamNonBlocking), "cudaStreamCreate");
    }
  }
  ~Allreduce() {
    for (std::size_t g = 0; g < comms_.size(); ++g) {
      cudaSetDevice(int(g));
      cudaStreamSynchronize(streams_[g]);
      ncclCommDestroy(comms_[g]);
      cudaStreamDestroy(streams_[g]);
      cudaFree(bufs_[g]);
    }
  }
  Allreduce(const Allreduce&) = delete;
  Allreduce& operator=(const Allreduce&) = delete;

  void enqueue(int calls) {
    for (int i = 0; i < calls; ++i) {
      check(ncclGroupStart(), "ncclGroupStart");
      for (std::size_t g = 0; g < comms_.size(); ++g)
        check(ncclAllReduce(bufs_[g], bufs_[g], count_, ncclFloat, ncclSum, comms_[g], streams_[g]), "ncclAllReduce");
      check(ncclGroupEnd(), "ncclGroupEnd");
    }
  }
  void sync() {
    for (std::size_t g = 0; g < comms_.size(); ++g) {
      check(cudaSetDevice(int(g)), "cudaSetDevice");
      check(cudaStreamSynchronize(streams_[g]), "cudaStreamSynchronize");
    }
  }
  // Host time of `calls` allreduces, queued and waited for.
  Seconds time_s(int calls) {
    const auto t0 = std::chrono::steady_clock::now();
    enqueue(calls);
    sync();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  std::vector<ncclComm_t> comms_;
  std::vector<float*> bufs_;
  std::vector<cudaStream_t> streams_;
  std::size_t count_ = 0;
};

Seconds median(std::vector<Seconds> t) {
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

}  // namespace

InterferenceMeasurement measure_cuda_interference(int device, const InterferenceOptions& o) {
  int gpus = 0;
  check(cudaGetDeviceCount(&gpus), "cudaGetDeviceCount");
  if (gpus < 2)
    throw InputError("--interference on cuda:" + std::to_string(device) + ": an NCCL allreduce moves data only between "
                     "two GPUs or more, and this machine has " + std::to_string(gpus) +
                     "; measure on cpu or leave the library's default");
  if (device < 0 || device >= gpus)
    throw InputError("--interference on cuda:" + std::to_string(device) + ": this machine has GPUs 0 to " +
                     std::to_string(gpus - 1));
  Gemm gemm(device);
  gemm.batch_s(2);  // warm-up: cuBLAS picks its kernel, clocks rise
  const int calls = std::max(1, int(std::ceil(o.min_time_s / std::max(1e-6, gemm.batch_s(1)))));
  InterferenceMeasurement m;
  std::vector<Seconds> alone, beside;
  for (int r = 0; r < o.repeats; ++r) alone.push_back(gemm.batch_s(calls));
  m.alone_s = median(alone);
  Allreduce ar(gpus, o.buffer_bytes);
  ar.time_s(2);  // warm-up: NCCL connects its rings on the first calls
  const Seconds per_call = std::max(1e-6, ar.time_s(4) / 4);
  // Enough allreduces queued to outlast the GEMM batch (1.5 times its time alone, at least 2).
  const int queued = std::max(2, int(std::ceil(1.5 * m.alone_s / per_call)));
  for (int r = 0; r < o.repeats; ++r) {
    ar.enqueue(queued);
    beside.push_back(gemm.batch_s(calls));
    ar.sync();
  }
  m.with_comm_s = median(beside);
  return m;
}

#endif

}  // namespace calibration_layer
}  // namespace ddlsim
