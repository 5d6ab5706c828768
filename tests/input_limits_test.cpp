// Inputs at and beyond their limits: every value is bounded so that counts never wrap and times
// never overflow; whatever is accepted gives finite figures, whatever is not gives an InputError
// that names the key (or file and line) and what was expected.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "calibration/netfit.hpp"
#include "compare/csv_table.hpp"
#include "compare/measurements.hpp"
#include "core/error.hpp"
#include "predict/prediction.hpp"
#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"
#include "engine/platform_reader.hpp"
#include "system/platform_xml.hpp"
#include "sweep/sweep.hpp"
#include "test_util.hpp"

using namespace ddlsim;
using testutil::run_ddlsim;
using testutil::TempFile;

namespace {

std::string error_of(const std::vector<std::string>& overrides, const std::string& ini = "# none\n") {
  TempFile f("s.ini", ini);
  try {
    predict(resolve_scenario(read_scenario(f.path(), overrides).settings, f.dir()));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(InputLimits, IntegersBeyondTheirRangeNameTheKeyInsteadOfWrapping) {
  for (const char* o : {"--cluster.gpus_per_node=4294967296", "--training.sync_period=3000000000",
                        "--training.batch_per_gpu=2147483648", "--cluster.nodes=4294967297",
                        "--model.classes=4294967296", "--training.epochs=99999999999"}) {
    const std::string e = error_of({o});
    const std::string key = std::string(o).substr(2, std::string(o).find('=') - 2);
    EXPECT_TRUE(has(e, "command line: --" + key)) << o << ": " << e;
    EXPECT_TRUE(has(e, "at most")) << o << ": " << e;
  }
}

TEST(InputLimits, TooManyGpusInAllNamesBothCounts) {
  const std::string e = error_of({"--cluster.platform=dgx1", "--cluster.nodes=65536", "--cluster.gpus_per_node=64"});
  EXPECT_TRUE(has(e, "cluster.nodes")) << e;
  EXPECT_TRUE(has(e, "65536 x 64")) << e;
}

TEST(InputLimits, ExtremeRealsAreRejectedWithTheirRange) {
  for (const char* o : {"--cluster.inter_bw_GBps=1e-308", "--cluster.inter_latency_us=1e308",
                        "--input.sample_kb=1e-300", "--compute.throughput=1e300", "--comm.bucket_mb=1e300",
                        "--compute.efficiency=1.5", "--network.bandwidth_factor=0"}) {
    const std::string e = error_of({o});
    EXPECT_TRUE(has(e, "expected a number")) << o << ": " << e;
  }
}

// The corners of the accepted ranges: a prediction is finite or a clear input error, never inf or NaN.
TEST(InputLimits, AcceptedExtremesGiveFiniteFiguresOrAnInputError) {
  const std::vector<std::vector<std::string>> corners = {
      {"--training.samples=1000000000000", "--training.epochs=1000000", "--cluster.inter_bw_GBps=0.000001",
       "--cluster.inter_latency_us=1e9", "--cluster.nodes=6"},
      {"--training.samples=1", "--training.batch_per_gpu=1000000", "--cluster.platform=dgx1",
       "--cluster.nodes=16384", "--cluster.intra_bw_GBps=1e6", "--cluster.inter_bw_GBps=1e6",
       "--cluster.inter_latency_us=0", "--cluster.intra_latency_us=0"},
      {"--input.sample_kb=1e9", "--input.decode_ms=1e6", "--input.storage=nfs", "--input.format=files"},
      {"--compute.throughput=0.000001", "--training.sync_period=1000000", "--comm.cycle_time_ms=1e6"},
      {"--compute.efficiency=0.000001", "--compute.kernel_overhead_us=1e6", "--comm.bucket_mb=1e6"},
      {"--compute.half_efficiency_us=0", "--compute.kernel_overhead_us=0"},
      {"--compute.half_efficiency_us=1e6"},
      {"--model.name=small_cnn", "--model.classes=10000000", "--model.channels=4096", "--model.input_size=4096"},
  };
  for (const auto& c : corners) {
    try {
      const Prediction p = predict(resolve_scenario(read_scenario("", c).settings, "."));
      for (double v : {p.step_time_s, p.epoch_time_s, p.total_time_s, p.samples_per_s, p.speedup, p.efficiency,
                       p.comm_overhead, p.comm_time_s, p.exposed_comm_s, p.input_wait_s})
        EXPECT_TRUE(std::isfinite(v)) << c.front();
      EXPECT_GT(p.epoch_time_s, 0) << c.front();
    } catch (const InputError& e) {
      EXPECT_TRUE(has(e.what(), "extreme values") || has(e.what(), "expected")) << e.what();
    }
  }
}

TEST(InputLimits, LinkKindsBelongToTheirPlace) {
  EXPECT_TRUE(has(error_of({"--cluster.inter=pcie3"}), "unknown inter-node link kind"));
  EXPECT_TRUE(has(error_of({"--cluster.intra=10gbe"}), "unknown intra-node link kind"));
  EXPECT_EQ(error_of({"--cluster.inter=ib-edr", "--cluster.intra=nvlink2"}), "");
}

TEST(InputLimits, SimGridRejectsLinkOverridesOfAPlatformFile) {
  TempFile xml("p.xml", platform_xml(find_cluster("poti", "t"), 2));
  const std::string e = error_of({"--cluster.platform=" + xml.path(), "--simulation.backend=simgrid",
                                  "--cluster.nodes=2", "--cluster.inter_bw_GBps=10"});
  EXPECT_TRUE(has(e, "command line: --cluster.inter_bw_GBps")) << e;
  EXPECT_TRUE(has(e, "cannot override the links")) << e;
  // The analytic backend applies the override to the links read from the file.
  EXPECT_EQ(error_of({"--cluster.platform=" + xml.path(), "--cluster.nodes=2", "--cluster.inter_bw_GBps=10"}), "");
}

TEST(InputLimits, PlatformFileWithNonsenseLinkFiguresIsRejected) {
  const std::string good = platform_xml(find_cluster("poti", "t"), 2);
  const std::regex bw("bandwidth=\"[^\"]*\"");
  const std::regex lat("latency=\"[^\"]*\"");
  for (const auto& [pattern, repl] : std::vector<std::pair<std::regex, std::string>>{
           {bw, "bandwidth=\"-5GBps\""}, {bw, "bandwidth=\"0Bps\""}, {lat, "latency=\"-1us\""}}) {
    TempFile xml("bad.xml", std::regex_replace(good, pattern, repl, std::regex_constants::format_first_only));
    try {
      read_platform_file(xml.path());
      ADD_FAILURE() << "accepted " << repl;
    } catch (const InputError& e) {
      EXPECT_TRUE(has(e.what(), xml.path())) << e.what();
      EXPECT_TRUE(has(e.what(), "link")) << e.what();
    }
  }
}

TEST(InputLimits, SweepListsWithEmptyValuesAreErrors) {
  for (const char* list : {"1,,2", "1, 2,", ",4"}) {
    TempFile f("s.ini", std::string("[sweep]\ncluster.nodes = ") + list + "\n");
    try {
      read_scenario(f.path(), {});
      ADD_FAILURE() << list;
    } catch (const InputError& e) {
      EXPECT_TRUE(has(e.what(), "s.ini:2")) << e.what();
      EXPECT_TRUE(has(e.what(), "empty value")) << e.what();
    }
  }
}

TEST(InputLimits, SweepOfMoreThanAMillionConfigurationsIsRefusedUpFront) {
  ScenarioInput in = read_scenario("", {});
  std::vector<std::string> values;
  for (int i = 1; i <= 1001; ++i) values.push_back(std::to_string(i));
  in.sweep["training.batch_per_gpu"] = values;
  in.sweep["training.epochs"] = values;
  EXPECT_THROW(expand_sweep(in), InputError);
}

TEST(InputLimits, SweepJobsAreBounded) {
  TempFile f("s.ini", "[sweep]\ncluster.nodes = 1, 2\n");
  const auto r = run_ddlsim("sweep " + f.path() + " --jobs 100000");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--jobs")) << r.out;
  const auto ok = run_ddlsim("sweep " + f.path() + " --jobs 1024");
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_EQ(std::count(ok.out.begin(), ok.out.end(), '\n'), 3) << ok.out;
}

TEST(InputLimits, MessagesSayWhatIsWrong) {
  std::string e = error_of({"--model.name="});
  EXPECT_FALSE(has(e, "unknown key")) << e;
  EXPECT_TRUE(has(e, "model.name")) << e;
  e = error_of({"--model.nme=3"});
  EXPECT_TRUE(has(e, "unknown key 'model.nme'")) << e;
  e = error_of({"--training.framework=" + std::string(5000, 'x')});
  EXPECT_LT(e.size(), 400u) << e;
  EXPECT_TRUE(has(e, "5000 characters")) << e;
}

TEST(InputLimits, CompareRejectsAColumnGivenTwiceAndTinyMetrics) {
  TempFile csv("m.csv", "nodes,cluster.nodes,epoch_time_s\n1,1,100\n2,2,60\n");
  try {
    read_measured(read_csv_file(csv.path()), {"nodes=cluster.nodes"}, "");
    ADD_FAILURE() << "accepted two columns for cluster.nodes";
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), "both give cluster.nodes")) << e.what();
  }
  TempFile tiny("t.csv", "cluster.nodes,epoch_time_s\n1,1e-308\n2,60\n");
  try {
    read_measured(read_csv_file(tiny.path()), {}, "");
    ADD_FAILURE() << "accepted 1e-308 s";
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), "t.csv:2")) << e.what();
  }
}

