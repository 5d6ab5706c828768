// Reading inputs (only regular files, bounded, BOM stripped) and writing outputs (devices and
// symlinks kept, several outputs all or nothing), the trace size bound, platform generate limits
// and validate --data.
#include <gtest/gtest.h>

#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/output.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "test_util.hpp"

using testutil::run_ddlsim;
using testutil::TempFile;

namespace {

const std::string kDefault = testutil::source_dir() + "/scenarios/default.ini";

// run_ddlsim under a time limit: a hang (rc 124) fails the test instead of stalling the suite.
testutil::RunResult run_limited(const std::string& args) {
  FILE* p = ::popen(("timeout 30 " + std::string(DDLSIM_BINARY) + " " + args + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

bool is_symlink(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

void expect_input_error(const std::string& path, const std::string& what, const std::string& part) {
  try {
    ddlsim::read_text_file(path, what);
    ADD_FAILURE() << path << ": no error";
  } catch (const ddlsim::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
  }
}

const char* kBase = "[model]\nname = resnet50\ninput_size = 64\nclasses = 200\n[training]\nsamples = 50000\n"
                    "[cluster]\nplatform = poti\n";
const char* kMeasured = "cluster.nodes,epoch_time_s\n1,70\n2,40\n4,30\n";

}  // namespace

TEST(ReadTextFile, RejectsWhatIsNotARegularFile) {
  TempFile dir("fifo");
  ASSERT_EQ(::mkfifo(dir.path().c_str(), 0600), 0);
  expect_input_error(dir.dir(), "scenario file", "not a regular file (expected a scenario file)");
  expect_input_error(dir.path(), "scenario file", "not a regular file (expected a scenario file)");  // no hang
  expect_input_error("/dev/zero", "model file", "not a regular file (expected a model file)");
  expect_input_error(dir.dir() + "/missing.ini", "scenario file", "cannot open scenario file");
}

TEST(ReadTextFile, RejectsAFileOverTheLimit) {
  TempFile big("big.csv", "x");
  ASSERT_EQ(::truncate(big.path().c_str(), off_t(ddlsim::kMaxInputFileBytes) + 1), 0);  // sparse
  expect_input_error(big.path(), "CSV file", "larger than 64 MiB");
}

TEST(ReadTextFile, StripsABomAndFollowsSymlinks) {
  TempFile f("a.ini", "\xEF\xBB\xBF[training]\n");
  const std::string link = f.dir() + "/link.ini";
  ASSERT_EQ(::symlink(f.path().c_str(), link.c_str()), 0);
  EXPECT_EQ(ddlsim::read_text_file(link, "scenario file"), "[training]\n");
  const auto r = run_ddlsim("simulate " + f.dir() + "/link.ini --format json --training.batch_per_gpu=32");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["batch_per_gpu"], 32);
}

TEST(ReadTextFile, EveryReaderRejectsAFolderWithExitTwo) {
  TempFile t("out.txt");
  TempFile base("base.ini", kBase);
  const std::string d = t.dir();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"simulate " + d, "expected a scenario file"},
      {"simulate " + kDefault + " --overlay " + d, "expected a scenario file"},
      {"simulate --model.file=/dev/zero", "expected a model file"},
      {"models --file " + d, "expected a model file"},
      {"simulate --compute.calibration=" + d, "expected a calibration file"},
      {"simulate --cluster.platform=" + d + "/d.xml --simulation.backend=simgrid", "cannot open SimGrid platform file"},
      {"platform show " + d, "expected a SimGrid platform file"},
      {"compare " + d + " --scenario " + base.path(), "expected a CSV file"},
      {"netfit " + d + " --out " + t.path(), "expected a netbench CSV file"},
  };
  for (const auto& [args, part] : cases) {
    const auto r = run_limited(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(part), std::string::npos) << args << "\n" << r.out;
    EXPECT_EQ(r.out.find("internal error"), std::string::npos) << r.out;
  }
  EXPECT_FALSE(testutil::exists(t.path()));
}

// A FIFO stands for every non-regular output (/dev/null, /dev/stdout): written in place, never
// replaced by a regular file. (Not /dev/null itself: a regression would replace the machine's.)
TEST(Output, FifoWithAReaderIsWrittenInPlace) {
  TempFile fifo("fifo");
  ASSERT_EQ(::mkfifo(fifo.path().c_str(), 0600), 0);
  const int reader = ::open(fifo.path().c_str(), O_RDONLY | O_NONBLOCK);  // the table fits the pipe buffer
  ASSERT_GE(reader, 0);
  const auto r = run_ddlsim("simulate " + kDefault + " --output " + fifo.path());
  EXPECT_EQ(r.code, 0) << r.out;
  std::string got(65536, '\0');
  const ssize_t n = ::read(reader, got.data(), got.size());
  ::close(reader);
  ASSERT_GT(n, 0);
  EXPECT_NE(got.substr(0, std::size_t(n)).find("epoch_time_s"), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.path().c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(Output, SymlinkIsWrittenThrough) {
  TempFile target("real.json", "old\n");
  const std::string link = target.dir() + "/link.json";
  ASSERT_EQ(::symlink("real.json", link.c_str()), 0);  // relative, as users write them
  const auto r = run_ddlsim("simulate " + kDefault + " --format json --output " + link);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(is_symlink(link));
  EXPECT_EQ(nlohmann::json::parse(testutil::slurp(target.path()))["nodes"], 4);
}

TEST(Output, FifoWithoutReaderAndFolderAreErrors) {
  TempFile fifo("fifo");
  ASSERT_EQ(::mkfifo(fifo.path().c_str(), 0600), 0);
  auto r = run_limited("simulate " + kDefault + " --output " + fifo.path());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("no reader"), std::string::npos) << r.out;
  r = run_ddlsim("simulate " + kDefault + " --output " + fifo.dir());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("is a folder"), std::string::npos) << r.out;
}

TEST(OutputSet, SamePathTwiceIsAnError) {
  TempFile t("a.json");
  ddlsim::OutputSet out;
  out.add(t.path(), "1");
  EXPECT_THROW(out.add(t.dir() + "/./a.json", "2"), ddlsim::InputError);
  const auto r = run_ddlsim("simulate " + kDefault + " --output " + t.path() + " --trace " + t.path());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("the same file"), std::string::npos) << r.out;
  EXPECT_FALSE(testutil::exists(t.path()));
}

