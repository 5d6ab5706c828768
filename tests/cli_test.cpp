// The ddlsim binary: exit codes, messages, and that a failed run writes nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.hpp"

using testutil::run_ddlsim;
using testutil::TempFile;

namespace {
const std::string kDefault = testutil::source_dir() + "/scenarios/default.ini";
const std::string kPcad = testutil::source_dir() + "/scenarios/pcad_factorial.ini";
}  // namespace

TEST(Cli, SimulateJsonHasTheDocumentedFields) {
  const auto r = run_ddlsim("simulate " + kDefault + " --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* k : {"params_total", "params_trainable", "gradient_bytes", "ranks", "nodes", "batch_per_gpu",
                        "steps_per_epoch", "step_time_s", "compute_time_s", "comm_time_s", "exposed_comm_s",
                        "input_time_s", "epoch_time_s", "samples_per_s", "speedup", "efficiency", "comm_overhead"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["nodes"], 4);
}

TEST(Cli, OverrideOnTheCommandLine) {
  const auto r = run_ddlsim("simulate " + kDefault + " --format json --cluster.nodes=2 --training.batch_per_gpu 32");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["nodes"], 2);
  EXPECT_EQ(j["batch_per_gpu"], 32);
}

TEST(Cli, BadInputExitsTwoAndWritesNothing) {
  TempFile out("out.json");
  const std::string o = " --output " + out.path();
  for (const std::string& args : std::vector<std::string>{
           "simulate " + kDefault + " --training.batch_per_gpu=-3",
           "simulate " + kDefault + " --training.batch_per_gpu=abc",
           "simulate " + kDefault + " --training.bogus=1",
           "simulate " + kDefault + " --model.name=alexnet9",
           "simulate " + kDefault + " --training.framework=mxnet",
           std::string("simulate /nonexistent.ini"),
           "simulate " + kDefault + " --format yaml",
       }) {
    const auto r = run_ddlsim(args + o);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("ddlsim: error:"), std::string::npos) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "one message: " << r.out;
    EXPECT_FALSE(testutil::exists(out.path())) << args;
  }
}

TEST(Cli, ErrorNamesFileLineAndKey) {
  TempFile ini("bad.ini", "[training]\nbatch_per_gpu = 0\n");
  const auto r = run_ddlsim("simulate " + ini.path());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("bad.ini:2: training.batch_per_gpu = '0'"), std::string::npos) << r.out;
}

TEST(Cli, EmptySweepIsAnError) {
  TempFile out("out.csv");
  const auto r = run_ddlsim("sweep " + kDefault + " --output " + out.path());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("[sweep]"), std::string::npos) << r.out;
  EXPECT_FALSE(testutil::exists(out.path()));
}

TEST(Cli, SweepWritesOneRowPerConfiguration) {
  TempFile out("pcad.csv");
  const auto r = run_ddlsim("sweep " + kPcad + " --jobs 2 --output " + out.path());
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string csv = testutil::slurp(out.path());
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 37);
  EXPECT_EQ(csv.rfind("model.name,", 0), 0u);
  // same inputs, same bytes, whatever the parallelism
  TempFile again("pcad.csv");
  ASSERT_EQ(run_ddlsim("sweep " + kPcad + " --jobs 1 --output " + again.path()).code, 0);
  EXPECT_EQ(csv, testutil::slurp(again.path()));
}

TEST(Cli, SweepKeepsFailedRows) {
  TempFile ini("s.ini", "[cluster]\nplatform = poti\n[sweep]\ncluster.nodes = 1, 99, 2\n");
  TempFile out("out.csv");
  const auto r = run_ddlsim("sweep " + ini.path() + " --output " + out.path());
  EXPECT_EQ(r.code, 2) << r.out;
  const std::string csv = testutil::slurp(out.path());
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4) << csv;
  EXPECT_NE(csv.find("cluster.nodes = '99'"), std::string::npos) << csv;
}

// A list of which no value is valid is refused before any configuration runs (issue 43: 49 model
// names x 12 x ... ran 536,406 failed configurations into an 812 MB CSV); nothing is written.
TEST(Cli, SweepRefusesAWhollyInvalidListUpFront) {
  TempFile ini("s.ini", "[cluster]\nplatform = poti\n[sweep]\nmodel.name = 1, 2, 3\ncluster.nodes = 1, 2\n");
  TempFile out("out.csv");
  const auto r = run_ddlsim("sweep " + ini.path() + " --output " + out.path());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(": no value of the list is valid, so every configuration would fail; the first: "),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("model.name = '1'"), std::string::npos) << r.out;
  EXPECT_FALSE(testutil::exists(out.path() + ".sweep-state"));
  EXPECT_EQ(testutil::slurp(out.path()), "");
}

