// GPU runner: GEMMs through cuBLAS (cublasGemmEx; the batched ones of attention and grouped
// convolutions cublasGemmStridedBatchedEx: FP32, TF32 tensor cores, or FP16 tensor cores with FP32
// accumulation), the memory-bound kernels as simple grid-stride CUDA kernels, all on one stream
// and timed with CUDA events around the launches.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "kernels/cuda_runner.hpp"

namespace ddlsim {
inline namespace kernels_layer {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(int(s)));
}

template <class T> __device__ float ld(const T* p, long long i) { return float(p[i]); }
template <> __device__ float ld<__half>(const __half* p, long long i) { return __half2float(p[i]); }
template <class T> __device__ void st(T* p, long long i, float v) { p[i] = T(v); }
template <> __device__ void st<__half>(__half* p, long long i, float v) { p[i] = __float2half(v); }

#define GRID_STRIDE(i, n) for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); i += (long long)gridDim.x * blockDim.x)

template <class T> __global__ void k_copy(const T* x, T* y, long long n) { GRID_STRIDE(i, n) y[i] = x[i]; }
template <class T> __global__ void k_window(const T* x, T* y, long long n, long long in, int taps) {
  const double step = double(in) / double(n);
  GRID_STRIDE(o, n) {
    const long long base = (long long)(double(o) * step);
    float acc = 0;
    for (int j = 0; j < taps; ++j) acc += ld(x, min(base + j, in - 1)) * 0.25f;
    st(y, o, acc);
  }
}
// Column sums of a rows x channels matrix (channels fastest: batch-norm statistics, bias
// gradients). A block of 32 x 8 threads takes 32 neighbouring channels (coalesced reads) and a
// slice of the rows; its 8 row lanes meet in shared memory and one atomicAdd per channel and block
// adds the partial sum into y (zeroed first), so millions of rows spread over the whole GPU.
constexpr int kReduceLanes = 8;
template <class T> __global__ void k_reduce(const T* x, float* y, long long channels, long long rows,
                                            long long rows_per_block) {
  __shared__ float part[kReduceLanes][33];
  const long long c = blockIdx.x * 32LL + threadIdx.x;
  const long long r0 = blockIdx.y * rows_per_block, r1 = min(rows, r0 + rows_per_block);
  float acc = 0;
  if (c < channels)
    for (long long r = r0 + threadIdx.y; r < r1; r += kReduceLanes) acc += ld(x, r * channels + c);
  part[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && c < channels) {
    for (int l = 1; l < kReduceLanes; ++l) acc += part[l][threadIdx.x];
    atomicAdd(&y[c], acc);
  }
}
// Pseudo-random values in [-1, 1) as FP16 words (a hash of the index): valid halves, and read as
// FP32 pairs they are finite too. Zero-filled buffers let tensor cores draw less power than on
// real data, which flatters the times.
__global__ void k_fill(unsigned short* p, long long n, unsigned seed) {
  GRID_STRIDE(i, n) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    p[i] = __half_as_ushort(__float2half(float(h & 0xFFFF) / 32768.0f - 1.0f));
  }
}
__global__ void k_sgd(float* w, const float* g, float* v, long long n) {
  GRID_STRIDE(i, n) {
    v[i] = 0.9f * v[i] + g[i];
    w[i] -= 0.01f * v[i];
  }
}
__global__ void k_axpy(const float* g, float* acc, long long n) { GRID_STRIDE(i, n) acc[i] += g[i]; }