TEST(OutputSet, AFailedOutputLeavesNoOtherOutput) {
  TempFile t("kept.txt", "old\n");
  const std::string fresh = t.dir() + "/fresh.txt";
  ddlsim::OutputSet out;
  out.add(t.path(), "new\n");
  out.add(fresh, "new\n");
  out.add(t.dir() + "/no/such/dir/x", "new\n");
  EXPECT_THROW(out.commit(), ddlsim::InputError);
  EXPECT_EQ(testutil::slurp(t.path()), "old\n");
  EXPECT_FALSE(testutil::exists(fresh));
  EXPECT_EQ(std::system(("test $(ls " + t.dir() + " | wc -l) = 1").c_str()), 0) << "a temporary file was left";
}

TEST(OutputSet, CommandsWithTwoOutputsWriteNeitherOnFailure) {
  TempFile base("base.ini", kBase);
  TempFile csv("measured.csv", kMeasured);
  const std::string d = csv.dir(), first = d + "/first", bad = " " + d + "/missing/x";
  const std::string measured = csv.path() + " --scenario " + base.path();
  for (const std::string& args : {
           "simulate " + kDefault + " --output " + first + " --trace" + bad,
           "simulate " + kDefault + " --trace " + first + " --output" + bad,
           "compare " + measured + " --plot " + first + " --output" + bad,
           "fit " + measured + " --params inter_bw --overlay-out " + first + " --output" + bad,
           "validate --plot " + first + " --output" + bad,
           "calibrate --model alexnet --batch 2 --min-time 0.001 --warmup 0 --out " + first + " --benchmark-json" + bad,
       }) {
    const auto r = run_ddlsim(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("missing/x: cannot write output file"), std::string::npos) << r.out;
    EXPECT_FALSE(testutil::exists(first)) << args;
    // The same command with a good second path writes both.
    const std::string good = args.substr(0, args.size() - bad.size()) + " " + d + "/second";
    const auto ok = run_ddlsim(good);
    EXPECT_EQ(ok.code, 0) << good << "\n" << ok.out;
    EXPECT_TRUE(testutil::exists(first) && testutil::exists(d + "/second")) << good;
    std::remove(first.c_str());
    std::remove((d + "/second").c_str());
  }
}

TEST(Trace, HugeSyncPeriodKeepsTheTraceSmall) {
  TempFile trace("t.json");
  const auto r = run_ddlsim("simulate " + kDefault + " --training.sync_period=1000000 --output /dev/null --trace " +
                            trace.path());
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string text = testutil::slurp(trace.path());
  EXPECT_LT(text.size(), 200u * 1024) << "bytes";
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["otherData"]["sync_period"], 1000000);
  int elided = 0;
  for (const auto& e : j["traceEvents"])
    if (e.value("cat", "") == "elided") {
      ++elided;
      EXPECT_EQ(e["args"]["elided_steps"], 1000000 - j["otherData"]["steps_drawn"].get<int>());
    }
  EXPECT_EQ(elided, 4) << "one per rank drawn";
}

TEST(PlatformGenerate, SizeLimits) {
  TempFile out("p.xml");
  for (const std::string& args : {std::string("--nodes 100000 --gpus-per-node 100"), std::string("--nodes 513"),
                                  std::string("--gpus-per-node 65"), std::string("--nodes 0")}) {
    const auto r = run_limited("platform generate " + args + " --output " + out.path());
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("expected an integer from 1 to"), std::string::npos) << r.out;
    EXPECT_FALSE(testutil::exists(out.path()));
  }
  const auto r = run_ddlsim("platform generate --nodes 3 --gpus-per-node 64 --output " + out.path());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(testutil::exists(out.path()));
}

TEST(Validate, DataFolder) {
  auto r = run_ddlsim("validate --data /nonexistent-ddlsim-data --format csv");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/nonexistent-ddlsim-data/tf_cnn_benchmarks_2017.csv: cannot open CSV file"), std::string::npos)
      << r.out;
  r = run_ddlsim("validate --data " + testutil::source_dir() + "/scenarios/validation --format csv");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(run_ddlsim("--help").out.find("validate [--set tf2017|published|convnets|all] [--data DIR]"),
            std::string::npos);
}

TEST(DisplayPath, RelativeBelowTheWorkingDirectoryElseAsGiven) {
  const std::string cwd = std::filesystem::current_path().string();
  EXPECT_EQ(ddlsim::display_path(cwd + "/study/m.csv"), "study/m.csv");
  EXPECT_EQ(ddlsim::display_path("study/m.csv"), "study/m.csv");
  const std::string elsewhere = "/nonexistent-ddlsim-dir/m.csv";
  if (cwd != "/") EXPECT_EQ(ddlsim::display_path(elsewhere), elsewhere);
}