TEST(Cli, ModelsListsTheZoo) {
  const auto r = run_ddlsim("models");
  ASSERT_EQ(r.code, 0);
  for (const char* m : {"resnet50", "resnet101", "efficientnet_b0", "mobilenet_v2", "inception_v3", "vgg16", "small_cnn"})
    EXPECT_NE(r.out.find(m), std::string::npos) << m;
  const auto j = run_ddlsim("models resnet50 --format json");
  ASSERT_EQ(j.code, 0);
  EXPECT_EQ(nlohmann::json::parse(j.out)["params_total"], 25636712);
  EXPECT_EQ(run_ddlsim("models nosuchnet").code, 2);
  // The list as CSV: a header and one row of six cells a model.
  const auto csv = run_ddlsim("models --format csv");
  ASSERT_EQ(csv.code, 0);
  EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')), "name,input,classes,params_total,params_trainable,fwd_gflops");
  EXPECT_NE(csv.out.find("\nresnet50,224x224x3,1000,25636712,25583592,"), std::string::npos) << csv.out;
}

TEST(Cli, UnknownCommand) { EXPECT_EQ(run_ddlsim("frobnicate").code, 2); }

// Every command answers --help with its options (from the description that parses them), exit 0.
TEST(Cli, EveryCommandAnswersHelp) {
  for (const char* c : {"simulate", "sweep", "collective", "models", "keys", "calibrate", "calibrate-input", "netbench",
                        "netfit", "platform", "compare", "fit", "validate", "advise", "map"}) {
    const auto r = run_ddlsim(std::string(c) + " --help");
    EXPECT_EQ(r.code, 0) << c << "\n" << r.out;
    EXPECT_NE(r.out.find(std::string("usage: ddlsim ") + c), std::string::npos) << c << "\n" << r.out;
  }
  const auto sim = run_ddlsim("simulate --help");
  EXPECT_NE(sim.out.find("--format arg (=table)"), std::string::npos) << sim.out;
}

TEST(Cli, VersionNamesSimGrid) {
  const auto r = run_ddlsim("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind("ddlsim 0.1.0 (SimGrid 3.", 0), 0u) << r.out;
}

TEST(Cli, MistypedNamesGetASuggestion) {
  const struct {
    const char* args;
    const char* says;
  } cases[] = {
      {"simlate", "unknown command 'simlate'; did you mean 'simulate'?"},
      {"simulate --trainig.batch_per_gpu=3", "did you mean 'training.batch_per_gpu'?"},
      {"simulate --cluster.platform=dgx-a10", "did you mean 'dgx-a100'?"},
      {"simulate --training.framework=horovd", "did you mean 'horovod'?"},
      {"simulate --compute.device=v10", "did you mean 'v100'?"},
      // A key's or an option's prefix is not guessed into the whole name (Boost's default would).
      {"simulate --framework.mod=eager", "unknown key 'framework.mod'"},
      {"sweep scenarios/pcad_factorial.ini --job 1", "unrecognised option '--job'"},
  };
  for (const auto& c : cases) {
    const auto r = run_ddlsim(c.args);
    EXPECT_EQ(r.code, 2) << c.args;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << c.args << "\n" << r.out;
  }
  // Far from every name: no suggestion.
  EXPECT_EQ(run_ddlsim("simulate --compute.device=quantum").out.find("did you mean"), std::string::npos);
}

// simulate without a scenario file tells a person at a terminal that it predicts the built-in
// defaults; through a pipe (a script reading the prediction) the output is the prediction alone.
TEST(Cli, SimulateWithoutAScenarioSaysSoOnATerminal) {
  const auto tty = testutil::run_shell("script -qec '" + std::string(DDLSIM_BINARY) + " simulate --format json' /dev/null");
  EXPECT_EQ(tty.code, 0) << tty.out;
  EXPECT_NE(tty.out.find("no scenario file given: the built-in defaults"), std::string::npos) << tty.out;
  const auto pipe = testutil::run_ddlsim("simulate --format json");
  EXPECT_EQ(pipe.out.find("no scenario file given"), std::string::npos) << pipe.out;
}

// CITATION.cff names the version the program reports.
TEST(Cli, CitationNamesTheProgramsVersion) {
  const auto v = testutil::run_ddlsim("--version");
  ASSERT_EQ(v.code, 0) << v.out;
  const std::string version = v.out.substr(std::string("ddlsim ").size(), v.out.find(' ', 7) - 7);
  EXPECT_NE(testutil::slurp(testutil::source_dir() + "/CITATION.cff").find("version: \"" + version + "\""),
            std::string::npos)
      << version;
}