// One device buffer that grows to the largest need it is given, filled with pseudo-random data.
struct Buffer {
  void* p = nullptr;
  std::size_t bytes = 0;
  void release() {
    cudaFree(p);
    p = nullptr;
    bytes = 0;
  }
  // The harness checks the same sizes against the free memory first (buffer_bytes and
  // memory_budget); a cudaMalloc that still fails is an input error, not a crash.
  void reserve(double need_bytes, unsigned seed) {
    const std::size_t need = (std::size_t(need_bytes) + 255) / 256 * 256;
    if (need <= bytes) return;
    release();
    const cudaError_t e = cudaMalloc(&p, need);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // clear the error
      throw InputError("--batch: a kernel needs a device buffer of " + std::to_string(need >> 20) +
                       " MiB and cudaMalloc could not allocate it; calibrate smaller batches");
    }
    check(e, "cudaMalloc");
    const long long words = (long long)(need / 2);
    k_fill<<<int(std::min<long long>((words + 255) / 256, 65535)), 256>>>(static_cast<unsigned short*>(p), words, seed);
    check(cudaDeviceSynchronize(), "filling a buffer");
    bytes = need;
  }
  ~Buffer() { release(); }
};

struct Arenas {
  Buffer a, b, c;
  void reserve(const KernelBuffers& need) { a.reserve(need.a, 1), b.reserve(need.b, 2), c.reserve(need.c, 3); }
};

struct Context {
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  Arenas arenas;
};

