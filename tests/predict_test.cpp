// Predictions: closed-form epoch composition, the Poti study's observations, and properties.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "predict_util.hpp"
#include "backend/analytic.hpp"
#include "core/error.hpp"
#include "report/report.hpp"
#include "scenario/resolve.hpp"
#include "schedule/step_schedule.hpp"
#include "sweep/sweep.hpp"
#include "test_util.hpp"
#include "cost/collectives.hpp"
#include "cost/stragglers.hpp"

using namespace ddlsim;
using testutil::predict_default;

TEST(Epoch, ShapeRoundsUp) {
  const EpochShape e = epoch_shape(100000, 64, 3, 4);
  EXPECT_EQ(e.steps, 521);  // ceil(100000 / 192)
  EXPECT_EQ(e.syncs, 131);  // ceil(521 / 4)
}

// training.drop_last: the last partial step is dropped; refused where every step would be.
TEST(Epoch, DropLastRoundsDown) {
  const EpochShape e = epoch_shape(100000, 64, 3, 4, true);
  EXPECT_EQ(e.steps, 520);  // floor(100000 / 192)
  EXPECT_EQ(e.syncs, 130);
  const Prediction p = predict_default({"--training.samples=1000", "--training.drop_last=true", "--cluster.nodes=2"});
  EXPECT_EQ(p.steps_per_epoch, 1000 / (64 * p.ranks));
  EXPECT_EQ(predict_default({"--training.samples=1000", "--cluster.nodes=2"}).steps_per_epoch,
            (1000 + 64 * p.ranks - 1) / (64 * p.ranks));
  try {
    predict_default({"--training.samples=10", "--training.drop_last=true"});
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("training.drop_last = 'true': expected false, or training.samples"),
              std::string::npos) << e.what();
  }
}

TEST(Predict, SingleGpuHasNoCommunication) {
  const Prediction p = predict_default({"--cluster.nodes=1"});
  EXPECT_EQ(p.ranks, 1);
  EXPECT_EQ(p.comm_time_s, 0);
  EXPECT_DOUBLE_EQ(p.speedup, 1);
  EXPECT_DOUBLE_EQ(p.efficiency, 1);
}

// Every synchronisation also waits for the slowest device and the ranks' step-to-step jitter
// (cost/stragglers.hpp), computed here
// from the one-rank compute time of the sync step's schedule.
TEST(Predict, EpochIsStepsTimesStepTime) {
  const Prediction p = predict_default({"--cluster.nodes=3", "--training.sync_period=4"});
  const Seconds compute_s = p.steps.local.phases[0].end_s - p.steps.local.phases[0].start_s +
                            p.steps.local.phases[1].end_s - p.steps.local.phases[1].start_s;
  const Seconds wait_s = straggler_wait_s(compute_s, kGpuStepJitterCv, kGpuDeviceSpread, 4, p.ranks);
  EXPECT_GT(wait_s, 0);
  const double expect = p.syncs_per_epoch * (p.steps.sync.step_s + wait_s) +
                        (p.steps_per_epoch - p.syncs_per_epoch) * p.steps.local.step_s;
  EXPECT_NEAR(p.epoch_time_s, expect, 1e-12 * expect);
  EXPECT_DOUBLE_EQ(p.comm_overhead, p.exposed_comm_s / p.step_time_s);
}

TEST(Predict, ResNet50GradientsAreItsTrainableParameters) {
  const Prediction p = predict_default({});
  EXPECT_EQ(p.params_trainable, 25583592);
  EXPECT_DOUBLE_EQ(p.gradient_bytes, 25583592.0 * 4);
  // Mixed precision: FP32 master gradients (see the next test); FP16 only when compressed.
  const Prediction mixed = predict_default({"--model.precision=mixed"});
  EXPECT_DOUBLE_EQ(mixed.gradient_bytes, 25583592.0 * 4);
  const Prediction fp16 = predict_default({"--model.precision=mixed", "--comm.gradient_dtype=fp16"});
  EXPECT_DOUBLE_EQ(fp16.gradient_bytes, 25583592.0 * 2);
}

