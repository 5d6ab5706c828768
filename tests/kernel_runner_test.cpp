// What can be checked of the GPU calibration path without a GPU: the buffer rule both runners
// allocate by (and the memory check uses), and the timing arithmetic of several launches between
// two clock readings, with a stand-in runner whose clock is known.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/harness.hpp"
#include "kernels/kernel_plan.hpp"
#include "model/model.hpp"

using namespace ddlsim;

TEST(KernelBuffers, OneRuleForAllocationAndTheMemoryCheck) {
  KernelSpec gemm;
  gemm.is_gemm = true;
  gemm.gemm = {64, 1000, 2048};
  gemm.precision = Precision::Mixed;
  const KernelBuffers g = kernel_buffers(gemm);
  EXPECT_EQ(g.a, 2.0 * 64 * 2048);   // A: m x k halves
  EXPECT_EQ(g.b, 2.0 * 2048 * 1000); // B: k x n
  EXPECT_EQ(g.c, 2.0 * 64 * 1000);   // C: m x n
  KernelSpec sgd;
  sgd.op = MemOp::Sgd;
  sgd.out_elems = sgd.in_elems = 1000;
  sgd.precision = Precision::Mixed;  // the FP32 master weights: 4 bytes, not 2 (was under-allocated)
  EXPECT_EQ(kernel_buffers(sgd).a, 4000);
  KernelSpec reduce;
  reduce.op = MemOp::Reduce;
  reduce.out_elems = 64;
  reduce.in_elems = 64;  // one row
  reduce.precision = Precision::Mixed;
  EXPECT_EQ(kernel_buffers(reduce).c, 4.0 * 64);  // FP32 sums
  // The memory check adds each buffer's largest need, as the runners grow them.
  const std::map<std::string, KernelSpec> specs = {{"g", gemm}, {"s", sgd}, {"r", reduce}};
  EXPECT_EQ(buffer_bytes(specs), std::max(g.a, 4000.0) + std::max(g.b, 4000.0) + std::max(g.c, 4000.0));
}

namespace {

// A device whose every kernel takes 1 ms, plus 5 us of launch latency once per timing sample.
class FakeDevice : public KernelRunner {
 public:
  explicit FakeDevice(int launches) : launches_(launches) {}
  std::string device() const override { return "fake"; }
  std::string kind() const override { return "cuda"; }
  std::string clock() const override { return "fake"; }
  void check_precision(Precision) const override {}
  std::unique_ptr<PreparedKernel> prepare(const KernelSpec&) override {
    struct Nothing : PreparedKernel {
      void launch() override {}
    };
    return std::make_unique<Nothing>();
  }
  double time_s(const std::vector<PreparedKernel*>& kernels, int passes) override {
    seen_passes = std::max(seen_passes, passes);
    return (5e-6 + 1e-3 * double(kernels.size()) * passes) / passes;
  }
  int launches_per_sample() const override { return launches_; }
  int seen_passes = 0;

 private:
  int launches_;
};

}  // namespace

TEST(KernelTiming, SeveralLaunchesBetweenTheEventsShareOneLatency) {
  ModelOptions o = default_model_options("small_cnn");
  const Model model = build_zoo_model("small_cnn", o);
  HarnessOptions opts;
  opts.min_time_s = 0.001;
  opts.warmup_s = 0;
  for (int launches : {1, 10}) {
    FakeDevice dev(launches);
    const Calibration cal = calibrate_model(dev, model, {2}, Precision::FP32, opts);
    EXPECT_EQ(dev.seen_passes, launches);
    const auto kernels = model_kernels(model, 2, Precision::FP32);
    for (const auto& lk : kernels) {
      const auto row = std::find_if(cal.rows.begin(), cal.rows.end(), [&](const LayerTiming& r) { return r.layer == lk.layer; });
      ASSERT_NE(row, cal.rows.end()) << lk.layer;
      const long fwd = std::count_if(lk.kernels.begin(), lk.kernels.end(),
                                     [](const KernelSpec& k) { return k.phase == KernelPhase::Forward; });
      // per launch: 1 ms + 5 us / launches
      EXPECT_NEAR(row->fwd_s, fwd * (1e-3 + 5e-6 / launches), 1e-12) << lk.layer << " launches " << launches;
    }
  }
}
