// Scenario files and overrides: one schema, typed values, clear errors with file and line.
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.hpp"
#include "predict/prediction.hpp"
#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"
#include "sweep/sweep.hpp"
#include "test_util.hpp"

using namespace ddlsim;
using testutil::TempFile;

namespace {
std::string error_of(const std::string& ini, const std::vector<std::string>& overrides = {}) {
  TempFile f("s.ini", ini);
  try {
    const ScenarioInput in = read_scenario(f.path(), overrides);
    resolve_scenario(in.settings, f.dir());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Scenario, DefaultsResolveWithoutAFile) {
  const ScenarioInput in = read_scenario("", {});
  EXPECT_EQ(in.settings.size(), scenario_keys().size());
  const Scenario sc = resolve_scenario(in.settings, ".");
  EXPECT_EQ(sc.model.name, "resnet50");
  EXPECT_EQ(sc.execution.framework, "horovod");
}

TEST(Scenario, CommandLineOverridesTheFile) {
  TempFile f("s.ini", "[training]\nbatch_per_gpu = 32\n");
  const ScenarioInput in = read_scenario(f.path(), {"--training.batch_per_gpu=100"});
  EXPECT_EQ(resolve_scenario(in.settings, ".").execution.batch_per_gpu, 100);
  const ScenarioInput file_only = read_scenario(f.path(), {});
  EXPECT_EQ(resolve_scenario(file_only.settings, ".").execution.batch_per_gpu, 32);
}

TEST(Scenario, UnknownKeyNamesFileLineAndKey) {
  const std::string e = error_of("[model]\nname = resnet50\n\n[training]\nbatchsize = 3\n");
  EXPECT_NE(e.find("s.ini:5"), std::string::npos) << e;
  EXPECT_NE(e.find("training.batchsize"), std::string::npos) << e;
}

TEST(Scenario, NonNumericAndNegativeValuesAreRejected) {
  std::string e = error_of("[training]\nbatch_per_gpu = abc\n");
  EXPECT_NE(e.find("s.ini:2: training.batch_per_gpu = 'abc'"), std::string::npos) << e;
  EXPECT_NE(e.find("positive integer"), std::string::npos) << e;
  e = error_of("[training]\nbatch_per_gpu = -4\n");
  EXPECT_NE(e.find("training.batch_per_gpu = '-4'"), std::string::npos) << e;
  e = error_of("[cluster]\ninter_bw_GBps = -1\n");
  EXPECT_NE(e.find("cluster.inter_bw_GBps"), std::string::npos) << e;
  e = error_of("# no keys\n", {"--training.samples=1e"});
  EXPECT_NE(e.find("command line: --training.samples"), std::string::npos) << e;
}

TEST(Scenario, UnknownNamesListTheChoices) {
  EXPECT_NE(error_of("[model]\nname = resnet5\n").find("s.ini:2: model.name"), std::string::npos);
  EXPECT_NE(error_of("[training]\nframework = keras\n").find("horovod"), std::string::npos);
  EXPECT_NE(error_of("[cluster]\nplatform = mars\n").find("tupi"), std::string::npos);
  EXPECT_NE(error_of("[compute]\ndevice = tpu\n").find("rtx4090"), std::string::npos);
}

TEST(Scenario, SyntaxErrorsNameTheLine) {
  EXPECT_NE(error_of("[model\nname = x\n").find("s.ini:1"), std::string::npos);
  EXPECT_NE(error_of("[model]\njust words\n").find("s.ini:2"), std::string::npos);
  EXPECT_NE(error_of("[model]\nname = a\nname = b\n").find("set twice"), std::string::npos);
  // Boost reads [comm.] as the group comm; found by the ini fuzzer (it threw map::at).
  EXPECT_NE(error_of("[comm.]\nalgorithm = ring\n").find("s.ini:1: expected [section] naming a group"),
            std::string::npos);
  EXPECT_NE(error_of("[.comm]\nalgorithm = ring\n").find("s.ini:1"), std::string::npos);
}

TEST(Scenario, MissingFileIsNamed) {
  try {
    read_scenario("/nonexistent/x.ini", {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.ini"), std::string::npos);
  }
}

TEST(Scenario, PresetsFillOnlyWhatTheScenarioLeavesOpen) {
  TempFile f("s.ini", "[training]\nframework = tf_custom_accum\n");
  Scenario sc = resolve_scenario(read_scenario(f.path(), {}).settings, ".");
  EXPECT_EQ(sc.execution.sync_period, 4);
  EXPECT_EQ(sc.execution.bucket_bytes, 0);
  EXPECT_FALSE(sc.execution.overlap);
  sc = resolve_scenario(read_scenario(f.path(), {"--comm.overlap=true", "--training.sync_period=2"}).settings, ".");
  EXPECT_TRUE(sc.execution.overlap);
  EXPECT_EQ(sc.execution.sync_period, 2);
  sc = resolve_scenario(read_scenario("", {"--training.framework=pytorch_ddp"}).settings, ".");
  EXPECT_DOUBLE_EQ(sc.execution.bucket_bytes, 25.0 * 1024 * 1024);
}

TEST(Scenario, LbannAndTarantellaPresets) {
  Scenario sc = resolve_scenario(read_scenario("", {"--training.framework=lbann"}).settings, ".");
  EXPECT_EQ(sc.execution.algorithm, Algorithm::Auto);  // Aluminum's NCCL backend: NCCL's own choice
  EXPECT_TRUE(sc.execution.overlap);
  const Prediction lbann = predict(sc);
  int weighted = 0;
  for (const auto& l : sc.model.layers) weighted += l.params_trainable > 0;  // BatchNorm included
  EXPECT_EQ(lbann.buckets, weighted);  // one allreduce per layer with weights
  sc = resolve_scenario(read_scenario("", {"--training.framework=tarantella"}).settings, ".");
  EXPECT_EQ(sc.execution.algorithm, Algorithm::HalvingDoubling);
  EXPECT_DOUBLE_EQ(sc.execution.bucket_bytes, 32.0 * 1024);
  EXPECT_TRUE(sc.execution.overlap);
  const Prediction tnt = predict(sc);
  EXPECT_LT(tnt.buckets, lbann.buckets);  // small layers share a buffer
  EXPECT_GT(tnt.buckets, 1);
}

TEST(Scenario, PlatformNodeLimit) {
  EXPECT_NE(error_of("[cluster]\nplatform = poti\nnodes = 50\n").find("cluster.nodes"), std::string::npos);
}

TEST(Sweep, PcadFactorialHas36Configurations) {
  const ScenarioInput in = read_scenario(testutil::source_dir() + "/scenarios/pcad_factorial.ini", {});
  const auto configs = expand_sweep(in);
  ASSERT_EQ(configs.size(), 36u);
  // the last key in name order varies fastest
  EXPECT_EQ(configs[0].at("training.framework").value, "tf_mirrored");
  EXPECT_EQ(configs[1].at("training.framework").value, "tf_custom_accum");
}

TEST(Sweep, EmptyValueListIsAnError) {
  TempFile f("s.ini", "[sweep]\ncluster.nodes = ,\n");
  EXPECT_THROW(read_scenario(f.path(), {}), InputError);
}

// Horovod's defaults by version (its 0.21 changelog): both can be chosen.
TEST(Scenario, HorovodPresetsCarryTheirVersionsDefaults) {
  const Scenario old = resolve_scenario(read_scenario("", {"--training.framework=horovod"}).settings, ".");
  const Scenario now = resolve_scenario(read_scenario("", {"--training.framework=horovod021"}).settings, ".");
  EXPECT_DOUBLE_EQ(old.execution.bucket_bytes, 64 * kMiB);
  EXPECT_DOUBLE_EQ(old.execution.cycle_time_s, 5e-3);
  EXPECT_DOUBLE_EQ(now.execution.bucket_bytes, 128 * kMiB);
  EXPECT_DOUBLE_EQ(now.execution.cycle_time_s, 1e-3);
}

// model.dropout sets the zoo transformers' rate; elsewhere it would change nothing, so it is refused.
TEST(Scenario, ModelDropoutOnlyForZooTransformers) {
  EXPECT_EQ(error_of("[model]\nname = gpt2\ndropout = 0\n"), "");
  EXPECT_NE(error_of("[model]\nname = resnet50\ndropout = 0.1\n").find("s.ini:3: model.dropout"), std::string::npos);
  EXPECT_NE(error_of("[model]\nname = resnet50\ndropout = 0.1\n").find("resnet50 has no dropout"), std::string::npos);
  EXPECT_NE(error_of("[model]\nname = gpt2\ndropout = 1\n").find("<= 0.99"), std::string::npos);
  EXPECT_NE(error_of("[model]\nfile = " + testutil::source_dir() + "/models/mlp_materials.model\ndropout = 0.1\n")
                .find("no model.dropout with a model file"),
            std::string::npos);
}

// model.drop_path sets stochastic depth where the zoo's layout has it (a ConvNeXt here) and is
// refused elsewhere, where it would change nothing.
TEST(Scenario, ModelDropPathOnlyWithStochasticDepth) {
  EXPECT_EQ(error_of("[model]\nname = convnext_tiny\ndrop_path = 0\n"), "");
  EXPECT_NE(error_of("[model]\nname = resnet50\ndrop_path = 0.1\n").find("s.ini:3: model.drop_path"),
            std::string::npos);
  EXPECT_NE(error_of("[model]\nname = resnet50\ndrop_path = 0.1\n").find("resnet50 has none"), std::string::npos);
  EXPECT_NE(error_of("[model]\nname = swin_t\ndrop_path = 1\n").find("<= 0.99"), std::string::npos);
  EXPECT_NE(error_of("[model]\nfile = " + testutil::source_dir() + "/models/mlp_materials.model\ndrop_path = 0\n")
                .find("no model.drop_path with a model file"),
            std::string::npos);
}

// model.precision = bf16: costed as mixed (the same tensor-core rate, autocast's same lists) on GPUs
// that have BF16 (Ampere and later); refused with the reason on the others.
TEST(Scenario, Bf16OnAmpereAndLater) {
  EXPECT_EQ(error_of("[model]\nprecision = bf16\n[compute]\ndevice = a100\n"), "");
  EXPECT_EQ(error_of("[model]\nprecision = bf16\n[compute]\ndevice = rtx4090\n"), "");
  const std::string v100 = error_of("[model]\nprecision = bf16\n[compute]\ndevice = v100\n");
  EXPECT_NE(v100.find("s.ini:2: model.precision"), std::string::npos) << v100;
  EXPECT_NE(v100.find("BF16 needs an Ampere or later GPU"), std::string::npos) << v100;
  EXPECT_NE(error_of("[model]\nprecision = bf16\n[compute]\ndevice = t4\n"), "");
}

// A memo of the last model (sweeps, planners) hands back the model the settings would build: the
// same one while the model keys stay, a new one as soon as any of them (or where it was set) differs.
TEST(Scenario, ResolveMemoGivesTheModelTheSettingsBuild) {
  ResolveMemo memo;
  const auto model_of = [&](const std::vector<std::string>& args, ResolveMemo* m) {
    return resolve_scenario(read_scenario("", args).settings, ".", m).model;
  };
  const auto same = [](const Model& a, const Model& b) {
    return a.name == b.name && a.layers.size() == b.layers.size() && a.params_total() == b.params_total() &&
           a.fwd_flops_per_sample() == b.fwd_flops_per_sample() && a.input.h == b.input.h && a.classes == b.classes;
  };
  const std::vector<std::vector<std::string>> runs = {
      {"--model.name=resnet50"},
      {"--model.name=resnet50", "--cluster.nodes=4"},  // another key: the kept model
      {"--model.name=resnet50", "--model.input_size=128"},
      {"--model.name=resnet50", "--model.classes=10"},
      {"--model.name=vgg16"},
      {"--model.name=resnet50"},
      {"--model.name=bert_base", "--model.dropout=0"},
      {"--model.name=bert_base"},
      {"--input.dataset=cifar10", "--model.name=resnet50"},  // the dataset sets the model's input size
  };
  for (const auto& args : runs) {
    const Model fresh = model_of(args, nullptr);
    EXPECT_TRUE(same(model_of(args, &memo), fresh)) << args.back();
  }
  // A wrong value still fails where the memo holds another model.
  EXPECT_THROW(model_of({"--model.name=resnet51"}, &memo), InputError);
}

// The memo's platform file: the description a fresh read gives, kept with the file's bytes, and
// read again once the file holds other bytes (another platform written over it).
TEST(Scenario, ResolveMemoReadsAPlatformFileAgainOnlyWhenItsBytesChange) {
  const std::string src = testutil::source_dir() + "/platforms/";
  const testutil::TempFile xml("cluster.xml", testutil::slurp(src + "tupi.xml"));
  ResolveMemo memo;
  const auto cluster_of = [&](ResolveMemo* m) {
    return resolve_scenario(read_scenario("", {"--cluster.platform=" + xml.path(), "--cluster.nodes=2"}).settings, ".", m)
        .system.cluster;
  };
  const auto same = [](const ClusterDescription& a, const ClusterDescription& b) {
    return a.name == b.name && a.device == b.device && a.max_nodes == b.max_nodes && a.gpus_per_node == b.gpus_per_node &&
           a.nics == b.nics && a.intra.bw_Bps == b.intra.bw_Bps && a.inter.bw_Bps == b.inter.bw_Bps &&
           a.inter.latency_s == b.inter.latency_s && a.xml_path == b.xml_path;
  };
  const ClusterDescription tupi = cluster_of(nullptr);
  EXPECT_TRUE(same(cluster_of(&memo), tupi));
  ASSERT_NE(memo.find_platform(xml.path(), testutil::slurp(xml.path())), nullptr);
  EXPECT_TRUE(same(*memo.find_platform(xml.path(), testutil::slurp(xml.path())), tupi));
  EXPECT_TRUE(same(cluster_of(&memo), tupi));  // taken from the memo
  std::ofstream(xml.path()) << testutil::slurp(src + "poti.xml");
  const ClusterDescription poti = cluster_of(nullptr);
  ASSERT_FALSE(same(poti, tupi));
  EXPECT_TRUE(same(cluster_of(&memo), poti));
  std::ofstream(xml.path()) << "<platform version=\"4.1\"><zone";  // not a platform any more
  EXPECT_THROW(cluster_of(&memo), InputError);
}