TEST(InputLimits, NetfitRejectsRowsThatCannotBeMeasurements) {
  for (const char* row : {"ring,1,1024,0.001", "ring,0,1024,0.001", "bw,2.5,1024,0.001", "bw,2,0,0.001",
                          "bw,2,1024,0"}) {
    try {
      parse_netbench_csv(std::string("test,ranks,bytes,time_s\n") + row + "\n", "net.csv");
      ADD_FAILURE() << row;
    } catch (const InputError& e) {
      EXPECT_TRUE(has(e.what(), "net.csv:2")) << e.what();
    }
  }
}

TEST(InputLimits, ModelFileSizesThatWouldOverflowNameTheLayerAndLine) {
  for (const auto& [text, part] : std::vector<std::pair<std::string, std::string>>{
           {"input 1000000 1000000 1000\nflatten\ndense 10\n", "m.model:1: layer 'input': output size"},
           {"input 8 8 3\nzeropad 1000000000\nconv2d 4\n", "m.model:2:"},
           {"input 100 100 3\nflatten\ndense 1000000000\n", "m.model:3: layer 'dense': parameter count"}}) {
    TempFile m("m.model", text);
    const std::string e = error_of({"--model.file=" + m.path()});
    EXPECT_TRUE(has(e, part)) << e;
    EXPECT_TRUE(has(e, "too large")) << e;
  }
}

