// `ddlsim validate --set nccl`: published nccl-tests logs of real clusters. The page under docs/ is
// the program's output; the figures are held where they stand, so a change that makes them worse
// fails here (the targets, a priori <= 25 % and fitted-small-predicts-large <= 10 % in every
// band, are not met yet: docs/validation-collectives.md says by how much).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.hpp"

namespace {

double mape(const nlohmann::json& bands, const char* band, const char* column) {
  for (const auto& b : bands)
    if (b["band"] == band) return b[column]["mape"].get<double>();
  ADD_FAILURE() << band;
  return 1e9;
}

}  // namespace

TEST(CollectiveValidation, DocsPageIsTheCommandsOutput) {
  const auto r = testutil::run_ddlsim("validate --set nccl --format markdown");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, testutil::slurp(testutil::source_dir() + "/docs/validation-collectives.md"))
      << "docs/validation-collectives.md is generated: build/ddlsim validate --set nccl > docs/validation-collectives.md";
}

TEST(CollectiveValidation, FiguresHoldWhereTheyStand) {
  const auto r = testutil::run_ddlsim("validate --set nccl --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["systems"].size(), 15u);
  const auto& dev = j["dev"];
  // Where the figures stand (NCCL master's constants, NVLS tree in NCCL's loops, NCCL's estimate as
  // a floor, each size's faster of nccl-tests' two timings), a point or so above each: the issue's
  // targets (a priori 25 %, fitted 10 % in every band) are not all met yet.
  EXPECT_LE(mape(dev["a_priori"], "all", "a_priori"), 0.22);
  EXPECT_LE(mape(dev["a_priori"], "< 1 MiB", "a_priori"), 0.28);
  EXPECT_LE(mape(dev["a_priori"], "1-64 MiB", "a_priori"), 0.21);
  EXPECT_LE(mape(dev["a_priori"], ">= 64 MiB", "a_priori"), 0.14);
  // Scale-out on the two systems with several node counts: fitted on 2 nodes, scored on 4 and 8,
  // better than the baseline "as measured at 2 nodes" in every band. The rails' bandwidth is kept
  // (it does not bound the 2-node logs' largest messages: NVLS tree there), so above 64 MiB the
  // 4- and 8-node logs that reach less than NCCL's own model stay too fast, and 1-64 MiB keeps the
  // model's mid-size deficit: within 10 % below 1 MiB, the 10 % not met above it.
  EXPECT_EQ(dev["scale_out"][3]["fitted"]["n"].get<int>(), 60);
  EXPECT_LE(mape(dev["scale_out"], "all", "fitted"), 0.12);
  EXPECT_LE(mape(dev["scale_out"], "< 1 MiB", "fitted"), 0.10);
  EXPECT_LE(mape(dev["scale_out"], "1-64 MiB", "fitted"), 0.14);
  EXPECT_LE(mape(dev["scale_out"], ">= 64 MiB", "fitted"), 0.13);
  for (const char* band : {"< 1 MiB", "1-64 MiB", ">= 64 MiB"})
    EXPECT_LT(mape(dev["scale_out"], band, "fitted"), mape(dev["scale_out"], band, "baseline")) << band;
  // The held-out systems are scored apart, a priori (each has one node count).
  EXPECT_GT(j["held_out"]["a_priori"][3]["a_priori"]["n"].get<int>(), 0);
  // Inside one node (five development servers on NVLink or PCIe, one held out), pooled apart. Held
  // where they stand: small messages are still off both ways (PCIe servers too slow, NVLink ones
  // too fast; a PCIe link's latency is half NCCL's 1 us LL step), 1 MiB and more within about a fifth.
  const auto& node = j["dev_one_node"]["a_priori"];
  EXPECT_EQ(node[3]["a_priori"]["n"].get<int>(), 175);
  EXPECT_LE(mape(node, ">= 64 MiB", "a_priori"), 0.13);
  EXPECT_LE(mape(node, "1-64 MiB", "a_priori"), 0.20);
  EXPECT_LE(mape(node, "< 1 MiB", "a_priori"), 0.30);
  EXPECT_GT(j["held_out_one_node"]["a_priori"][3]["a_priori"]["n"].get<int>(), 0);
}
