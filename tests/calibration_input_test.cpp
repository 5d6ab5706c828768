// Bad options of `ddlsim calibrate` and `ddlsim netbench` stop with exit code 2 and a message
// naming the option, before anything is measured or launched (no mpirun needed), and the
// harness refuses batches whose kernel buffers cannot fit in memory instead of being killed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/error.hpp"
#include "kernels/harness.hpp"
#include "model/model.hpp"
#include "test_util.hpp"
#include "cost/collectives.hpp"

using namespace ddlsim;
using testutil::TempFile;

namespace {

const std::string kMlp = testutil::source_dir() + "/models/mlp_materials.model";

// Exit code 2 and a message containing `want`.
void expect_input_error(const std::string& args, const std::string& want) {
  const auto r = testutil::run_ddlsim(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
  EXPECT_NE(r.out.find(want), std::string::npos) << args << "\n" << r.out;
  EXPECT_EQ(r.out.find("internal error"), std::string::npos) << args << "\n" << r.out;
}

// A runner that must never be asked to run a kernel.
class NoKernelsRunner : public KernelRunner {
 public:
  std::string device() const override { return "cpu: none"; }
  std::string kind() const override { return "cpu"; }
  std::string clock() const override { return "none"; }
  void check_precision(Precision) const override {}
  MemoryBudget memory_budget() const override { return {16.0 * (1 << 30), "the 16 GiB of this test runner"}; }
  std::unique_ptr<PreparedKernel> prepare(const KernelSpec&) override {
    throw std::logic_error("a kernel was prepared");
  }
  double time_s(const std::vector<PreparedKernel*>&, int) override { throw std::logic_error("a kernel was timed"); }
};

}  // namespace

TEST(CalibrateOptions, MinTimeAndWarmupAreBounded) {
  TempFile out("x.cal");
  const std::string base = "calibrate --model " + kMlp + " --batch 8 --out " + out.path();
  for (const char* v : {"1e-20", "0", "-1", "inf", "nan", "61", "1e9"})
    expect_input_error(base + " --min-time " + v, "--min-time");
  for (const char* v : {"-0.1", "inf", "nan", "61", "1e9"}) expect_input_error(base + " --warmup " + v, "--warmup");
  expect_input_error(base + " --min-time 1e-20", "expected seconds per kernel from 0.0001 to 60");
  EXPECT_FALSE(testutil::exists(out.path()));
}

TEST(CalibrateOptions, BatchesArePositiveBoundedAndNotEmpty) {
  TempFile out("x.cal");
  const std::string base = "calibrate --model " + kMlp + " --out " + out.path() + " --batch ";
  for (const char* v : {"0", "-4", "65537", "99999999999999999999", "32,,64", "32,", "", "8x", "1.5"})
    expect_input_error(base + "'" + v + "'", "--batch '");
  expect_input_error(base + "0", "expected integers from 1 to 65536");
  EXPECT_FALSE(testutil::exists(out.path()));
}

TEST(CalibrateOptions, ZooModelSizesAreChecked) {
  const std::string base = "calibrate --model small_cnn --batch 8 --out /nonexistent/x.cal ";
  for (const char* v : {"12abc", "64x", "1x2x3", "0", "100001"})
    expect_input_error(base + "--input-size " + v, "--input-size");
  expect_input_error(base + "--channels 0", "--channels '0': expected an integer from 1 to 4096");
  expect_input_error(base + "--classes 5x", "--classes '5x'");
}

// The smallest --min-time and no warm-up end quickly (Google Benchmark spun forever at 1e-20).
TEST(CalibrateOptions, SmallestMinTimeFinishes) {
  TempFile out("x.cal");
  const auto r =
      testutil::run_ddlsim("calibrate --model " + kMlp + " --batch 2 --min-time 0.0001 --warmup 0 --out " + out.path());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(testutil::exists(out.path()));
}

TEST(CalibrateHarness, BuffersLargerThanMemoryAreAnInputError) {
  ModelOptions o = default_model_options("resnet50");
  o.input_h = o.input_w = 2048;  // first convolution: 65536 x 1024 x 1024 x 64 floats, far beyond any RAM
  const Model model = build_zoo_model("resnet50", o);
  NoKernelsRunner runner;
  try {
    calibrate_model(runner, model, {8, 65536}, Precision::FP32, HarnessOptions{});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--batch 65536: the largest kernel needs"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("more than the 16 GiB of this test runner"), std::string::npos) << e.what();
  }
}

TEST(CalibrateHarness, CpuRunnerBudgetIsMostOfThisMachinesMemory) {
  TempFile out("x.cal");
  expect_input_error("calibrate --model resnet50 --input-size 2048 --batch 65536 --out " + out.path(),
                     "of buffers, more than 80 % of this machine's");
  EXPECT_FALSE(testutil::exists(out.path()));
}

TEST(NetbenchOptions, SizesArePositiveBoundedWithKnownSuffixes) {
  TempFile csv("net.csv");
  const std::string base = "netbench --csv " + csv.path();
  for (const char* v : {"0", "1Q", "64K,,1M", "-1K", "64K,", "2G", "1025M", "99999999999G", "1.5K", "K", "1KB", ""})
    expect_input_error(base + " --sizes '" + v + "'", "--sizes '");
  expect_input_error(base + " --sizes 64K,,1M", "'' is not a size; expected sizes in bytes from 1 to 1G");
  expect_input_error(base + " --lat-sizes 8,0", "--lat-sizes '8,0': '0' is not a size");
  EXPECT_FALSE(testutil::exists(csv.path()));
}

TEST(NetbenchOptions, ItersWindowAndTestsAreChecked) {
  TempFile csv("net.csv");
  const std::string base = "netbench --csv " + csv.path();
  expect_input_error(base + " --iters 0", "--iters 0: expected an integer from 1 to 10000");
  expect_input_error(base + " --iters=-3", "--iters -3");
  expect_input_error(base + " --iters 10001", "--iters 10001");
  expect_input_error(base + " --window 0", "--window 0: expected an integer from 1 to 1024");
  expect_input_error(base + " --window 1025", "--window 1025");
  expect_input_error(base + " --window 8 --sizes 1G", "--window 8 with messages of up to 1073741824 bytes");
  expect_input_error(base + " --tests pingpong,foo", "--tests 'pingpong,foo': unknown test 'foo'");
  expect_input_error(base + " --tests ''", "--tests");
  EXPECT_FALSE(testutil::exists(csv.path()));
}

// --library: mpi or gloo; gloo needs a rendezvous address and has no nccl test. Checked before
// any launcher starts.
TEST(NetbenchOptions, LibraryIsChecked) {
  TempFile csv("net.csv");
  const std::string base = "netbench --csv " + csv.path();
  expect_input_error(base + " --library ucx --master-addr 10.0.0.1", "--library 'ucx': expected mpi or gloo");
  const auto r = testutil::run_ddlsim(base + " --library gloo", "MASTER_ADDR=");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--library gloo: no rendezvous address: pass --master-addr"), std::string::npos) << r.out;
  expect_input_error(base + " --library gloo --master-addr 10.0.0.1 --nccl", "--nccl with --library gloo");
  expect_input_error(base + " --library gloo --master-addr 10.0.0.1 --tests ring,nccl", "--tests nccl with --library gloo");
  expect_input_error(base + " --library gloo --master-addr 10.0.0.1 --python /nonexistent/python3",
                     "--python /nonexistent/python3: not an executable");
  expect_input_error(base + " --library gloo --master-addr 10.0.0.1 --master-port 70000", "--master-port 70000");
  EXPECT_FALSE(testutil::exists(csv.path()));
}

// A launcher that fails (here srun, not found on an empty PATH) is a setup problem: exit 2 with
// the decoded status and what to check, not "status 32512" and exit 1.
TEST(NetbenchLauncher, FailureIsDecodedAndAnInputError) {
  const std::string exe = DDLSIM_BINARY;
  if (!testutil::exists(exe.substr(0, exe.find_last_of('/')) + "/ddlsim_netbench"))
    GTEST_SKIP() << "built without MPI: ddlsim netbench stops before the launcher";
  TempFile csv("net.csv");
  const auto r = testutil::run_ddlsim("netbench --launcher srun --csv " + csv.path(), "PATH=/nonexistent");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("srun exited with code 127 (command not found); check --hosts and --np"), std::string::npos)
      << r.out;
}

