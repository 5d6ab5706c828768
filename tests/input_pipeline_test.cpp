// The input pipeline's shared node resources and GPU decoding (cost/input_pipeline.hpp), by hand.
#include <gtest/gtest.h>

#include "cost/input_pipeline.hpp"

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
