// A resolved, validated scenario: application (model), execution (how training runs) and system
// (devices, network, storage) as three separate inputs, composed by the predictor.
#pragma once
#include <memory>
#include <string>

#include "calibration/calibration.hpp"
#include "core/units.hpp"
#include "cost/collectives.hpp"
#include "cost/optimizer.hpp"
#include "model/model.hpp"
#include "system/device.hpp"
#include "system/platform.hpp"

namespace ddlsim {

enum class Storage { Memory, LocalSSD, NFS, Blob };
enum class DataFormat { Synthetic, Records, Files };  // Records: TFRecord-like shards

struct Execution {
  std::string framework;           // preset name, for the report
  Precision precision = Precision::FP32;
  int batch_per_gpu = 32;
  int sync_period = 1;             // allreduce every k micro-batches (gradient accumulation)
  Optimizer optimizer = Optimizer::Momentum;
  long long samples = 0;           // training samples per epoch
  int epochs = 1;
  Algorithm algorithm = Algorithm::Ring;
  Bytes bucket_bytes = 25 * kMiB;  // 0: one packed exchange of all gradients
  bool overlap = true;             // buckets start as they fill during the backward pass
  Seconds cycle_time_s = 0;        // framework coordination delay before each exchange
  int ps_servers = 1;
  DataFormat format = DataFormat::Synthetic;
  int loader_workers = 4;
};

struct ComputeTuning {
  double max_efficiency = 0.6;        // best fraction of peak a large GEMM reaches
  Seconds half_efficiency_work_s = 20e-6;  // kernel length (at peak) that reaches half of it
  double memory_efficiency = 0.8;     // fraction of memory bandwidth a streaming kernel reaches
  Seconds kernel_overhead_s = 5e-6;   // launch and framework cost per kernel
  double jitter_cv = 0;               // per-rank compute variation (cost/stragglers.hpp); 0: none
  double measured_samples_per_s = 0;  // single-GPU throughput measured by the user (0: none)
  int measured_batch = 0;             // batch size of that measurement
  // compute.calibration: per-layer times measured by `ddlsim calibrate` (null: none); the top tier.
  std::shared_ptr<const Calibration> calibration;
  std::string calibration_origin;     // the file, for messages
};

struct StorageSpec {
  Storage storage = Storage::LocalSSD;
  Bytes sample_bytes = 0;        // stored size of one sample
  Seconds decode_s = 0;          // CPU decode + augment time of one sample on one worker
};

struct System {
  ClusterDescription cluster;
  int nodes = 1;
  Device device;
  ComputeTuning compute;
  StorageSpec storage;

  int ranks() const { return nodes * cluster.gpus_per_node; }
};

enum class BackendKind { Analytic, SimGrid };

// SimGrid backend settings (simulation.fidelity, network.*); unused by the analytic backend.
enum class Fidelity { Fast, Full };
struct SimGridOptions {
  Fidelity fidelity = Fidelity::Fast;
  std::string network_model = "CM02";  // SimGrid's network/model
  bool crosstraffic = false;           // network/crosstraffic
  Bytes tcp_gamma_bytes = 0;           // network/TCP-gamma: TCP window cap; 0 = none
  double latency_factor = 0;           // network/latency-factor; 0 = the model's own
  double bandwidth_factor = 0;         // network/bandwidth-factor; 0 = the model's own
};

struct Scenario {
  Model model;
  Execution execution;
  System system;
  BackendKind backend = BackendKind::Analytic;
  SimGridOptions simgrid;
};

}  // namespace ddlsim