// The CSV becomes --csv only when the run succeeds: a launcher (here a stand-in srun on PATH) that
// writes part of it and fails leaves the earlier CSV as it was, and no temporary file behind.
TEST(NetbenchLauncher, CsvIsReplacedOnlyBySuccessfulRun) {
  const std::string exe = DDLSIM_BINARY;
  if (!testutil::exists(exe.substr(0, exe.find_last_of('/')) + "/ddlsim_netbench"))
    GTEST_SKIP() << "built without MPI: ddlsim netbench stops before the launcher";
  TempFile csv("net.csv", "earlier\n");
  TempFile bin("srun");
  const std::string header = "test,ranks,bytes,time_s,algbw_Bps,busbw_Bps";
  auto fake_srun = [&](int code) {
    std::ofstream(bin.path()) << "#!/bin/sh\nwhile [ \"$1\" != --csv ]; do shift; done\n"
                              << "printf '" << header << "\\nbw,2,65536,1e-3,6.5e7,6.5e7\\n' > \"$2\"\nexit " << code << "\n";
    ::chmod(bin.path().c_str(), 0755);
  };
  const std::string cmd = "netbench --launcher srun --csv " + csv.path();
  const std::string env = "PATH=" + bin.dir() + ":/usr/bin:/bin";
  fake_srun(3);
  const auto failed = testutil::run_ddlsim(cmd, env);
  EXPECT_EQ(failed.code, 2) << failed.out;
  EXPECT_EQ(testutil::slurp(csv.path()), "earlier\n");
  fake_srun(0);
  const auto ok = testutil::run_ddlsim(cmd, env);
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_EQ(testutil::slurp(csv.path()), "# library: mpi\n" + header + "\nbw,2,65536,1e-3,6.5e7,6.5e7\n");
  EXPECT_EQ(std::system(("test \"$(ls " + csv.dir() + ")\" = net.csv").c_str()), 0) << "a temporary file was left";
}
