#include "kernels/harness.hpp"

#include <chrono>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "core/error.hpp"

namespace ddlsim {
inline namespace kernels_layer {

namespace {

// Each kernel is timed in kRounds rounds, in random interleaved order, for kMinTime / kRounds
// each and at least kMinSamples times a round: a slow spell of a shared machine (seconds long)
// then slows one round of a kernel, not all of its timings. The fastest timing counts.
constexpr int kRounds = 3;
constexpr int kMinSamples = 3;

// Collects each benchmark's fastest manual time per iteration, by name; passes every report on to
// `also` (Google Benchmark's JSON reporter, writing to memory) where there is one.
class Collector : public benchmark::BenchmarkReporter {
 public:
  Collector(std::map<std::string, double>& out, bool progress, std::size_t total, benchmark::BenchmarkReporter* also)
      : out_(out), progress_(progress), total_(total), also_(also) {}
  bool ReportContext(const Context& c) override { return also_ ? also_->ReportContext(c) : true; }
  void Finalize() override {
    if (also_) also_->Finalize();
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    if (also_) also_->ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred || r.run_type != Run::RT_Iteration || r.iterations == 0) continue;
      // The fastest iteration: the kernel's own time, without what other work on the device
      // (or machine) adds now and then; Google Benchmark's mean stays in its JSON.
      const auto min_it = r.counters.find("min_s");
      const double s = min_it != r.counters.end() ? double(min_it->second.value)
                                                  : r.real_accumulated_time / double(r.iterations);
      auto [it, fresh] = out_.emplace(r.run_name.function_name, s);
      if (!fresh) it->second = std::min(it->second, s);  // one entry per round
      ++done_;
      if (progress_)
        std::cerr << fmt::format("  [{}/{}, {:.1f} s] {}: {:.2f} us\n", done_, total_,
                                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(),
                                 r.benchmark_name(), s * 1e6);
    }
  }

 private:
  std::map<std::string, double>& out_;
  bool progress_;
  std::size_t total_, done_ = 0;  // kernel timings expected and reported (every round)
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  benchmark::BenchmarkReporter* also_;
};

void init_benchmark() {
  // Google Benchmark keeps argv[0] for its reports (the JSON "executable" field): the strings must
  // outlive this call, hence static storage (a local vector was read after it died).
  static char name[] = "ddlsim-calibrate";
  static char interleave[] = "--benchmark_enable_random_interleaving=true";
  char* argv[] = {name, interleave, nullptr};
  int argc = 2;
  benchmark::Initialize(&argc, argv);
}

// Times each distinct kernel once; returns seconds by KernelSpec::key().
std::map<std::string, double> time_kernels(KernelRunner& runner, const std::map<std::string, KernelSpec>& specs,
                                           const HarnessOptions& opts) {
  init_benchmark();
  benchmark::ClearRegisteredBenchmarks();
  for (const auto& [key, spec] : specs) {
    benchmark::RegisterBenchmark(key.c_str(),
                                 [&runner, spec = spec](benchmark::State& st) {
                                   auto k = runner.prepare(spec);
                                   std::vector<PreparedKernel*> one = {k.get()};
                                   double best_s = 1e300;
                                   int samples = 0;
                                   for (auto _ : st) {
                                     const double t = runner.time_s(one, runner.launches_per_sample());
                                     st.SetIterationTime(t);
                                     best_s = std::min(best_s, t);
                                     ++samples;
                                   }
                                   // A long kernel gets few iterations in MinTime: time it a few more
                                   // times so that its fastest run is not one that other work slowed.
                                   for (; samples < kMinSamples; ++samples)
                                     best_s = std::min(best_s, runner.time_s(one, runner.launches_per_sample()));
                                   st.counters["min_s"] = best_s;
                                   st.counters["flops"] = spec.flops();
                                 })
        ->UseManualTime()
        ->Repetitions(kRounds)
        ->MinTime(opts.min_time_s / kRounds)
        ->MinWarmUpTime(opts.warmup_s)
        ->Unit(benchmark::kMicrosecond);
  }
  std::map<std::string, double> seconds;
  benchmark::JSONReporter json;
  std::ostringstream json_text;
  json.SetOutputStream(&json_text);
  Collector collector(seconds, opts.progress, specs.size() * kRounds, opts.benchmark_json ? &json : nullptr);
  benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::ClearRegisteredBenchmarks();
  if (opts.benchmark_json) *opts.benchmark_json = json_text.str();
  return seconds;
}

LayerTiming layer_timing(const LayerKernels& lk, int batch, const std::map<std::string, double>& t) {
  LayerTiming r;
  r.layer = lk.layer;
  r.batch = batch;
  for (const auto& k : lk.kernels) {
    const double s = t.at(k.key());
    switch (k.phase) {
      case KernelPhase::Forward: r.fwd_s += s; break;
      case KernelPhase::Backward: r.bwd_s += s; break;
      case KernelPhase::Update: r.update_s += s; break;
      case KernelPhase::Accumulate: r.accum_s += s; break;
    }
    if (k.phase != KernelPhase::Accumulate) ++r.kernels;
  }
  return r;
}

}  // namespace