TEST(InputLimits, PlatformFactorPropertiesAreFractions) {
  const std::string good = platform_xml(find_cluster("poti", "t"), 2);
  const std::string device = "<prop id=\"ddlsim.device\" value=\"rtx4070\"/>";
  ASSERT_TRUE(has(good, device));
  for (const char* v : {"inf", "nan", "abc", "-1", "0", "1.5", "1e-20"}) {
    std::string xml = good;
    xml.insert(xml.find(device) + device.size(), std::string("<prop id=\"ddlsim.duplex_factor\" value=\"") + v + "\"/>");
    TempFile f("f.xml", xml);
    const std::string e = error_of({"--cluster.platform=" + f.path(), "--cluster.nodes=2"});
    EXPECT_TRUE(has(e, "ddlsim.duplex_factor = '" + std::string(v) + "'")) << v << ": " << e;
  }
}

TEST(InputLimits, PlatformWithoutARouteSaysWhichRoute) {
  TempFile f("noroute.xml",
             "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
             "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\"><prop id=\"ddlsim.device\" value=\"v100\"/>"
             "<host id=\"h0\" speed=\"1Gf\"/><host id=\"h1\" speed=\"1Gf\"/></zone></platform>\n");
  const std::string e = error_of({"--cluster.platform=" + f.path()});
  EXPECT_TRUE(has(e, f.path())) << e;
  EXPECT_TRUE(has(e, "route from host h0 to host h1")) << e;
}

TEST(InputLimits, PlatformWithoutADeviceAsksForOne) {
  std::string xml = platform_xml(find_cluster("poti", "t"), 2);
  const std::string device = "<prop id=\"ddlsim.device\" value=\"rtx4070\"/>";
  xml.erase(xml.find(device), device.size());
  TempFile f("nodev.xml", xml);
  EXPECT_TRUE(has(error_of({"--cluster.platform=" + f.path()}), "names no GPU"));
  EXPECT_EQ(error_of({"--cluster.platform=" + f.path(), "--compute.device=v100"}), "");
}

TEST(InputLimits, SweepRefusesACommandLineValueForASweptKey) {
  TempFile f("s.ini", "[sweep]\ncluster.nodes = 1, 2\n");
  const auto r = run_ddlsim("sweep " + f.path() + " --cluster.nodes=2");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--cluster.nodes is swept by " + f.path() + ":2")) << r.out;
  EXPECT_EQ(run_ddlsim("sweep " + f.path() + " --sweep.cluster.nodes=3,4").code, 0);
}

TEST(InputLimits, TextFilesWithNulBytesAreRejectedWithTheLine) {
  TempFile f("nul.ini", std::string("[model]\nname = resnet50\0x\n", 26));
  const std::string e = error_of({}, testutil::slurp(f.path()));
  EXPECT_TRUE(has(e, ":2: a NUL byte")) << e;
  TempFile m("nul.model", std::string("input 8 8 3\ndense 4\0junk\n", 25));
  EXPECT_TRUE(has(error_of({"--model.file=" + m.path()}), "nul.model:2: a NUL byte"));
}

TEST(InputLimits, AmbiguousCommandLinesAreErrors) {
  EXPECT_TRUE(has(error_of({"--cluster.nodes=2", "--cluster.nodes=3"}), "given twice"));
  auto r = run_ddlsim("models resnet50 vgg16");
  EXPECT_EQ(r.code, 2) << r.out;
  r = run_ddlsim("models --file " + testutil::source_dir() + "/models/mlp_materials.model --input-size 64");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(error_of({}, "[ model ]\nname = resnet50\n"), "s.ini:1: expected [section] with no spaces"));
}

TEST(InputLimits, MeasuredCsvNumbersAreDecimal) {
  TempFile csv("h.csv", "cluster.nodes,epoch_time_s\n1,0x10\n");
  try {
    read_measured(read_csv_file(csv.path()), {}, "");
    ADD_FAILURE() << "accepted 0x10";
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), "h.csv:2")) << e.what();
  }
}
