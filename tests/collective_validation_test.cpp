// `ddlsim validate --set nccl`: published nccl-tests logs of real clusters. The page under docs/ is
// the program's output; the figures are held where they stand, so a change that makes them worse
// fails here (the targets, a priori <= 25 % and fitted-small-predicts-large <= 10 % in every
// band, are not met yet: docs/validation-collectives.md says by how much).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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
  ASSERT_EQ(j["systems"].size(), 22u);
  const auto& allreduce = j["pools"]["allreduce"];
  const auto& dev = allreduce["dev"];
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
  // The held-out systems are scored apart: three EFA clusters of one node count (a priori), and CSCS
  // Alps's GH200 cluster on 1 to 512 nodes (HPE Slingshot through a libfabric plugin), fitted on 1
  // and 2 nodes and scored on 4 to 512 once, blind: 43.7 % (-42.7 bias, too fast) against the
  // baseline's 67.5 %, every band better than the baseline; far from the 10 %.
  const auto& held = allreduce["held_out"];
  EXPECT_GT(held["a_priori"][3]["a_priori"]["n"].get<int>(), 0);
  EXPECT_EQ(held["scale_out"][3]["fitted"]["n"].get<int>(), 240);
  EXPECT_LE(mape(held["scale_out"], "all", "fitted"), 0.45);
  for (const char* band : {"< 1 MiB", "1-64 MiB", ">= 64 MiB"})
    EXPECT_LT(mape(held["scale_out"], band, "fitted"), mape(held["scale_out"], band, "baseline")) << band;
  // Inside one node (five development servers on NVLink or PCIe, one held out), pooled apart. Most
  // of these logs ran one thread driving every GPU (-g G): each size takes at least G issues of
  // 4.2 us (benchmark_time_s). Held where they stand: 1 MiB and more within about a fifth; small
  // messages off both ways by host (each issues at 3.4 to 6 us a GPU).
  const auto& node = allreduce["dev_one_node"]["a_priori"];
  EXPECT_EQ(node[3]["a_priori"]["n"].get<int>(), 175);
  EXPECT_LE(mape(node, ">= 64 MiB", "a_priori"), 0.13);
  EXPECT_LE(mape(node, "1-64 MiB", "a_priori"), 0.20);
  EXPECT_LE(mape(node, "< 1 MiB", "a_priori"), 0.25);
  EXPECT_LE(mape(allreduce["held_out_one_node"]["a_priori"], "all", "a_priori"), 0.14);
  // The exchanges' 80 % interval (predict/uncertainty.hpp) is the development allreduce logs' own
  // spread, 1 MiB and more: in-sample it holds 80 % of them, to the size; out of sample it is
  // checked here where it stands (the held-out clusters across nodes: 48 %, the EFA clusters 31 of
  // 51, Alps's Slingshot cluster less; the one-node server: 11 of 14).
  const auto share = [](const nlohmann::json& c) { return double(c["inside"].get<int>()) / c["n"].get<int>(); };
  EXPECT_EQ(dev["interval_80"]["n"].get<int>(), 127);
  EXPECT_NEAR(share(dev["interval_80"]), 0.8, 0.01);
  EXPECT_NEAR(share(allreduce["dev_one_node"]["interval_80"]), 0.8, 0.02);
  EXPECT_GE(share(allreduce["held_out"]["interval_80"]), 0.45);
  EXPECT_GE(share(allreduce["held_out_one_node"]["interval_80"]), 0.75);
  EXPECT_GT(allreduce["held_out_one_node"]["a_priori"][3]["a_priori"]["n"].get<int>(), 0);
}

