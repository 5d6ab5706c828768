// Analytic evaluations per second: ResNet-50 (Horovod, ring, 64 MB fusion) on 1,024 GPUs
// (128 DGX-1 nodes of 8 V100). Goal: at least 50,000 per second on one core.
// One evaluation = compute profile + schedule + both steps + epoch, at p ranks and at 1 rank.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "predict/prediction.hpp"
#include "scenario/resolve.hpp"

using namespace ddlsim;

static Scenario resnet50_on(int nodes, const char* algorithm, const char* extra = "") {
  std::vector<std::string> args = {"--cluster.platform=dgx1", "--cluster.nodes=" + std::to_string(nodes),
                                   std::string("--comm.algorithm=") + algorithm};
  if (*extra) args.push_back(extra);
  const ScenarioInput in = read_scenario("", args);
  return resolve_scenario(in.settings, ".");
}

static void BM_AnalyticResNet50(benchmark::State& state, const char* algorithm, const char* extra) {
  const Scenario sc = resnet50_on(int(state.range(0)), algorithm, extra);
  for (auto _ : state) benchmark::DoNotOptimize(predict(sc));
  state.counters["evals_per_s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
// One per algorithm family: NCCL's pipelined ring, the hierarchical ring, the double binary tree,
// NCCL's own choice with its protocols, and Open MPI's ring.
BENCHMARK_CAPTURE(BM_AnalyticResNet50, ring, "ring", "")->Arg(128)->Arg(1);
BENCHMARK_CAPTURE(BM_AnalyticResNet50, hierarchical, "hierarchical", "")->Arg(128);
BENCHMARK_CAPTURE(BM_AnalyticResNet50, dbtree, "dbtree", "")->Arg(128);
BENCHMARK_CAPTURE(BM_AnalyticResNet50, nccl_auto, "auto", "--comm.nccl_protocol=auto")->Arg(128);
BENCHMARK_CAPTURE(BM_AnalyticResNet50, mpi, "ring", "--comm.library=mpi")->Arg(128);
// Sharded data parallelism (training.sharding): every unit's gathers and reduce-scatters are
// exchanges of the step, three a unit under FULL_SHARD instead of one bucket's allreduce.
BENCHMARK_CAPTURE(BM_AnalyticResNet50, fsdp_full, "ring", "--training.sharding=fsdp_full")->Arg(128);
BENCHMARK_CAPTURE(BM_AnalyticResNet50, zero2, "ring", "--training.sharding=zero2")->Arg(128);

// The point prediction with its 80 % interval (predict/uncertainty.hpp: two analytic predictions
// an uncertain input; four inputs on many nodes). Goal: at most 10x BM_AnalyticResNet50 at the
// same node count.
static void BM_AnalyticResNet50WithInterval(benchmark::State& state) {
  const Scenario sc = resnet50_on(int(state.range(0)), "ring");
  for (auto _ : state) {
    const Prediction p = predict(sc);
    benchmark::DoNotOptimize(prediction_uncertainty(sc, p));
  }
  state.counters["evals_per_s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_AnalyticResNet50WithInterval)->Arg(128)->Arg(1);

// One evaluation whose compute profile is shared (a sweep or planner varying keys the profile does
// not read: predict(sc, profiles)): the schedule, both steps and the epoch alone. Goal: at least
// 500,000 a second on one core for every algorithm family (ring, hierarchical, tree, NCCL's own
// choice, MPI's eager rounds).
static void BM_AnalyticResNet50SharedProfile(benchmark::State& state, const char* algorithm, const char* extra) {
  const Scenario sc = resnet50_on(int(state.range(0)), algorithm, extra);
  const ComputeProfiles profiles = compute_profiles(sc);
  for (auto _ : state) benchmark::DoNotOptimize(predict(sc, profiles));
  state.counters["evals_per_s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_AnalyticResNet50SharedProfile, ring, "ring", "")->Arg(128);
BENCHMARK_CAPTURE(BM_AnalyticResNet50SharedProfile, hierarchical, "hierarchical", "")->Arg(128);
BENCHMARK_CAPTURE(BM_AnalyticResNet50SharedProfile, dbtree, "dbtree", "")->Arg(128);
BENCHMARK_CAPTURE(BM_AnalyticResNet50SharedProfile, nccl_auto, "auto", "--comm.nccl_protocol=auto")->Arg(128);
BENCHMARK_CAPTURE(BM_AnalyticResNet50SharedProfile, mpi, "ring", "--comm.library=mpi")->Arg(128);
BENCHMARK_CAPTURE(BM_AnalyticResNet50SharedProfile, fsdp_full, "ring", "--training.sharding=fsdp_full")->Arg(128);
BENCHMARK_CAPTURE(BM_AnalyticResNet50SharedProfile, zero2, "ring", "--training.sharding=zero2")->Arg(128);

// The same through a ProfileMemo, as a sweep's thread or a planner evaluates configurations that
// differ in neutral keys (predict/prediction.hpp): the settings compared, the profiles kept.
static void BM_AnalyticResNet50ThroughMemo(benchmark::State& state, const char* algorithm) {
  const std::vector<std::string> args = {"--cluster.platform=dgx1", "--cluster.nodes=" + std::to_string(state.range(0)),
                                         std::string("--comm.algorithm=") + algorithm};
  const Settings settings = read_scenario("", args).settings;
  const Scenario sc = resolve_scenario(settings, ".");
  ProfileMemo memo;
  for (auto _ : state) benchmark::DoNotOptimize(predict(sc, memo.profiles(sc, settings)));
  state.counters["evals_per_s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_AnalyticResNet50ThroughMemo, ring, "ring")->Arg(128);
BENCHMARK_CAPTURE(BM_AnalyticResNet50ThroughMemo, dbtree, "dbtree")->Arg(128);
