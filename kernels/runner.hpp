// A device that runs and times the kernels of a KernelSpec: the GPU (kernels/cuda_runner.cu,
// CUDA events) or its CPU twin (kernels/cpu_runner.cpp, Eigen, per-thread CPU clock). The
// harness (kernels/harness.hpp) only talks to this interface.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "kernels/kernel_plan.hpp"

namespace ddlsim {
inline namespace kernels_layer {

// A kernel with its buffers in place, ready to launch.
class PreparedKernel {
 public:
  virtual ~PreparedKernel() = default;
  virtual void launch() = 0;  // may return before the kernel ends (GPU)
};

// Memory the runner may fill with kernel buffers, and how that was decided (for messages).
struct MemoryBudget {
  double bytes = 0;  // 0: unknown, not checked
  std::string what;  // e.g. "80 % of this machine's 23.4 GiB"
};

class KernelRunner {
 public:
  virtual ~KernelRunner() = default;
  virtual std::string device() const = 0;  // e.g. "cpu: Intel(R) Xeon(R) ..." or "cuda:0: NVIDIA ..."
  virtual std::string kind() const = 0;    // "cpu" or "cuda"
  virtual std::string clock() const = 0;   // how time is measured
  // Throws InputError when the device cannot run this precision.
  virtual void check_precision(Precision p) const = 0;
  virtual MemoryBudget memory_budget() const { return {}; }
  virtual std::unique_ptr<PreparedKernel> prepare(const KernelSpec& spec) = 0;
  // Launches the kernels in order, `passes` times, and returns the device time of one pass
  // (the total between the clock's two readings / passes).
  virtual double time_s(const std::vector<PreparedKernel*>& kernels, int passes) = 0;
  // Launches per timing sample of one kernel: on a GPU several back to back between two events,
  // so the time per launch (total / N) does not carry a launch's latency on an idle stream.
  virtual int launches_per_sample() const { return 1; }
};

std::unique_ptr<KernelRunner> make_cpu_runner();

}  // namespace kernels_layer
}  // namespace ddlsim
