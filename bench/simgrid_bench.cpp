// SimGrid backend: wall time of one training step of ResNet-50 (224x224, PyTorch DDP preset:
// ring allreduce, 25 MiB buckets, overlap) on DGX-1 nodes (8 V100, NVLink inside, one EDR port
// per node). Goals on one core: fast fidelity (on a two-node slice for ring and hierarchical:
// simgrid/slice.hpp) under 0.2 s at 16,384 GPUs and under 1 s at 131,072; full fidelity at 256 GPUs
// for comparison. Each iteration includes the fork of the child that
// runs SimGrid, building the platform, and the one-GPU analytic reference.
#include <benchmark/benchmark.h>

#include "predict/prediction.hpp"
#include "scenario/resolve.hpp"

using namespace ddlsim;

static Scenario resnet50_ddp(int gpus, const char* fidelity, const char* algorithm) {
  const ScenarioInput in = read_scenario(
      "", std::vector<std::string>{"--cluster.platform=dgx1", "--cluster.nodes=" + std::to_string(gpus / 8),
                                   "--training.framework=pytorch_ddp", "--simulation.backend=simgrid",
                                   std::string("--simulation.fidelity=") + fidelity,
                                   std::string("--comm.algorithm=") + algorithm});
  return resolve_scenario(in.settings, ".");
}

static void BM_SimGridResNet50Step(benchmark::State& state, const char* fidelity, const char* algorithm) {
  const Scenario sc = resnet50_ddp(int(state.range(0)), fidelity, algorithm);
  double step_s = 0;
  for (auto _ : state) step_s = predict(sc).step_time_s;
  state.counters["gpus"] = double(state.range(0));
  state.counters["step_s"] = step_s;
}
BENCHMARK_CAPTURE(BM_SimGridResNet50Step, fast_ring, "fast", "ring")
    ->Arg(1024)->Arg(16384)->Arg(131072)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK_CAPTURE(BM_SimGridResNet50Step, full_ring, "full", "ring")
    ->Arg(256)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK_CAPTURE(BM_SimGridResNet50Step, fast_rhd, "fast", "rhd")
    ->Arg(1024)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK_CAPTURE(BM_SimGridResNet50Step, fast_hierarchical, "fast", "hierarchical")
    ->Arg(16384)->Arg(131072)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
