// CPU twin of the GPU kernels: the same GEMM shapes through Eigen (single-threaded) and simple
// streaming loops for the memory-bound kernels. Time is the calling thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID), the CPU counterpart of CUDA events: it counts only the work of the
// kernels, not time lost to other processes on a shared machine.
#include <time.h>
#include <unistd.h>

#include <Eigen/Dense>
#include <fmt/format.h>
#include <algorithm>
#include <fstream>

#include "core/error.hpp"
#include "core/text.hpp"
#include "kernels/runner.hpp"

namespace ddlsim {
inline namespace kernels_layer {

namespace {

using MatMap = Eigen::Map<Eigen::MatrixXf>;
using ArrMap = Eigen::Map<Eigen::ArrayXf>;

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return trim(line.substr(line.find(':') + 1));
  return "unknown";
}

// Three scratch arenas shared by all kernels (inputs are read from a and b, outputs written to c);
// their contents do not change the time of these kernels.
struct Arenas {
  std::vector<float> a, b, c;
  void reserve(const KernelBuffers& need) {  // fp32 only: bytes / 4 floats
    const auto grow = [](std::vector<float>& v, double bytes) {
      if (v.size() < std::size_t(bytes / 4)) v.assign(std::size_t(bytes / 4), 1e-3f);
    };
    grow(a, need.a), grow(b, need.b), grow(c, need.c);
  }
};

class CpuGemm : public PreparedKernel {
 public:
  CpuGemm(const KernelSpec& s, Arenas& ar) : g_(s.gemm), ar_(ar) { ar.reserve(kernel_buffers(s)); }
  void launch() override {
    const Eigen::Index m = g_.m, n = g_.n, k = g_.k;
    for (Eigen::Index i = 0; i < g_.count; ++i) {
      float* a = ar_.a.data() + i * m * k;
      float* b = ar_.b.data() + i * k * n;
      MatMap c(ar_.c.data() + i * m * n, m, n);
      if (g_.trans_a)
        c.noalias() = MatMap(a, k, m).transpose() * MatMap(b, k, n);
      else if (g_.trans_b)
        c.noalias() = MatMap(a, m, k) * MatMap(b, n, k).transpose();
      else
        c.noalias() = MatMap(a, m, k) * MatMap(b, k, n);
    }
  }

 private:
  GemmShape g_;
  Arenas& ar_;
};

class CpuMem : public PreparedKernel {
 public:
  CpuMem(const KernelSpec& s, Arenas& ar) : s_(s), ar_(ar) { ar.reserve(kernel_buffers(s)); }
  void launch() override {
    const Eigen::Index n = s_.out_elems, in = s_.in_elems;
    float* a = ar_.a.data();
    float* b = ar_.b.data();
    float* c = ar_.c.data();
    switch (s_.op) {
      case MemOp::Stream: std::copy(a, a + n, c); break;
      case MemOp::Sgd:
        ArrMap(c, n) = 0.9f * ArrMap(c, n) + ArrMap(b, n);
        ArrMap(a, n) -= 0.01f * ArrMap(c, n);
        break;
      case MemOp::Axpy: ArrMap(c, n) += ArrMap(b, n); break;
      case MemOp::Reduce: {
        const Eigen::Index rows = std::max<Eigen::Index>(in / n, 1);
        Eigen::Map<Eigen::VectorXf>(c, n) = MatMap(a, n, rows).rowwise().sum();
        break;
      }
      case MemOp::Window: window(a, c, n, in); break;
    }
  }

 private:
  void window(const float* x, float* y, Eigen::Index n, Eigen::Index in) const {
    const double step = double(in) / double(n);
    const int taps = s_.window;
    const Eigen::Index last = in - 1;
    for (Eigen::Index o = 0; o < n; ++o) {
      const Eigen::Index base = Eigen::Index(double(o) * step);
      float acc = 0;
      for (int j = 0; j < taps; ++j) acc += x[std::min(base + j, last)] * 0.25f;
      y[o] = acc;
    }
  }

  KernelSpec s_;
  Arenas& ar_;
};

class CpuRunner : public KernelRunner {
 public:
  std::string device() const override { return "cpu: " + cpu_model_name(); }
  std::string kind() const override { return "cpu"; }
  std::string clock() const override { return "thread CPU time (CLOCK_THREAD_CPUTIME_ID), Eigen single-threaded"; }
  void check_precision(Precision p) const override {
    if (p != Precision::FP32)
      throw InputError(std::string("--precision ") + to_string(p) +
                       ": the cpu device runs fp32 only (tf32 and mixed need a CUDA device)");
  }
  MemoryBudget memory_budget() const override {
    const double have = double(::sysconf(_SC_PHYS_PAGES)) * double(::sysconf(_SC_PAGESIZE));
    if (have <= 0) return {};
    return {0.8 * have, fmt::format("80 % of this machine's {:.1f} GiB of memory", have / (1 << 30))};
  }
  std::unique_ptr<PreparedKernel> prepare(const KernelSpec& s) override {
    if (s.is_gemm) return std::make_unique<CpuGemm>(s, arenas_);
    return std::make_unique<CpuMem>(s, arenas_);
  }
  // A sample in which the thread's clock did not advance measured nothing (a tiny kernel on a clock
  // that did not tick, a move between cores): it runs again with twice the passes until it does.
  double time_s(const std::vector<PreparedKernel*>& kernels, int passes) override {
    for (int n = std::max(passes, 1);; n *= 2) {
      const double t0 = thread_cpu_s();
      for (int p = 0; p < n; ++p)
        for (PreparedKernel* k : kernels) k->launch();
      const double elapsed = thread_cpu_s() - t0;
      if (elapsed > 0 || n >= (1 << 20)) return elapsed / n;
    }
  }

 private:
  Arenas arenas_;
};

}  // namespace

std::unique_ptr<KernelRunner> make_cpu_runner() { return std::make_unique<CpuRunner>(); }

}  // namespace kernels_layer
}  // namespace ddlsim
