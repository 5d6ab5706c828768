// Building the largest zoo models and their compute profile, as every `simulate` and each point
// of a sweep or map does: RegNetY-128GF (645 M parameters at 384), Swin-B (windowed attention) and
// GPT-2 medium, with and without pointwise fusion. Goal: under 1 ms per model and profile on one
// core (about 0.15-0.3 ms measured on this machine), so that a 10,000-point sweep of them spends
// seconds here.
#include <benchmark/benchmark.h>

#include "cost/compute.hpp"
#include "model/model.hpp"
#include "system/device.hpp"

using namespace ddlsim;

static void BM_ZooModelAndProfile(benchmark::State& state, const char* name) {
  const Device& a100 = find_device("a100", "");
  ComputeTuning t;
  t.pointwise_fusion = state.range(0) != 0;
  for (auto _ : state) {
    const Model m = build_zoo_model(name, default_model_options(name));
    benchmark::DoNotOptimize(compute_profile(m, a100, Precision::Mixed, 32, t));
  }
}
BENCHMARK_CAPTURE(BM_ZooModelAndProfile, regnet_y_128gf, "regnet_y_128gf")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ZooModelAndProfile, swin_b, "swin_b")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ZooModelAndProfile, gpt2_medium, "gpt2_medium")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
