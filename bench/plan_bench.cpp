// Planning commands (issue 16). Goals on one core: `advise` over one continuous key in under 50 ms;
// a `map` of 100 x 100 points in under 1 s. Scenario: the Poti study's ResNet-50 (64x64, 1 GbE,
// 2 nodes; scenarios/poti_resnet50.ini).
#include <benchmark/benchmark.h>

#include "plan/advise.hpp"
#include "plan/map.hpp"
#include "cost/collective_plan.hpp"

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

// A double binary tree round's messages for every rank of 8,192 DGX-1 nodes (65,536 ranks), as the
// SimGrid backend asks for them (one rank at a time): linear in the ranks, so a run at that scale
// stays within its deadline (issue 43; before, each rank coloured the whole tree: O(ranks x nodes)).
static void BM_DbtRoundOps65536Ranks(benchmark::State& state) {
  Layout l;
  l.ranks = 65536;
  l.gpus_per_node = 8;
  const Round r{RoundKind::RailDbtUp, 0, 1 << 20, 1};
  for (auto _ : state) {
    std::size_t sends = 0;
    for (int me = 0; me < l.ranks; ++me) sends += round_ops(r, l, me).sends.size();
    benchmark::DoNotOptimize(sends);
  }
}
BENCHMARK(BM_DbtRoundOps65536Ranks)->Unit(benchmark::kMillisecond);