class CudaGemm : public PreparedKernel {
 public:
  CudaGemm(const KernelSpec& s, Context& ctx) : s_(s), ctx_(ctx) { ctx.arenas.reserve(kernel_buffers(s)); }
  void launch() override {
    const auto& g = s_.gemm;
    const float alpha = 1, beta = 0;
    const bool half = s_.precision == Precision::Mixed;
    const cudaDataType_t type = half ? CUDA_R_16F : CUDA_R_32F;
    const cublasComputeType_t compute =
        s_.precision == Precision::TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    const cublasOperation_t ta = g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, tb = g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int lda = int(g.trans_a ? g.k : g.m), ldb = int(g.trans_b ? g.n : g.k);
    if (g.count > 1) {  // per-head or per-group products on consecutive matrices
      check(cublasGemmStridedBatchedEx(ctx_.blas, ta, tb, int(g.m), int(g.n), int(g.k), &alpha, ctx_.arenas.a.p, type,
                                       lda, g.m * g.k, ctx_.arenas.b.p, type, ldb, g.k * g.n, &beta, ctx_.arenas.c.p,
                                       type, int(g.m), g.m * g.n, int(g.count), compute, CUBLAS_GEMM_DEFAULT),
            "cublasGemmStridedBatchedEx");
      return;
    }
    check(cublasGemmEx(ctx_.blas, ta, tb, int(g.m), int(g.n), int(g.k), &alpha, ctx_.arenas.a.p, type, lda,
                       ctx_.arenas.b.p, type, ldb, &beta, ctx_.arenas.c.p, type, int(g.m), compute,
                       CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  }

 private:
  KernelSpec s_;
  Context& ctx_;
};

class CudaMem : public PreparedKernel {
 public:
  CudaMem(const KernelSpec& s, Context& ctx) : s_(s), ctx_(ctx) { ctx.arenas.reserve(kernel_buffers(s)); }
  void launch() override {
    if (s_.precision == Precision::Mixed && s_.op != MemOp::Sgd && s_.op != MemOp::Axpy)
      run<__half>();
    else
      run<float>();
  }

 private:
  template <class T>
  void run() {
    const long long n = s_.out_elems, in = s_.in_elems;
    T* a = static_cast<T*>(ctx_.arenas.a.p);
    T* c = static_cast<T*>(ctx_.arenas.c.p);
    const int threads = 256;
    const int blocks = int(std::min<long long>((n + threads - 1) / threads, 65535));
    cudaStream_t st = ctx_.stream;
    switch (s_.op) {
      case MemOp::Stream: k_copy<T><<<blocks, threads, 0, st>>>(a, c, n); break;
      case MemOp::Window: k_window<T><<<blocks, threads, 0, st>>>(a, c, n, in, s_.window); break;
      case MemOp::Reduce: {
        // n channels, in / n rows; the sums accumulate in c read as floats (zeroed first).
        const long long rows = std::max<long long>(in / n, 1);
        const long long slices = std::min<long long>((rows + 2047) / 2048, 1024);
        const dim3 grid(unsigned((n + 31) / 32), unsigned(slices)), block(32, kReduceLanes);
        check(cudaMemsetAsync(c, 0, std::size_t(n) * sizeof(float), st), "cudaMemsetAsync");
        k_reduce<T><<<grid, block, 0, st>>>(a, reinterpret_cast<float*>(c), n, rows, (rows + slices - 1) / slices);
        break;
      }
      case MemOp::Sgd:
        k_sgd<<<blocks, threads, 0, st>>>((float*)ctx_.arenas.a.p, (float*)ctx_.arenas.b.p, (float*)ctx_.arenas.c.p, n);
        break;
      case MemOp::Axpy: k_axpy<<<blocks, threads, 0, st>>>((float*)ctx_.arenas.b.p, (float*)ctx_.arenas.c.p, n); break;
    }
    check(cudaGetLastError(), "kernel launch");
  }

  KernelSpec s_;
  Context& ctx_;
};

class CudaRunner : public KernelRunner {
  static constexpr int kLaunches = 10;

 public:
  explicit CudaRunner(int index) : index_(index) {
    check(cudaSetDevice(index), "cudaSetDevice");
    check(cudaGetDeviceProperties(&props_, index), "cudaGetDeviceProperties");
    check(cudaStreamCreate(&ctx_.stream), "cudaStreamCreate");
    check(cublasCreate(&ctx_.blas), "cublasCreate");
    check(cublasSetStream(ctx_.blas, ctx_.stream), "cublasSetStream");
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~CudaRunner() override {
    cudaEventDestroy(start_), cudaEventDestroy(stop_);
    cublasDestroy(ctx_.blas);
    cudaStreamDestroy(ctx_.stream);
  }
  std::string device() const override {
    return "cuda:" + std::to_string(index_) + ": " + props_.name + " (sm_" + std::to_string(props_.major) +
           std::to_string(props_.minor) + ")";
  }
  std::string kind() const override { return "cuda"; }
  std::string clock() const override {
    return "CUDA events around " + std::to_string(kLaunches) + " back-to-back launches on one stream, / " +
           std::to_string(kLaunches);
  }
  int launches_per_sample() const override { return kLaunches; }
  void check_precision(Precision p) const override {
    if (p == Precision::TF32 && props_.major < 8)
      throw InputError("--precision tf32: " + device() + " has no TF32 tensor cores (needs sm_80 or newer)");
  }
  MemoryBudget memory_budget() const override {
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return {};
    return {0.9 * double(free_b), "90 % of the " + std::to_string(free_b >> 20) + " MiB free on " + device()};
  }
  std::unique_ptr<PreparedKernel> prepare(const KernelSpec& s) override {
    if (s.is_gemm) return std::make_unique<CudaGemm>(s, ctx_);
    return std::make_unique<CudaMem>(s, ctx_);
  }
  double time_s(const std::vector<PreparedKernel*>& kernels, int passes) override {
    check(cudaEventRecord(start_, ctx_.stream), "cudaEventRecord");
    for (int p = 0; p < passes; ++p)
      for (PreparedKernel* k : kernels) k->launch();
    check(cudaEventRecord(stop_, ctx_.stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return 1e-3 * double(ms) / std::max(passes, 1);
  }

 private:
  int index_;
  cudaDeviceProp props_{};
  Context ctx_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace

std::unique_ptr<KernelRunner> make_cuda_runner(int index) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  const std::string where = "--device cuda:" + std::to_string(index);
  if (e != cudaSuccess || count == 0)
    throw InputError(where + ": no CUDA device available (" +
                     (e != cudaSuccess ? std::string(cudaGetErrorString(e)) : std::string("0 devices")) +
                     "); run on a GPU node (e.g. `srun --gres=gpu:1 ...`) or use --device cpu");
  if (index >= count)
    throw InputError(where + ": only " + std::to_string(count) + " CUDA device(s) visible (cuda:0 .. cuda:" +
                     std::to_string(count - 1) + ")");
  return std::make_unique<CudaRunner>(index);
}

}  // namespace kernels_layer
}  // namespace ddlsim
