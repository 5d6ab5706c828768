// A network plugin's rendezvous (cluster.net_eager_kib, cluster.net_rendezvous_us) in both backends:
// SimGrid's pipelined rings and chains hold a step above the limit on its link before it leaves
// (simgrid/rounds.cpp), its composed trees add it to the hop between nodes; every NCCL algorithm
// with steps in flight then takes what the closed forms give, fast and full fidelity alike (within
// 1e-5: SimGrid's one-byte floor on an empty message moves a small reduce-scatter by 8e-6 with or
// without a rendezvous).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "collective_cli.hpp"
#include "test_util.hpp"

namespace {
const char* const kSimGrid[] = {"--simulation.backend=simgrid --simulation.fidelity=fast",
                                "--simulation.backend=simgrid --simulation.fidelity=full"};
const char* const kRendezvous = " --cluster.net_eager_kib=32 --cluster.net_rendezvous_us=20";

double time_s(const std::string& args) {
  const auto row = testutil::collective_row(args);
  return row.contains("time_s") ? row["time_s"].get<double>() : -1;
}
}  // namespace

TEST(RendezvousBackends, SimGridTakesWhatTheClosedFormsGive) {
  const struct {
    const char* what;
    const char* args;
  } cases[] = {
      {"ring allreduce", "--cluster.platform=dgx-h100 --cluster.nodes=4 --algorithm ring"},
      {"dbtree allreduce", "--cluster.platform=dgx-a100 --cluster.nodes=4 --algorithm dbtree"},
      {"nvls_tree allreduce", "--cluster.platform=dgx-h100 --cluster.nodes=4 --algorithm nvls_tree"},
      {"collnet allreduce", "--cluster.platform=dgx-a100 --cluster.nodes=4 --cluster.network_reduction=sharp "
                            "--algorithm collnet"},
      {"ring allgather", "--cluster.platform=dgx-a100 --cluster.nodes=2 --cluster.gpus_per_node=4 --op allgather"},
      {"ring reduce_scatter", "--cluster.platform=dgx-a100 --cluster.nodes=3 --op reduce_scatter"},
      {"chain broadcast", "--cluster.platform=dgx-a100 --cluster.nodes=2 --op broadcast"},
  };
  for (const auto& c : cases)
    for (const char* size : {"8K", "4M", "64M"}) {
      const std::string args = std::string(c.args) + " --comm.nccl_protocol=simple --sizes " + size;
      const double without = time_s(args), with = time_s(args + kRendezvous);
      if (std::string(size) == "8K")
        EXPECT_EQ(with, without) << c.what;  // no step of 8 KiB carries more than 32 KiB
      else
        EXPECT_GT(with, without) << c.what << " " << size;  // steps of more than 32 KiB between nodes
      for (const char* backend : kSimGrid)
        EXPECT_NEAR(time_s(args + kRendezvous + " " + backend), with, 1e-5 * with) << c.what << " " << size << " " << backend;
    }
}

// A training step through SimGrid with the keys set: the analytic backend's step, fast and full.
TEST(RendezvousBackends, ASimulatedStepEqualsTheAnalyticOne) {
  const std::string keys = "--cluster.platform=dgx-a100 --cluster.nodes=2" + std::string(kRendezvous);
  const auto step = [&](const std::string& backend) {
    const auto r = testutil::run_ddlsim("simulate --format json " + keys + " " + backend);
    EXPECT_EQ(r.code, 0) << r.out;
    return r.code == 0 ? nlohmann::json::parse(r.out)["step_time_s"].get<double>() : -1.0;
  };
  const double analytic = step("--simulation.backend=analytic");
  for (const char* backend : kSimGrid) EXPECT_NEAR(step(backend), analytic, 1e-6 * analytic) << backend;
}

// The limit holds against what a step puts on the wire: LL's lines carry half data (4-byte flags),
// so on 16 ranks (2 DGX A100) a ring allreduce's 12 KiB steps (24 KiB on the wire) go under a 32 KiB
// limit and its 24 KiB steps (48 KiB) pay the rendezvous, whatever LL's bandwidth share (the call's
// bytes are the data's over it).
TEST(RendezvousBackends, TheLimitHoldsAgainstTheWireBytes) {
  const std::string args = "--cluster.platform=dgx-a100 --cluster.nodes=2 --algorithm ring --comm.nccl_protocol=ll ";
  const auto held = [&](const char* size) {
    return time_s(args + kRendezvous + " --sizes " + size) > time_s(args + " --sizes " + size);
  };
  EXPECT_FALSE(held("192K"));  // 16 x 12 KiB
  EXPECT_TRUE(held("384K"));   // 16 x 24 KiB
}
