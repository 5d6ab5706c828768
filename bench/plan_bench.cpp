// Planning commands (issue 16). Goals on one core: `advise` over one continuous key in under 50 ms;
// a `map` of 100 x 100 points in under 1 s. Scenario: the Poti study's ResNet-50 (64x64, 1 GbE,
// 2 nodes; scenarios/poti_resnet50.ini).
#include <benchmark/benchmark.h>

#include "plan/advise.hpp"
#include "plan/map.hpp"

using namespace ddlsim;

static Evaluator poti() {
  return Evaluator(read_scenario(std::string(DDLSIM_SOURCE_DIR) + "/scenarios/poti_resnet50.ini", {}).settings, ".");
}

static void BM_AdviseBandwidth(benchmark::State& state) {
  const Evaluator ev = poti();
  AdviseRequest req;
  req.key = "cluster.inter_bw_GBps";
  req.target = parse_target("efficiency=0.8");
  for (auto _ : state) benchmark::DoNotOptimize(advise(ev, req).answer);
}
BENCHMARK(BM_AdviseBandwidth)->Unit(benchmark::kMillisecond);

static void BM_Map100x100(benchmark::State& state) {
  const Evaluator ev = poti();
  MapAxis x = parse_map_axis("model.params=1e6..1e9", "--x"), y = parse_map_axis("cluster.inter_bw_GBps=0.1..100", "--y");
  x.points = y.points = 100;
  x.log = y.log = true;
  const Metric z = find_metric("comm_overhead", "--z");
  for (auto _ : state) benchmark::DoNotOptimize(compute_map(ev, x, y, z).values.data());
}
BENCHMARK(BM_Map100x100)->Unit(benchmark::kMillisecond);