double buffer_bytes(const std::map<std::string, KernelSpec>& specs) {
  KernelBuffers most;
  for (const auto& [key, k] : specs) {
    const KernelBuffers b = kernel_buffers(k);
    most = {std::max(most.a, b.a), std::max(most.b, b.b), std::max(most.c, b.c)};
  }
  return most.a + most.b + most.c;
}

namespace {

// Kernels whose buffers do not fit would be killed (CPU) or fail to allocate (GPU), not measured.
void check_fits_in_memory(const KernelRunner& runner, const std::map<std::string, KernelSpec>& specs,
                          const std::vector<int>& batches) {
  const MemoryBudget budget = runner.memory_budget();
  const double need = buffer_bytes(specs);
  if (budget.bytes > 0 && need > budget.bytes)
    throw InputError(fmt::format("--batch {}: the largest kernel needs {:.1f} GiB of buffers, more than {}; "
                                 "calibrate smaller batches",
                                 batches.back(), need / (1 << 30), budget.what));
}

}  // namespace

Calibration calibrate_model(KernelRunner& runner, const Model& model, const std::vector<int>& batches,
                            Precision precision, const HarnessOptions& opts) {
  runner.check_precision(precision);
  std::map<int, std::vector<LayerKernels>> plans;
  std::map<std::string, KernelSpec> specs;
  for (int b : batches) {
    plans[b] = model_kernels(model, b, precision);
    for (const auto& lk : plans[b])
      for (const auto& k : lk.kernels) specs.emplace(k.key(), k);
  }
  check_fits_in_memory(runner, specs, batches);
  const std::map<std::string, double> seconds = time_kernels(runner, specs, opts);

  Calibration cal;
  cal.device = runner.device();
  cal.device_kind = runner.kind();
  cal.model = model.name;
  cal.model_params = model.params_total();
  cal.model_fwd_flops = model.fwd_flops_per_sample();
  cal.precision = to_string(precision);
  cal.clock = fmt::format("{}; Google Benchmark manual time, fastest iteration per kernel over >= {} s in {} "
                          "interleaved rounds after {} s warm-up each",
                          runner.clock(), opts.min_time_s, kRounds, opts.warmup_s);
  for (std::size_t i = 0; i < model.layers.size(); ++i)
    for (int b : batches) {
      cal.rows.push_back(layer_timing(plans[b][i], b, seconds));
      for (const KernelSpec& k : plans[b][i].kernels)
        cal.kernels.push_back({plans[b][i].layer, b, to_string(k.phase), k.name, seconds.at(k.key())});
    }
  return cal;
}

Seconds measure_step_s(KernelRunner& runner, const Model& model, int batch, Precision precision, int passes) {
  runner.check_precision(precision);
  const auto plan = model_kernels(model, batch, precision);
  std::vector<std::unique_ptr<PreparedKernel>> owned;
  std::vector<PreparedKernel*> fwd, bwd, upd;
  for (const auto& lk : plan)
    for (const auto& k : lk.kernels) {
      if (k.phase == KernelPhase::Accumulate) continue;
      owned.push_back(runner.prepare(k));
      (k.phase == KernelPhase::Forward ? fwd : k.phase == KernelPhase::Backward ? bwd : upd).push_back(owned.back().get());
    }
  // Backward runs layer by layer in reverse; inside a layer the kernels keep their order.
  std::vector<PreparedKernel*> step = fwd;
  std::vector<std::vector<PreparedKernel*>> bwd_by_layer;
  std::size_t idx = 0;
  for (const auto& lk : plan) {
    bwd_by_layer.emplace_back();
    for (const auto& k : lk.kernels)
      if (k.phase == KernelPhase::Backward) bwd_by_layer.back().push_back(bwd[idx++]);
  }
  for (auto it = bwd_by_layer.rbegin(); it != bwd_by_layer.rend(); ++it) step.insert(step.end(), it->begin(), it->end());
  step.insert(step.end(), upd.begin(), upd.end());

  runner.time_s(step, 1);  // warm-up
  std::vector<double> t;
  for (int p = 0; p < std::max(passes, 1); ++p) t.push_back(runner.time_s(step, 1));
  return *std::min_element(t.begin(), t.end());
}

}  // namespace kernels_layer
}  // namespace ddlsim
