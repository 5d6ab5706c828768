#include "calibration/calibrate.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <iostream>

#include "calibration/calibration_file.hpp"
#include "calibration/interference.hpp"
#include "core/args.hpp"
#include "core/output.hpp"
#include "core/parse.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "kernels/harness.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace calibration_layer {

std::pair<std::string, int> parse_device(const std::string& text) {
  const std::string t = to_lower(text);
  if (t == "cpu") return {"cpu", 0};
  if (t == "cuda") return {"cuda", 0};
  if (t.rfind("cuda:", 0) == 0)
    if (const auto n = parse_integer(t.substr(5), 0, 1023)) return {"cuda", int(*n)};
  throw InputError("--device '" + clip(text) + "': expected cpu, cuda or cuda:N");
}

namespace {

constexpr long kMaxBatch = 65536;
constexpr double kMinMinTime = 1e-4, kMaxSeconds = 60;

std::vector<int> parse_batches(const std::string& text) {
  auto batches = parse_list<long long>(text, [](const std::string& b) { return parse_integer(b, 1, kMaxBatch); });
  if (!batches)
    throw InputError(fmt::format("--batch '{}': expected integers from 1 to {} separated by commas, e.g. 32,64",
                                 clip(text), kMaxBatch));
  std::vector<int> out(batches->begin(), batches->end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// --min-time and --warmup: seconds per kernel, in [lo, 60] (outside, Google Benchmark never ends).
double seconds_option(const po::variables_map& vm, const char* name, double lo) {
  const double v = vm[name].as<double>();
  if (!(v >= lo && v <= kMaxSeconds))
    throw InputError(fmt::format("--{} {}: expected seconds per kernel from {} to {}", name, format_number(v),
                                 format_number(lo), format_number(kMaxSeconds)));
  return v;
}

// The same bounds as the scenario's model.channels and model.classes.
int count_option(const po::variables_map& vm, const char* option, long hi) {
  const std::string text = vm[option].as<std::string>();
  const long v = integer_in_range(text, hi);
  if (v == 0) throw InputError(fmt::format("--{} '{}': expected an integer from 1 to {}", option, clip(text), hi));
  return int(v);
}

Model calibration_model(const po::variables_map& vm) {
  const std::string name = vm["model"].as<std::string>();
  const bool file = name.find('/') != std::string::npos || name.find(".model") != std::string::npos;
  if (file) {
    try {
      return load_model_file(name);
    } catch (const InputError& e) {
      throw InputError("--model: " + std::string(e.what()));
    }
  }
  if (!is_zoo_model(name)) throw InputError("--model '" + clip(name) + "': not a zoo model (see `ddlsim models`) or a .model file");
  ModelOptions o = default_model_options(name);
  if (vm.count("input-size"))
    std::tie(o.input_h, o.input_w) = size_option("input-size", vm["input-size"].as<std::string>(), 100000);
  if (vm.count("channels")) o.input_c = count_option(vm, "channels", 4096);
  if (vm.count("classes")) o.classes = count_option(vm, "classes", 10000000);
  return build_zoo_model(name, o);
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

// Per batch: the calibrated step (forward + backward + update) and, with --check, a real step.
void print_summary(const Calibration& cal, KernelRunner& runner, const Model& model, Precision p, bool check) {
  std::cout << fmt::format("calibrated {} on {} ({} layers, precision {})\n", cal.model, cal.device,
                           model.layers.size(), cal.precision);
  std::cout << fmt::format("{:>6} {:>12} {:>12} {:>12} {:>12}{}\n", "batch", "forward_s", "backward_s", "update_s",
                           "step_s", check ? fmt::format(" {:>12} {:>8}", "measured_s", "diff") : "");
  for (int b : cal.batches()) {
    double f = 0, bw = 0, u = 0;
    for (const auto& r : cal.rows)
      if (r.batch == b) f += r.fwd_s, bw += r.bwd_s, u += r.update_s;
    const double step = f + bw + u;
    std::string extra;
    if (check) {
      // About half a second of steps (at least 5): the fastest is the step's own time.
      const int passes = int(std::clamp(0.5 / std::max(step, 1e-6), 5.0, 2000.0));
      const double measured = measure_step_s(runner, model, b, p, passes);
      extra = fmt::format(" {:>12.6f} {:>+7.1f}%", measured, 100.0 * (step - measured) / measured);
    }
    std::cout << fmt::format("{:>6} {:>12.6f} {:>12.6f} {:>12.6f} {:>12.6f}{}\n", b, f, bw, u, step, extra);
  }
}

// The slow-down fraction of compute beside communication (calibration/interference.hpp): local
// allreduce threads on the CPU, NCCL allreduces between the GPUs on a GPU.
double interference(const std::string& kind, int index, int threads, const GpuInterference& gpu) {
  InterferenceOptions o;
  o.comm_threads = threads;
  InterferenceMeasurement m;
  std::string beside;
  if (kind == "cpu") {
    m = measure_cpu_interference(o);
    beside = fmt::format("{} allreduce thread(s)", threads);
  } else {
    m = gpu(index, o);
    beside = "NCCL allreduces between this machine's GPUs";
  }
  std::cout << fmt::format("interference: GEMM batch {:.6f} s alone, {:.6f} s beside {}: {:+.1f} %\n", m.alone_s,
                           m.with_comm_s, beside, 100 * m.factor());
  return std::max(0.0, m.factor());
}

}  // namespace

int run_calibrate(const Args& args, const RunnerFactory& make_runner, const GpuInterference& gpu_interference) {
  po::options_description own("calibrate options");
  own.add_options()("device", po::value<std::string>()->default_value("cpu"), "cpu or cuda:N")(
      "model", po::value<std::string>()->required(), "zoo model name or a .model file")(
      "input-size", po::value<std::string>(), "N or HxW (zoo models)")("channels", po::value<std::string>(), "input channels (1 to 4096)")(
      "classes", po::value<std::string>(), "classes (1 to 10000000)")("precision", po::value<std::string>()->default_value("fp32"),
                                              "fp32, tf32 or mixed")(
      "batch", po::value<std::string>()->default_value("32,64"), "batch sizes, comma-separated")(
      "out,o", po::value<std::string>()->required(), "calibration file to write")(
      "min-time", po::value<double>()->default_value(0.05), "seconds of measurement per kernel")(
      "warmup", po::value<double>()->default_value(0.01), "seconds of warm-up per kernel")(
      "benchmark-json", po::value<std::string>()->default_value(""), "also write Google Benchmark JSON here")(
      "check", po::bool_switch(), "also time whole training steps and compare")(
      "progress", po::bool_switch(), "print each kernel's time on stderr (always on a terminal)")(
      "interference", po::bool_switch(), "also measure compute's slow-down beside allreduce traffic (cpu: local threads; "
                                      "cuda: NCCL between the machine's GPUs)")(
      "interference-threads", po::value<std::string>()->default_value("1"),
      "communication threads beside the kernel for --interference (1 to 256)");
  const ParsedArgs pa = parse_args(args, own, "calibrate");
  if (!pa.positional.empty() || !pa.overrides.empty())
    throw InputError("ddlsim calibrate: unexpected argument '" +
                     (pa.positional.empty() ? pa.overrides.front() : pa.positional.front()) + "'");
  const auto& vm = pa.vm;
  const auto [kind, index] = parse_device(vm["device"].as<std::string>());
  const Precision precision = parse_precision(vm["precision"].as<std::string>(), "--precision");
  const std::vector<int> batches = parse_batches(vm["batch"].as<std::string>());
  const double min_time = seconds_option(vm, "min-time", kMinMinTime);
  const double warmup = seconds_option(vm, "warmup", 0);
  const Model model = calibration_model(vm);
  const bool want_interference = vm["interference"].as<bool>();
  if (want_interference && kind != "cpu" && !gpu_interference)
    throw InputError("--interference on " + kind + ": this program has no GPU measurement (ddlsim_cuda has it); "
                     "measure on cpu or leave the library's default");
  std::unique_ptr<KernelRunner> runner = make_runner(kind, index);

  HarnessOptions opts;
  opts.min_time_s = min_time;
  opts.warmup_s = warmup;
  const std::string json_path = vm["benchmark-json"].as<std::string>();
  std::string json;
  if (!json_path.empty()) opts.benchmark_json = &json;
  opts.progress = vm["progress"].as<bool>() || ::isatty(STDERR_FILENO);  // on a terminal: kernel i of n, elapsed
  Calibration cal = calibrate_model(*runner, model, batches, precision, opts);
  if (want_interference)
    cal.interference = interference(kind, index, count_option(vm, "interference-threads", 256), gpu_interference);
  std::string cmdline = "ddlsim calibrate";
  for (const auto& a : args) cmdline += " " + a;
  cal.tool = cmdline;
  cal.host = host_name();
  cal.date = utc_now();
  OutputSet out;
  out.add(vm["out"].as<std::string>(), render_calibration(cal));
  if (!json_path.empty()) out.add(json_path, json);
  out.commit();
  print_summary(cal, *runner, model, precision, vm["check"].as<bool>());
  return 0;
}

}  // namespace calibration_layer
}  // namespace ddlsim
