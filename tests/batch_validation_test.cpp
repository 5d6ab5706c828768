// `ddlsim validate --set batch`: one GPU's published throughput at several batches, calibrated at
// the largest and predicted at the smaller ones. The page under docs/ is the program's output; the
// issue's target (within 10 % at a batch 2, 4 and 8 times smaller) is held on the development
// sources, and every band beats "as measured at the largest batch".
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "compare/batch_validation.hpp"
#include "predict/uncertainty.hpp"
#include "test_util.hpp"

namespace {

const nlohmann::json& band(const nlohmann::json& bands, const char* name) {
  for (const auto& b : bands)
    if (b["band"] == name) return b;
  ADD_FAILURE() << name;
  return bands.front();
}

}  // namespace

TEST(BatchValidation, BandIsTheNearestPowerOfTwo) {
  EXPECT_EQ(ddlsim::batch_band(128, 64), "x2");
  EXPECT_EQ(ddlsim::batch_band(64, 48), "x2");   // 1.33 rounds up to the first band
  EXPECT_EQ(ddlsim::batch_band(10, 4), "x2");    // 2.5
  EXPECT_EQ(ddlsim::batch_band(160, 32), "x4");  // 5
  EXPECT_EQ(ddlsim::batch_band(128, 16), "x8");
  EXPECT_EQ(ddlsim::batch_band(128, 1), "x16+");
}

TEST(BatchValidation, DocsPageIsTheCommandsOutput) {
  const auto r = testutil::run_ddlsim("validate --set batch --format markdown");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, testutil::slurp(testutil::source_dir() + "/docs/validation-batch.md"))
      << "docs/validation-batch.md is generated: build/ddlsim validate --set batch > docs/validation-batch.md";
}

TEST(BatchValidation, CalibratedWithinTenPercentUpToEightTimesSmaller) {
  const auto r = testutil::run_ddlsim("validate --set batch --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* name : {"x2", "x4", "x8"}) {
    const auto& b = band(j["dev"], name);
    ASSERT_GT(b["calibrated"]["n"].get<int>(), 0) << name;
    EXPECT_LE(b["calibrated"]["mape"].get<double>(), 0.10) << name;
    EXPECT_LT(b["calibrated"]["mape"].get<double>(), b["baseline"]["mape"].get<double>()) << name;
  }
  // Where the x16+ band stands (a point above): the roofline's fixed costs carry the shape that far.
  EXPECT_LE(band(j["dev"], "x16+")["calibrated"]["mape"].get<double>(), 0.17);
  // The held-out source, scored apart: its batches are 1.25-5 times smaller.
  const auto& held = band(j["held_out"], "x2");
  ASSERT_GT(held["calibrated"]["n"].get<int>(), 10);
  EXPECT_LE(held["calibrated"]["mape"].get<double>(), 0.10);
  EXPECT_LT(held["calibrated"]["mape"].get<double>(), held["baseline"]["mape"].get<double>());
}

TEST(BatchValidation, RowOfSeveralGpusIsRefused) {
  const testutil::TempFile keep("unused");
  const std::string dir = keep.dir() + "/batch";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  std::ofstream(dir + "/runs.csv") << "group,role,scenario,model.name,cluster.nodes,cluster.gpus_per_node,"
                                      "training.batch_per_gpu,samples_per_s,source\n"
                                      "g,dev,s.ini,resnet50,1,8,64,100,x\ng,dev,s.ini,resnet50,1,8,32,90,x\n";
  std::ofstream(dir + "/s.ini") << "[cluster]\nplatform = dgx1\n";
  const auto r = testutil::run_ddlsim("validate --set batch --data " + keep.dir());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("runs.csv:2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("expected one"), std::string::npos) << r.out;
}

TEST(BatchValidation, PlotIsRefusedNotIgnored) {
  for (const char* set : {"batch", "nccl"}) {
    const auto r = testutil::run_ddlsim(std::string("validate --set ") + set + " --plot /tmp/never.svg");
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find("--plot draws the step-time sets"), std::string::npos) << r.out;
  }
}

