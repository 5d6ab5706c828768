// The input pipeline's shared node resources and GPU decoding (cost/input_pipeline.hpp), by hand.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "cost/input_pipeline.hpp"
#include "predict_util.hpp"
#include "system/socket_transport.hpp"
#include "test_util.hpp"

using namespace ddlsim;

TEST(InputPipeline, NodeCoresAreSharedByItsGpusAndDaliDecodesOnTheGpu) {
  StorageSpec st;
  st.storage = Storage::Memory;  // no read limit
  st.decode_s = 2e-3;
  // 4 workers per GPU, batch 64: 64 x 2 ms / 4 = 32 ms
  EXPECT_DOUBLE_EQ(input_batch_s(st, DataFormat::Records, 4, 64, 1, 8), 0.032);
  // 16 cores for 8 GPUs: 2 workers each: 64 ms; for 1 GPU the 4 workers it asks for: 32 ms
  st.cpu_cores = 16;
  EXPECT_DOUBLE_EQ(input_batch_s(st, DataFormat::Records, 4, 64, 1, 8), 0.064);
  EXPECT_DOUBLE_EQ(input_batch_s(st, DataFormat::Records, 4, 64, 1, 1), 0.032);
  // Fewer cores than GPUs still run one worker per GPU.
  st.cpu_cores = 4;
  EXPECT_DOUBLE_EQ(input_batch_s(st, DataFormat::Records, 4, 64, 1, 8), 0.128);
  // DALI: no CPU decoding; only reading remains (110 KiB a sample over a 2 GB/s SSD, 8 GPUs).
  st.decoder = Decoder::Dali;
  EXPECT_DOUBLE_EQ(input_batch_s(st, DataFormat::Records, 4, 64, 1, 8), 0.0);
  st.storage = Storage::LocalSSD;
  st.sample_bytes = 110 * 1024;
  EXPECT_DOUBLE_EQ(input_batch_s(st, DataFormat::Records, 4, 64, 1, 8), 64.0 * 8 * 110 * 1024 / 2.0e9);
  // input.storage_GBps replaces the kind's bandwidth: 0.5 GB/s reads the node's 8 x 64 samples
  // of 110 KiB in 115.3 ms; an NFS server's 1 GB/s is shared by 4 nodes: 450.6 ms.
  st.bw_Bps = 0.5e9;
  EXPECT_DOUBLE_EQ(input_batch_s(st, DataFormat::Records, 4, 64, 1, 8), 64.0 * 8 * 110 * 1024 / 0.5e9);
  st.storage = Storage::NFS;
  st.bw_Bps = 1e9;
  EXPECT_DOUBLE_EQ(input_batch_s(st, DataFormat::Records, 4, 64, 4, 8), 64.0 * 8 * 110 * 1024 / (1e9 / 4));
}

// The default decode times (system.hpp, measured on the build machine): an ImageNet-like JPEG's
// decode once, the rest in proportion to the input's pixels; under 64 x 64 no JPEG.
TEST(InputPipeline, DefaultDecodeTimesByFramework) {
  // 224 x 224: graph 0.872 + 0.382 = 1.254 ms; eager 0.976 + 1.143 = 2.119 ms.
  EXPECT_NEAR(default_decode_s(FrameworkMode::Graph, 224, 224), 1.254e-3, 1e-12);
  EXPECT_NEAR(default_decode_s(FrameworkMode::Eager, 224, 224), 2.119e-3, 1e-12);
  // 448 x 448, four times the pixels: 0.872 + 4 x 0.382 = 2.400 ms.
  EXPECT_NEAR(default_decode_s(FrameworkMode::Graph, 448, 448), 2.400e-3, 1e-12);
  // 64 x 64 is still a JPEG: 0.872 + 0.382 x 4096 / 50176 ms; 32 x 32 is a raw array: 0.382 / 49 ms.
  EXPECT_NEAR(default_decode_s(FrameworkMode::Graph, 64, 64), 0.872e-3 + 0.382e-3 * 4096 / 50176, 1e-12);
  EXPECT_NEAR(default_decode_s(FrameworkMode::Graph, 32, 32), 0.382e-3 / 49, 1e-12);
}

