// Configurations a second of an analytic sweep, as `ddlsim sweep` runs them (each resolved from its
// settings and predicted; the thread keeps the model and compute profiles while only neutral keys
// change: sweep/sweep.hpp): ResNet-50 on DGX-1 nodes over node counts x bandwidths x bucket sizes,
// 240 configurations, one thread, rows discarded. The memos' own cost shows against
// BM_AnalyticResNet50 (analytic_bench.cpp), which resolves nothing.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "sweep/sweep.hpp"

using namespace ddlsim;

// Runs the sweep of scenario text `ini` once an iteration, rows discarded.
static void run_sweep_bench(benchmark::State& state, const std::string& ini) {
  const std::string path = "/tmp/ddlsim_sweep_bench_" + std::to_string(::getpid()) + ".ini";
  std::ofstream(path) << ini;
  const SweepDesign design(read_scenario(path, {}));
  std::remove(path.c_str());
  SweepOptions o;
  o.base_dir = "/tmp";
  std::size_t rows = 0;
  for (auto _ : state) run_sweep(design, o, [&](std::size_t, const SweepRow&) { ++rows; });
  state.counters["configs_per_s"] = benchmark::Counter(double(rows), benchmark::Counter::kIsRate);
}

static void BM_SweepResNet50Configurations(benchmark::State& state) {
  run_sweep_bench(state, "[cluster]\nplatform = dgx1\n[model]\nname = resnet50\n[sweep]\n"
                         "cluster.nodes = 1,2,4,8,16,32,64,128\n"
                         "cluster.inter_bw_GBps = 5,10,20,40,80\n"
                         "comm.bucket_mb = 5,10,25,50,100,200\n");
}
BENCHMARK(BM_SweepResNet50Configurations)->Unit(benchmark::kMillisecond);

// The same on a platform file (the repository's dgx1.xml, a SimGrid file of DGX-1 nodes): such
// configurations run in child processes (a platform file is read by SimGrid in a child), and the
// sweep's parent reads the file once for all of them (scenario/resolve.hpp ResolveMemo). 48
// configurations, one at a time.
static void BM_SweepOnAPlatformFile(benchmark::State& state) {
  run_sweep_bench(state, "[cluster]\nplatform = " DDLSIM_SOURCE_DIR "/platforms/dgx1.xml\n[model]\nname = resnet50\n"
                         "[sweep]\ncluster.nodes = 1,2,4,8\ncomm.bucket_mb = 5,10,25,50,100,200\n"
                         "training.batch_per_gpu = 32,64\n");
}
BENCHMARK(BM_SweepOnAPlatformFile)->Unit(benchmark::kMillisecond)->UseRealTime();  // the children's time too