TEST(Predict, MeasuredThroughputScalesCompute) {
  const Prediction p = predict_default({"--cluster.nodes=1", "--input.format=synthetic", "--compute.throughput=500"});
  EXPECT_NEAR(p.step_time_s, 64.0 / 500.0, 1e-12);  // one step = batch / measured throughput
  const Prediction twice = predict_default({"--cluster.nodes=1", "--input.format=synthetic", "--compute.throughput=1000"});
  EXPECT_NEAR(twice.compute_time_s, p.compute_time_s / 2, 1e-12);
}

TEST(Predict, SingleCommExchangeMatchesClosedForm) {
  // One packed ring allreduce after backward on 2 nodes of one GPU: exposed comm = ring formula
  // plus NCCL's per-call cost (8.4 us, cost/library_costs.cpp) plus TensorFlow's packing: the
  // gradients concatenated into the buffer and split out of it, 4 bytes moved per byte at 80 % of
  // the RTX 4070's 504 GB/s, and one batched kernel per 160 tensors each way (ResNet-50's 214
  // tensors: 2 each way) at 5 us a launch; nothing overlaps, no interference.
  const double n = 25583592.0 * 4;
  const double copies_s = 4 * n / (504e9 * 0.8) + 2 * 2 * 5e-6;
  const Prediction p = predict_default({"--cluster.nodes=2", "--training.framework=tf_mirrored",
                                     "--input.format=synthetic"});
  const ClusterDescription& poti = find_cluster("poti", "");
  EXPECT_DOUBLE_EQ(p.exposed_comm_s, 8.4e-6 + copies_s + ring_allreduce_s(2, n, poti.inter_route()));
  EXPECT_EQ(p.interference_s, 0.0);
  const Prediction off = predict_default({"--cluster.nodes=2", "--training.framework=tf_mirrored",
                                       "--input.format=synthetic", "--comm.per_call_us=0",
                                       "--framework.buffer_copies=none"});
  EXPECT_DOUBLE_EQ(off.exposed_comm_s, ring_allreduce_s(2, n, poti.inter_route()));
}

TEST(Predict, MoreBandwidthIsNeverSlower) {
  for (const char* algo : {"ring", "rhd", "tree", "hierarchical", "ps"}) {
    double previous = 1e300;
    for (double bw : {0.05, 0.1175, 1.0, 3.0, 12.0}) {
      const Prediction p = predict_default({"--cluster.platform=cluster4x25g", "--cluster.nodes=4",
                                         std::string("--comm.algorithm=") + algo,
                                         "--cluster.inter_bw_GBps=" + std::to_string(bw)});
      EXPECT_LE(p.epoch_time_s, previous) << algo << " at " << bw;
      previous = p.epoch_time_s;
    }
  }
}

TEST(Predict, OverlapNeverHurts) {
  for (int nodes : {2, 4}) {
    const std::string n = "--cluster.nodes=" + std::to_string(nodes);
    const Prediction on = predict_default({n, "--comm.overlap=true"});
    const Prediction off = predict_default({n, "--comm.overlap=false"});
    EXPECT_LE(on.step_time_s, off.step_time_s);
  }
}

TEST(Predict, SameInputsSameBytes) {
  const std::string a = render_prediction(predict_default({"--cluster.nodes=3"}), Format::Json);
  const std::string b = render_prediction(predict_default({"--cluster.nodes=3"}), Format::Json);
  EXPECT_EQ(a, b);
}

TEST(Schedule, BucketsHoldEveryGradientOnce) {
  const Scenario sc = resolve_scenario(read_scenario("", {}).settings, ".");
  const ComputeProfile prof = compute_profile(sc.model, sc.system.device, Precision::FP32, 64, sc.system.compute);
  for (double mib : {0.0, 1.0, 25.0, 64.0}) {
    const auto buckets = make_buckets(prof, mib * kMiB);
    Bytes total = 0;
    Seconds last_ready = 0;
    for (const auto& b : buckets) {
      total += b.bytes;
      EXPECT_GE(b.ready_s, last_ready);
      last_ready = b.ready_s;
    }
    EXPECT_DOUBLE_EQ(total, 4 * prof.gradient_elems());  // FP32 gradients by default
    if (mib == 0) EXPECT_EQ(buckets.size(), 1u);
  }
}