// Reduce-scatter and all-gather (issue 42): published reduce_scatter_perf and all_gather_perf logs of
// four systems, each collective pooled apart; an index row takes its folder's logs of its own op
// (Snellius's and the H100 cluster's folders hold both). Held where they stand.
TEST(CollectiveValidation, GatherAndScatterArePooledApart) {
  const auto r = testutil::run_ddlsim("validate --set nccl --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> ops;
  for (const auto& [op, pool] : j["pools"].items()) ops.push_back(op);
  EXPECT_EQ(ops, (std::vector<std::string>{"allgather", "allreduce", "reduce_scatter"}));  // as parsed: sorted
  for (const auto& s : j["systems"])
    if (s["system"] == "snellius_h100_4g_ndr200")  // 22 sizes on 1 node and 27 on 2, of its own op only
      EXPECT_EQ(s["a_priori"][3]["a_priori"]["n"].get<int>(), 49) << s["op"];
  // Across nodes, a priori: reduce-scatter within 8 % from 64 MiB (Snellius's and the H100 cluster's
  // rings reach their rails); all-gather off by half below 64 MiB on Polaris, whose libfabric
  // plugin over Slingshot takes about 8 us a ring step where the model's link takes 3.
  const auto& rs = j["pools"]["reduce_scatter"]["dev"];
  EXPECT_EQ(rs["a_priori"][3]["a_priori"]["n"].get<int>(), 69);
  EXPECT_LE(mape(rs["a_priori"], ">= 64 MiB", "a_priori"), 0.08);
  EXPECT_LE(mape(rs["a_priori"], "all", "a_priori"), 0.18);
  const auto& ag = j["pools"]["allgather"]["dev"];
  EXPECT_EQ(ag["a_priori"][3]["a_priori"]["n"].get<int>(), 133);
  EXPECT_LE(mape(ag["a_priori"], ">= 64 MiB", "a_priori"), 0.17);
  EXPECT_LE(mape(ag["a_priori"], "all", "a_priori"), 0.39);
  // Fitted on the fewest nodes: from 64 MiB better than the baseline for both.
  for (const auto* pool : {&rs, &ag})
    EXPECT_LT(mape((*pool)["scale_out"], ">= 64 MiB", "fitted"), mape((*pool)["scale_out"], ">= 64 MiB", "baseline"));
  // The held-out DGX A100 pair (all-gather only), a priori: scored apart, where it stood when first read.
  const auto& held = j["pools"]["allgather"]["held_out"]["a_priori"];
  EXPECT_EQ(held[3]["a_priori"]["n"].get<int>(), 23);
  EXPECT_LE(mape(held, "all", "a_priori"), 0.27);
  EXPECT_LE(mape(held, ">= 64 MiB", "a_priori"), 0.09);
  // The allreduce's exchange interval on these other collectives, out of sample: every held-out
  // all-gather size of 1 MiB and more inside it, the development ones 73-98 %.
  const auto& held_cover = j["pools"]["allgather"]["held_out"]["interval_80"];
  EXPECT_EQ(held_cover["inside"].get<int>(), held_cover["n"].get<int>());
  EXPECT_GT(held_cover["n"].get<int>(), 0);
}

// An index row whose folder has no log of its collective is refused, naming the row.
TEST(CollectiveValidation, ARowWithoutALogOfItsCollectiveIsRefused) {
  testutil::TempFile dir("unused");
  const std::string nccl = dir.dir() + "/nccl";
  std::filesystem::create_directories(nccl + "/sys");
  std::filesystem::copy_file(testutil::source_dir() + "/scenarios/validation/nccl/snellius_h100_4g.ini",
                             nccl + "/s.ini");
  std::filesystem::copy_file(testutil::source_dir() +
                                 "/scenarios/validation/nccl/snellius_h100_4g_ndr200/2n_4g_all_gather_odissei.log",
                             nccl + "/sys/2n_4g_all_gather_odissei.log");
  std::ofstream(nccl + "/index.csv") << "system,scenario,train_max_nodes,role,op,source\nsys,s.ini,2,dev,reduce_scatter,x\n";
  const auto r = testutil::run_ddlsim("validate --set nccl --data " + dir.dir());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("index.csv:2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no log of sys/ measured reduce_scatter"), std::string::npos) << r.out;
}
