#include "predict/uncertainty.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "cost/stragglers.hpp"
#include "predict/prediction.hpp"

namespace ddlsim {
inline namespace predict_layer {

namespace {

// The 10th-90th percentile factor of a normal of standard deviation sigma: z = 1.2816.
constexpr double kZ80 = 1.2815515655446004;

// A step that ran on one H100 against the roofline (no calibration): the 36 PyTorch steps of
// calibration/measured/h100-zoo-steps.csv (22 zoo models, channels-last and -first, mixed and
// TF32, batch 2 to 128; measured on a lent H100 with calibration/zoo_check.sh), scored by
// `ddlsim compare ... --scenario calibration/measured/h100-one-gpu.ini`: measured / predicted
// has its 10th percentile at kRooflineTimeP10 and its 90th at kRooflineTimeP90 (linear
// interpolation between order statistics; tests/uncertainty_test.cpp recomputes them).
// A generation measured apart takes its own spread where the math ran as measured: the K80's GK210
// dies (Kepler) and the V100s (Volta) that MXNet's performance guide timed in FP32 at batches 1 to
// 128 (apache/mxnet docs/faq/perf.md, "Training results", MXNet 1.2 and cuDNN 7.0;
// scenarios/validation/batch/README.md): measured / roofline time, the 12 K80 and 16 V100 rows,
// 10th and 90th percentiles. A K80 has no tensor cores, so its spread serves every precision; a
// V100's only FP32. A Kepler die reaches about half its roofline (not analysed here: the clock a
// loaded board holds below its 875 MHz boost, and cuDNN's Kepler kernels, are the likely parts).
// Tensor-core math on a V100, and other generations, borrow the H100's steps' spread.
UncertainInput roofline_compute(const std::string& device, Precision precision) {
  const auto starts = [&](const char* p) { return device.rfind(p, 0) == 0; };
  struct Spread {
    double lo, hi;
    const char* source;
  };
  const Spread s =
      starts("k80") ? Spread{kKeplerRooflineTimeP10, kKeplerRooflineTimeP90,
                             "measured / roofline time of 12 MXNet runs on one K80 die (apache/mxnet perf.md; "
                             "scenarios/validation/batch)"}
      : starts("v100") && precision == Precision::FP32 ? Spread{kVoltaRooflineTimeP10, kVoltaRooflineTimeP90,
                                "measured / roofline time of 16 MXNet runs on one V100 (apache/mxnet perf.md; "
                                "scenarios/validation/batch)"}
      : starts("h100") || starts("h200")
          ? Spread{kRooflineTimeP10, kRooflineTimeP90,
                   "measured / roofline step time of 36 PyTorch steps on an H100 "
                   "(calibration/measured/h100-zoo-steps.csv)"}
          : Spread{kRooflineTimeP10, kRooflineTimeP90,
                   "the H100's (36 PyTorch steps, calibration/measured/h100-zoo-steps.csv): none measured for "
                   "this GPU and precision"};
  return {"compute (roofline)", "x compute time", s.lo, s.hi, s.source,
          "ddlsim calibrate on the GPU, or compute.throughput from one GPU's run",
          [](Scenario& sc, double f) { sc.system.compute.time_factor = f; }};
}

// A step calibrated on one GPU runs on others of the same model: the spread between GPUs of one
// SKU (cost/stragglers.hpp kGpuDeviceSpread, Sinha et al., SC22: sigma 1.48 %), at +-1.2816 sigma.
UncertainInput measured_compute() {
  return {"compute (measured)", "x compute time", std::exp(-kZ80 * kGpuDeviceSpread), std::exp(kZ80 * kGpuDeviceSpread),
          "the speed spread between GPUs of one model (Sinha et al., SC22; cost/stragglers.hpp)",
          "compute.device_spread, measured on the cluster's own GPUs",
          [](Scenario& s, double f) { s.system.compute.time_factor = f; }};
}

// A compute time measured at one batch (a calibration file of one batch, compute.throughput at
// compute.throughput_batch) and asked at another is carried there by the roofline's shape; how far
// that holds grows with the distance, `octaves` = |log2(batch / measured batch)|: the batch set's
// development series (uncertainty.hpp kBatchOctaveLogTimeP10/P90) per octave.
UncertainInput batch_extrapolation(double octaves, int measured_batch) {
  return {"batch extrapolation", "x compute time", std::exp(octaves * kBatchOctaveLogTimeP10),
          std::exp(octaves * kBatchOctaveLogTimeP90),
          "measured at batch " + std::to_string(measured_batch) +
              "; the batch set's development series, measured / predicted time per octave of batch change "
              "(scenarios/validation/batch)",
          "ddlsim calibrate at several batches around this one (--batch), or compute.throughput at this batch",
          [](Scenario& s, double f) { s.system.compute.time_factor *= f; }};
}

// The measured batch nearest the scenario's, and how many octaves away (0: measured there, or
// between two measured batches of a calibration file, which it interpolates).
std::pair<int, double> measured_batch_distance(const ComputeTuning& c, int batch) {
  std::vector<int> measured;
  if (c.calibration) measured = c.calibration->batches();
  else if (c.measured_samples_per_s > 0) measured = {c.measured_batch};
  if (measured.empty() || batch <= 0) return {0, 0.0};
  if (measured.size() > 1 && batch >= measured.front() && batch <= measured.back()) return {batch, 0.0};
  int nearest = measured.front();
  for (int b : measured)
    if (std::abs(std::log2(double(batch) / b)) < std::abs(std::log2(double(batch) / nearest))) nearest = b;
  return {nearest, std::abs(std::log2(double(batch) / nearest))};
}

// Two clusters of the same parts (H100 SXM nodes, eight 400 Gb/s InfiniBand rails a node:
// NVIDIA/nccl-tests issue 309's logs by gj-aion and qoofyk, scenarios/validation/nccl/) ran
// all_reduce_perf on 4 nodes; from 64 MiB up, where the rails bound the time, the slower cluster's
// time is a median 1.116 times the faster one's (8 sizes: 1.053 to 1.247). The link kinds' defaults
// are line-rate shares (system/platform.cpp), which a cluster does not exceed: the default is the
// 90th percentile and 1 / 1.116 of it the 10th.
constexpr double kSamePartsInterSpread = 1.116;
UncertainInput inter_bandwidth() {
  return {"inter-node bandwidth", "x bandwidth", 1 / kSamePartsInterSpread, 1.0,
          "two clusters of the same H100/NDR parts, nccl-tests on 4 nodes (NVIDIA/nccl-tests issue 309)",
          "ddlsim fit on the cluster's own nccl-tests logs (cluster.inter_bw_GBps)",
          [](Scenario& s, double f) { s.system.cluster.inter.bw_Bps *= f; }};
}

// NCCL across nodes, a priori: the 127 allreduce sizes of 1 MiB and more (where gradient buckets
// are) that six clusters measured with nccl-tests on 2 to 8 nodes (scenarios/validation/nccl, the
// development systems: H100, H200 and A100 nodes over InfiniBand, RoCE and GPUDirect-TCPX), each
// against `ddlsim compare` on the system's scenario: measured / predicted time has its 10th
// percentile at kNcclTimeP10 and its 90th at kNcclTimeP90 (tests/uncertainty_test.cpp recomputes
// them). The exchange's rounds and NCCL's own time are scaled together; it stands for the links'
// spread too (inter_bandwidth is for the other libraries).
UncertainInput nccl_collectives() {
  return {"NCCL across nodes", "x exchange time", kNcclTimeP10, kNcclTimeP90,
          "nccl-tests of 6 clusters on 2-8 nodes, 1 MiB and more, measured / ddlsim a priori (scenarios/validation/nccl)",
          "ddlsim fit on the cluster's own nccl-tests logs (docs/your-cluster.md), then its overlay",
          [](Scenario& s, double f) { s.execution.step_costs.exchange_time_factor = f; }};
}

// NCCL inside one node, a priori: the 56 allreduce sizes of 1 MiB and more that the five one-node
// development systems of scenarios/validation/nccl measured with nccl-tests (8 V100 on NVLink 2, 4
// A100 on NVLink 3, 4 V100 on PCIe 3, 8 RTX 4090 and 4 RTX 5090 on PCIe without peer access;
// index.csv, role dev, logs named "1n_"), each against `ddlsim compare` on the system's scenario:
// measured / predicted time has its 10th percentile at kNcclNodeTimeP10 and its 90th at
// kNcclNodeTimeP90 (tests/uncertainty_test.cpp recomputes them). As for nccl_collectives, the
// exchange's whole time is scaled.
UncertainInput nccl_inside_node() {
  return {"NCCL inside a node", "x exchange time", kNcclNodeTimeP10, kNcclNodeTimeP90,
          "nccl-tests of 5 one-node servers (NVLink and PCIe), 1 MiB and more, measured / ddlsim a priori (scenarios/validation/nccl)",
          "ddlsim fit on the node's own nccl-tests log (docs/your-cluster.md), then its overlay",
          [](Scenario& s, double f) { s.execution.step_costs.exchange_time_factor = f; }};
}

// Links fitted to the cluster's own collectives (`ddlsim fit LOG...` writes comm.time_p10 and
// comm.time_p90 beside them): what is left of the measured time after the fit, measured / fitted
// time over the sizes fitted, takes the place of a default spread.
UncertainInput fitted_exchanges(const StepCostOverrides& o) {
  return {"exchange time (fitted)", "x exchange time", o.time_p10, o.time_p90,
          "the fit's own sizes, measured / fitted time (comm.time_p10, comm.time_p90)",
          "ddlsim fit on more of the cluster's nccl-tests logs (more node counts, the bucket sizes)",
          [](Scenario& s, double f) { s.execution.step_costs.exchange_time_factor = f; }};
}

// A socket transport (NCCL's, gloo's, MPI's over TCP; system/socket_transport.hpp): what one CPU
// thread moves through TCP, from the slowest published rate to the fastest (the range stands for
// the 10th to 90th percentile, wider): NVIDIA/nccl issue 450 (100 Gb/s TCP, Skylake hosts, 4
// channels of one thread and one socket each: 4-6 GB/s bus bandwidth, 1.0 GB/s a connection at the
// low end) to meta-pytorch/torchcomms PR 3920 (one TCP connection at 10.78 GB/s on 200 GbE, its
// thread at 90.6 % of a core). The default (1.9 GB/s: NCCL's own one-thread runs in issue 209, and this machine's)
// sits near the low end; newer hosts reach several times it.
UncertainInput socket_threads(BytesPerSecond thread_Bps) {
  return {"socket threads", "x thread rate", 1.0e9 / thread_Bps, 10.78e9 / thread_Bps,
          "one TCP thread's rate, 1.0 (NVIDIA/nccl issue 450) to 10.78 GB/s (meta-pytorch/torchcomms PR 3920)",
          "ddlsim fit on the cluster's own nccl-tests logs, or cluster.tcp_thread_GBps from a one-thread TCP test",
          [](Scenario& s, double f) { s.system.cluster.tcp_thread_Bps *= f; }};
}

// The slow-down of compute kernels overlapped with NCCL collectives: 18.9 % on average, 40 % at most,
// over GPT and LLaMA workloads on A100 and H100 (arXiv 2507.03114; cost/library_costs.cpp, the
// default). The measured range, none to the maximum, stands for the 10th to 90th percentile (wider).
UncertainInput interference() {
  return {"interference", "slow-down fraction", 0.0, 0.40,
          "compute slow-down beside NCCL collectives, 0 to 40 % (arXiv 2507.03114)",
          "ddlsim calibrate --interference on the GPU (comm.interference)",
          [](Scenario& s, double v) { s.execution.step_costs.interference = v; }};
}

// Two dies on one board share its power (system/device.hpp shared_board_clock_floor): a measured or
// roofline die ran alone or at its boost clock, and with its board's other die busy it may fall to
// the base clock. The datasheet's range, boost to base (K80: 875 to 560 MHz), stands for the 10th
// to 90th percentile (wider).
UncertainInput shared_board(double clock_floor) {
  return {"dies sharing a board", "x compute time", 1.0, 1 / clock_floor,
          "the board's base and boost clocks, both dies busy (K80 datasheet: 560 and 875 MHz)",
          "compute.throughput measured with every die of the board busy (one rank a die)",
          [](Scenario& s, double f) { s.system.compute.time_factor *= f; }};
}

// A rank's step-to-step variation (cost/stragglers.hpp): the 10th to 90th percentile of the 43
// PyTorch steps measured on a lent H100 and H200, whose median is the default. A step bound by its
// GPU varies little, one that waits on the host's launches much more.
UncertainInput step_jitter() {
  return {"step-to-step jitter", "coefficient of variation", kGpuStepJitterCvP10, kGpuStepJitterCvP90,
          "43 PyTorch steps on an H100 and an H200, each run's variation (calibration/measured/)",
          "compute.jitter_cv from the step times of one GPU's run (their p10 and p90)",
          [](Scenario& s, double v) { s.system.compute.jitter_cv = v; }};
}

// The figures a band is given for, read off a prediction.
struct Figures {
  double step, epoch, samples, efficiency, exposed;
};
Figures figures(const Prediction& p) {
  return {p.step_time_s, p.epoch_time_s, p.samples_per_s, p.efficiency, p.exposed_comm_s};
}

// The sums of squared downward and upward deviations of one figure, over the inputs.
struct Spread {
  double down = 0, up = 0;
  void add(double a, double b) {
    down += std::pow(std::min({0.0, a, b}), 2);
    up += std::pow(std::max({0.0, a, b}), 2);
  }
  // In logarithms around a positive point y (a relative deviation each).
  Band log_band(double y) const { return {y * std::exp(-std::sqrt(down)), y * std::exp(std::sqrt(up))}; }
  // In the figure's own unit, scaled by `scale` (SimGrid's point over the analytic one); never below 0.
  Band linear_band(double y, double scale) const {
    return {std::max(0.0, y - scale * std::sqrt(down)), y + scale * std::sqrt(up)};
  }
};

double log_ratio(double y, double y0) { return y0 > 0 && y > 0 ? std::log(y / y0) : 0; }

}  // namespace

const Band* interval_of(const Uncertainty& u, const std::string& field) {
  if (field == "step_time_s") return &u.step_time_s;
  if (field == "epoch_time_s") return &u.epoch_time_s;
  if (field == "samples_per_s") return &u.samples_per_s;
  if (field == "efficiency") return &u.efficiency;
  if (field == "exposed_comm_s") return &u.exposed_comm_s;
  return nullptr;
}

std::string percentile_field(const std::string& field, bool p90) {
  const std::string end = p90 ? "_p90" : "_p10";
  const bool seconds = field.size() > 2 && field.compare(field.size() - 2, 2, "_s") == 0 && field != "samples_per_s";
  return seconds ? field.substr(0, field.size() - 2) + end + "_s" : field + end;
}

std::vector<UncertainInput> uncertain_inputs(const Scenario& sc) {
  const System& sys = sc.system;
  const ComputeTuning& c = sys.compute;
  std::vector<UncertainInput> out;
  if (!c.cpu_ranks()) {
    const bool measured = c.calibration || c.measured_samples_per_s > 0;
    if (measured && sc.left_default("compute.device_spread")) out.push_back(measured_compute());
    const auto [measured_batch, octaves] = measured_batch_distance(c, sc.execution.batch_per_gpu);
    if (measured && octaves > 0) out.push_back(batch_extrapolation(octaves, measured_batch));
    if (!measured) out.push_back(roofline_compute(sys.device.name, sc.execution.precision));
  }
  if (!c.cpu_ranks() && sys.device.shared_board_clock_floor < 1 && sys.cluster.gpus_per_node > 1)
    out.push_back(shared_board(sys.device.shared_board_clock_floor));
  // Links a platform file gives were described or fitted for the cluster: their spread is not these.
  const bool default_links = sys.cluster.xml_path.empty() && sc.left_default("cluster.inter_bw_GBps");
  const StepCostOverrides& fitted = sc.execution.step_costs;
  const bool nccl = sc.execution.library == Library::Nccl;
  if (fitted.time_p90 > 0 && sys.ranks() > 1)
    out.push_back(fitted_exchanges(fitted));
  else if (sys.nodes > 1 && default_links)
    out.push_back(nccl ? nccl_collectives() : inter_bandwidth());
  else if (sys.nodes == 1 && sys.ranks() > 1 && nccl && sys.cluster.xml_path.empty() &&
           sc.left_default("cluster.intra_bw_GBps"))
    out.push_back(nccl_inside_node());
  if (sys.nodes > 1 && sys.cluster.socket_transport && sc.left_default("cluster.tcp_thread_GBps"))
    out.push_back(socket_threads(sys.cluster.tcp_thread_Bps));
  if (sys.ranks() > 1 && !c.cpu_ranks() && sc.left_default("compute.jitter_cv")) out.push_back(step_jitter());
  const bool measured_interference = c.calibration && c.calibration->interference >= 0;
  if (sys.ranks() > 1 && sc.execution.overlap && nccl && !c.cpu_ranks() &&
      !measured_interference && sc.left_default("comm.interference"))
    out.push_back(interference());
  return out;
}

Uncertainty prediction_uncertainty(const Scenario& sc, const Prediction& point) {
  Scenario base = sc;
  base.backend = BackendKind::Analytic;
  const Prediction analytic = sc.backend == BackendKind::Analytic ? point : predict(base);
  const Figures y0 = figures(analytic);
  Spread step, epoch, samples, efficiency, exposed;
  Uncertainty u;
  // One working copy: an input sets the system or the execution only, so each try resets those two
  // from the base and leaves the model, the larger part, as it was copied.
  // The inputs leave what the compute profile reads alone (compute.time_factor scales it after):
  // one profile serves every try.
  Scenario s = base;
  const ComputeProfiles profiles = compute_profiles(base);
  for (const UncertainInput& in : uncertain_inputs(sc)) {
    Figures at[2];
    const double values[2] = {in.lo, in.hi};
    for (int k = 0; k < 2; ++k) {
      s.system = base.system;
      s.execution = base.execution;
      in.apply(s, values[k]);
      at[k] = figures(predict(s, profiles));
    }
    step.add(log_ratio(at[0].step, y0.step), log_ratio(at[1].step, y0.step));
    epoch.add(log_ratio(at[0].epoch, y0.epoch), log_ratio(at[1].epoch, y0.epoch));
    samples.add(log_ratio(at[0].samples, y0.samples), log_ratio(at[1].samples, y0.samples));
    efficiency.add(log_ratio(at[0].efficiency, y0.efficiency), log_ratio(at[1].efficiency, y0.efficiency));
    exposed.add(at[0].exposed - y0.exposed, at[1].exposed - y0.exposed);
    Spread own;
    own.add(log_ratio(at[0].step, y0.step), log_ratio(at[1].step, y0.step));
    u.inputs.push_back({in.name, in.unit, in.source, in.measure, in.lo, in.hi, at[0].step, at[1].step,
                        own.down + own.up});
  }
  const double total = step.down + step.up;
  for (UncertaintyShare& s : u.inputs) s.share = total > 0 ? s.share / total : 0;
  std::stable_sort(u.inputs.begin(), u.inputs.end(),
                   [](const UncertaintyShare& a, const UncertaintyShare& b) { return a.share > b.share; });
  const Figures p = figures(point);
  u.step_time_s = step.log_band(p.step);
  u.epoch_time_s = epoch.log_band(p.epoch);
  u.samples_per_s = samples.log_band(p.samples);
  u.efficiency = efficiency.log_band(p.efficiency);
  u.exposed_comm_s = exposed.linear_band(p.exposed, y0.exposed > 0 ? p.exposed / y0.exposed : 1);
  return u;
}

}  // namespace predict_layer
}  // namespace ddlsim