// Mixed precision keeps FP32 master weights, so its gradients are exchanged in FP32 (4 bytes each)
// unless comm.gradient_dtype = fp16 (Horovod's Compression.fp16): ResNet-50's 25,583,592 trainable
// parameters are 102,334,368 bytes, or 51,167,184 compressed; a slow network's exchange halves.
TEST(Predict, MixedPrecisionExchangesFp32GradientsUnlessCompressed) {
  const std::vector<std::string> base = {"--model.name=resnet50", "--model.precision=mixed", "--cluster.nodes=2",
                                         "--cluster.platform=cluster4x25g", "--comm.interference=0",
                                         "--comm.per_call_us=0", "--comm.bucket_mb=0", "--comm.overlap=false"};
  auto with = [&](const char* dtype) {
    auto o = base;
    o.push_back(std::string("--comm.gradient_dtype=") + dtype);
    return predict_default(o);
  };
  const Prediction fp32 = predict_default(base), fp16 = with("fp16");
  EXPECT_DOUBLE_EQ(fp32.gradient_bytes, 102334368);
  EXPECT_DOUBLE_EQ(with("fp32").gradient_bytes, 102334368);
  EXPECT_DOUBLE_EQ(fp16.gradient_bytes, 51167184);
  EXPECT_GT(fp32.comm_time_s, 1.9 * fp16.comm_time_s);
  EXPECT_LT(fp32.comm_time_s, 2.0 * fp16.comm_time_s);  // the latency terms do not double
  EXPECT_GT(fp32.memory_per_gpu_bytes, fp16.memory_per_gpu_bytes);
  const auto bad = testutil::run_ddlsim("simulate --comm.gradient_dtype=bf8");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("comm.gradient_dtype"), std::string::npos) << bad.out;
}

// The observations of the Poti study (ResNet-50 and EfficientNet-B0 on TinyImageNet, 1 GbE).
class PcadStudy : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const ScenarioInput in = read_scenario(testutil::source_dir() + "/scenarios/pcad_factorial.ini", {});
    for (const auto& config : expand_sweep(in)) {
      const Prediction p = predict(resolve_scenario(config, "."));
      epoch()[{p.model, p.framework, p.batch_per_gpu, p.nodes}] = p;
    }
  }
  using Key = std::tuple<std::string, std::string, int, int>;
  static std::map<Key, Prediction>& epoch() {
    static std::map<Key, Prediction> m;
    return m;
  }
  static const Prediction& at(const std::string& m, const std::string& f, int b, int n) {
    return epoch().at({m, f, b, n});
  }
};

TEST_F(PcadStudy, ResNet50SyncEveryBatchGetsSlowerWithNodes) {
  for (int b : {32, 64, 100})
    for (int n : {2, 3})
      EXPECT_GT(at("resnet50", "tf_mirrored", b, n).epoch_time_s, at("resnet50", "tf_mirrored", b, 1).epoch_time_s)
          << "batch " << b << " nodes " << n;
}

TEST_F(PcadStudy, SyncEveryFourBatchesBeatsEveryBatch) {
  for (const char* m : {"resnet50", "efficientnet_b0"})
    for (int b : {32, 64, 100})
      for (int n : {2, 3})
        EXPECT_LT(at(m, "tf_custom_accum", b, n).epoch_time_s, at(m, "tf_mirrored", b, n).epoch_time_s)
            << m << " batch " << b << " nodes " << n;
}

TEST_F(PcadStudy, EfficientNetScalesBetterThanResNet) {
  for (const char* f : {"tf_mirrored", "tf_custom_accum"})
    for (int b : {32, 64, 100})
      for (int n : {2, 3})
        EXPECT_GT(at("efficientnet_b0", f, b, n).speedup, at("resnet50", f, b, n).speedup)
            << f << " batch " << b << " nodes " << n;
}