// The per-octave spread (predict/uncertainty.hpp kBatchOctaveLogTimeP10/P90) is the development
// series' own: ln(predicted / measured throughput) = ln(measured / predicted time) over
// |log2(batch / calibrated batch)|, its 10th and 90th percentiles (linear between order statistics).
TEST(BatchValidation, OctaveSpreadIsTheDevelopmentSeriesOwn) {
  const auto r = testutil::run_ddlsim("validate --set batch --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  std::vector<double> per_octave;
  for (const auto& s : j["series"]) {
    if (s["role"] != "dev") continue;
    const double b1 = s["calibrated_batch"].get<double>();
    for (const auto& p : s["points"]) {
      if (p["band"] == "") continue;
      const double octaves = std::abs(std::log2(p["batch"].get<double>() / b1));
      per_octave.push_back(
          std::log(p["calibrated_samples_per_s"].get<double>() / p["measured_samples_per_s"].get<double>()) / octaves);
    }
  }
  ASSERT_EQ(per_octave.size(), 27u);
  const auto quantile = [&](double q) { return testutil::quantile(per_octave, q); };
  EXPECT_NEAR(quantile(0.1), ddlsim::kBatchOctaveLogTimeP10, 5e-5);
  EXPECT_NEAR(quantile(0.9), ddlsim::kBatchOctaveLogTimeP90, 5e-5);
}

// Where the calibrated intervals stand: in-sample about 80 % by construction; the held-out source
// (its batches 1.25-5 times smaller, where a run's own noise is most of the error) at half, against
// 9 of 26 with the device spread alone, the interval before it widened with the batch.
TEST(BatchValidation, CalibratedIntervalsHoldWhereTheyStand) {
  const auto r = testutil::run_ddlsim("validate --set batch --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  const auto share = [](const nlohmann::json& c) { return c["inside"].get<double>() / c["n"].get<double>(); };
  EXPECT_EQ(j["dev_interval_coverage"]["n"].get<int>(), 27);
  EXPECT_GE(share(j["dev_interval_coverage"]), 0.75);
  EXPECT_EQ(j["held_out_interval_coverage"]["n"].get<int>(), 26);
  EXPECT_GE(share(j["held_out_interval_coverage"]), 0.45);
}

// Each series is pooled again within its role by the model's family (attention: transformer;
// convolutions without attention: convolutional); the families' rows partition the role's. Where
// they stand on the development sources: convolutional models within the 10 % at a batch 2,
// 4 and 8 times smaller; transformers have development rows only at x2 (BERT-large fine-tuning on
// V100s: 3 -> 2 and 10 -> 4), 10.7 %, over the 10 % (the two series of 10 -> 4 lose more throughput
// than the roofline's fixed costs give, the one of 3 -> 2 less).
TEST(BatchValidation, PooledPerModelFamilyWhereTheyStand) {
  const auto r = testutil::run_ddlsim("validate --set batch --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& s : j["series"]) {
    const std::string group = s["group"], family = s["family"];
    EXPECT_EQ(family, group.find("bert") != std::string::npos ? "transformer" : "convolutional") << group;
  }
  for (const char* role : {"dev", "held_out"}) {
    for (const auto& whole : j[role]) {
      int n = 0;
      const std::string name = whole["band"];
      for (const auto& f : j[std::string(role) + "_families"])
        n += band(f["bands"], name.c_str())["calibrated"]["n"].get<int>();
      EXPECT_EQ(n, whole["calibrated"]["n"].get<int>()) << role << " " << whole["band"];
    }
  }
  const auto family = [&](const char* name) -> const nlohmann::json& {
    for (const auto& f : j["dev_families"])
      if (f["family"] == name) return f["bands"];
    ADD_FAILURE() << name;
    return j["dev"];
  };
  for (const char* name : {"x2", "x4", "x8"}) {
    const auto& b = band(family("convolutional"), name);
    ASSERT_GT(b["calibrated"]["n"].get<int>(), 0) << name;
    EXPECT_LE(b["calibrated"]["mape"].get<double>(), 0.10) << name;
    EXPECT_LT(b["calibrated"]["mape"].get<double>(), b["baseline"]["mape"].get<double>()) << name;
  }
  const auto& t = band(family("transformer"), "x2");
  EXPECT_EQ(t["calibrated"]["n"].get<int>(), 3);
  EXPECT_LE(t["calibrated"]["mape"].get<double>(), 0.11);
  EXPECT_LT(t["calibrated"]["mape"].get<double>(), t["baseline"]["mape"].get<double>());
  EXPECT_EQ(band(family("transformer"), "x4")["calibrated"]["n"].get<int>(), 0);
}