TEST(InputPipeline, AnAugmentationPolicyAddsItsMeasuredTime) {
  // calibration/measured/augment-cost.csv: AutoAugment 0.676 ms beside the standard's 1.888, times
  // the eager loader's 1.143 ms besides decoding at 224 x 224; 448 x 448 four times as long.
  EXPECT_EQ(augment_s(Augment::Standard, FrameworkMode::Eager, 224, 224), 0.0);
  const double auto_augment_s = 0.676 / 1.888 * 1.143e-3;
  EXPECT_NEAR(augment_s(Augment::AutoAugment, FrameworkMode::Eager, 224, 224), auto_augment_s, 1e-12);
  EXPECT_NEAR(augment_s(Augment::RandAugment, FrameworkMode::Graph, 448, 448), 4 * 1.103 / 1.888 * 0.382e-3, 1e-12);
  // DDP (eager) on one GPU of a DGX A100, records in memory, batch 32, 4 workers: (0.976 + 1.143 +
  // 0.409) ms x 32 / 4 an input batch.
  const std::vector<std::string> base = {"--training.framework=pytorch_ddp", "--cluster.platform=dgx-a100",
                                         "--cluster.gpus_per_node=1", "--input.storage=memory",
                                         "--training.batch_per_gpu=32"};
  std::vector<std::string> auto_augment = base;
  auto_augment.push_back("--input.augment=autoaugment");
  EXPECT_NEAR(testutil::predict_default(auto_augment).input_time_s, 32 * (0.976e-3 + 1.143e-3 + auto_augment_s) / 4,
              1e-12);
  EXPECT_NEAR(testutil::predict_default(base).input_time_s, 32 * 2.119e-3 / 4, 1e-12);
  // A language model's tokens take no image policy.
  EXPECT_THROW(testutil::predict_default({"--model.name=gpt2", "--input.augment=randaugment"}), InputError);
}

// Between nodes over TCP the socket transport's threads take cores from the loaders
// (system/socket_transport.hpp socket_busy_cores): NCCL's proxy thread and its helpers, gloo's loop
// thread, none for MPI (its calling thread). By hand on AWS p3.16xlarge (8 V100, 25 Gb/s ENA: NCCL
// runs 2 helper threads on each of a GPU's 2 connections), 64 cores, 8 workers asked, 4 ms a
// sample, batch 64: one node decodes in 64 x 4 / 8 = 32 ms (reading 8 x 64 samples of 110 KiB from
// the 2 GB/s SSD takes 28.8); on two, NCCL's 8 x (1 + 2 x 2) = 40 threads leave 24 cores, 3 workers
// a GPU; gloo's 8 loop threads leave 7 workers; MPI keeps 8.
TEST(InputPipeline, SocketThreadsTakeTheLoadersCores) {
  EXPECT_EQ(socket_busy_cores(SocketThreads{2, 8, 2}, Library::Nccl), 5);
  EXPECT_EQ(socket_busy_cores(SocketThreads{0, 1, 2}, Library::Nccl), 1);
  EXPECT_EQ(socket_busy_cores(kOneThreadOnePeer, Library::Gloo), 1);
  EXPECT_EQ(socket_busy_cores(kOneThreadOnePeer, Library::Mpi), 0);
  StorageSpec st;
  st.storage = Storage::Memory;
  st.decode_s = 2e-3;
  st.cpu_cores = 64;
  EXPECT_DOUBLE_EQ(input_batch_s(st, DataFormat::Records, 8, 64, 2, 8, 40), 64 * 2e-3 / 3);
  EXPECT_DOUBLE_EQ(input_batch_s(st, DataFormat::Records, 8, 64, 2, 8, 70), 64 * 2e-3 / 1);  // at least one
  const auto input_s = [](const std::string& nodes, const std::string& library) {
    const auto r = testutil::run_ddlsim("simulate --cluster.platform=aws-p3-16xlarge --input.cpu_cores=64 "
                                        "--input.loader_workers=8 --input.decode_ms=4 --training.batch_per_gpu=64 "
                                        "--format json --cluster.nodes=" + nodes + " --comm.library=" + library);
    EXPECT_EQ(r.code, 0) << r.out;
    return nlohmann::json::parse(r.out)["input_time_s"].get<double>();
  };
  EXPECT_DOUBLE_EQ(input_s("1", "nccl"), 64 * 4e-3 / 8);
  EXPECT_DOUBLE_EQ(input_s("2", "nccl"), 64 * 4e-3 / 3);
  EXPECT_DOUBLE_EQ(input_s("2", "gloo"), 64 * 4e-3 / 7);
  EXPECT_DOUBLE_EQ(input_s("2", "mpi"), 64 * 4e-3 / 8);
}
