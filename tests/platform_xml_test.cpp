// Platform files: the generator's XML has the analytic model's routes; bad files stop with exit
// code 2 and a message naming the file (and line); `platform generate|show` from the binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "predict/prediction.hpp"
#include "report/trace.hpp"
#include "scenario/resolve.hpp"
#include "engine/platform_reader.hpp"
#include "system/platform_xml.hpp"
#include "sweep/sweep.hpp"
#include "test_util.hpp"

using namespace ddlsim;
using testutil::run_ddlsim;
using testutil::TempFile;

TEST(PlatformXml, GeneratedFileHasTheAnalyticRoutes) {
  for (const char* name : {"poti", "dgx1", "cluster4x25g"}) {
    const ClusterDescription c = find_cluster(name, "test");
    TempFile xml("p.xml", platform_xml(c, 3));
    const ClusterDescription r = read_platform_file(xml.path());
    EXPECT_EQ(r.gpus_per_node, c.gpus_per_node) << name;
    EXPECT_EQ(r.max_nodes, 3) << name;
    EXPECT_EQ(r.device, c.device) << name;
    EXPECT_NEAR(r.inter_route().latency_s, c.inter_route().latency_s, 1e-12) << name;
    EXPECT_NEAR(r.inter_route().bw_Bps, c.inter_route().bw_Bps, 1e-3) << name;
    if (c.gpus_per_node > 1) {
      EXPECT_NEAR(r.intra_route().latency_s, c.intra_route().latency_s, 1e-12) << name;
      EXPECT_NEAR(r.intra_route().bw_Bps, c.intra_route().bw_Bps, 1e-3) << name;
    }
  }
}

TEST(PlatformXml, HostNamesSortNaturallyNodeMajor) {
  EXPECT_EQ(gpu_host_name(10, 3), "gpu-10-3");
  TempFile xml("p.xml", platform_xml(find_cluster("poti", "t"), 12));
  const std::string text = platform_summary(xml.path(), 2, 10);
  EXPECT_NE(text.find("rank 2 (gpu-2-0) -> rank 10 (gpu-10-0): 4 link(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("hosts: 12"), std::string::npos) << text;
}

TEST(PlatformXml, BundledPlatformsLoad) {
  for (const char* name : {"tupi", "poti", "dgx1", "cluster4x25g"}) {
    const ClusterDescription c = read_platform_file(testutil::source_dir() + "/platforms/" + name + ".xml");
    const ClusterDescription& builtin = find_cluster(name, "test");
    EXPECT_GT(c.max_nodes, 0) << name;
    EXPECT_EQ(c.device, builtin.device) << name;
    EXPECT_EQ(c.gpus_per_node, builtin.gpus_per_node) << name;
    EXPECT_NEAR(c.inter_route().latency_s, builtin.inter_route().latency_s, 1e-12) << name;
    EXPECT_NEAR(c.inter_route().bw_Bps, builtin.inter_route().bw_Bps, 1e-3) << name;
  }
}

TEST(PlatformXml, MalformedFileIsAnInputErrorWithFileAndLine) {
  TempFile xml("bad.xml", "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n"
                          "<host id=\"a\" speed=\"1f\">\n</zone>\n</platform>\n");
  try {
    read_platform_file(xml.path());
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(xml.path()), std::string::npos) << what;
    EXPECT_NE(what.find(xml.path() + ":"), std::string::npos) << what;
  }
}

TEST(PlatformXml, UnknownHostInRouteIsAnInputError) {
  TempFile xml("unknown.xml",
               "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
               "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1f\"/>\n"
               "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
               "<route src=\"a\" dst=\"ghost\"><link_ctn id=\"l\"/></route>\n</zone>\n</platform>\n");
  try {
    read_platform_file(xml.path());
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(xml.path() + ":7"), std::string::npos) << what;
    EXPECT_NE(what.find("ghost"), std::string::npos) << what;
  }
}

TEST(PlatformXml, CliErrorsExitTwoNamingTheFile) {
  TempFile bad("bad.xml", "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n<oops/>\n</platform>\n");
  auto r = run_ddlsim("platform show " + bad.path());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(bad.path()), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Backtrace"), std::string::npos) << r.out;

  r = run_ddlsim("simulate --cluster.platform=" + bad.path() + " --cluster.nodes=2 --simulation.backend=simgrid");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(bad.path()), std::string::npos) << r.out;

  TempFile small("small.xml", platform_xml(find_cluster("poti", "t"), 2));
  r = run_ddlsim("simulate --cluster.platform=" + small.path() + " --cluster.nodes=3 --simulation.backend=simgrid");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("small.xml"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("at most 2"), std::string::npos) << r.out;
}

TEST(PlatformXml, FewerHostsThanRanksInTheBackendIsAnInputError) {
  TempFile small("small.xml", platform_xml(find_cluster("cluster4x25g", "t"), 1));
  auto in = read_scenario("", std::vector<std::string>{"--cluster.platform=" + small.path(), "--cluster.nodes=1",
                                                       "--cluster.gpus_per_node=8", "--simulation.backend=simgrid"});
  try {
    predict(resolve_scenario(in.settings, "."));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has 4 hosts, the scenario needs 8 GPUs per node"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(small.path()), std::string::npos) << e.what();
  }
}

TEST(PlatformXml, GenerateAndShowFromTheCli) {
  TempFile out("gen.xml");
  auto r = run_ddlsim("platform generate --nodes 3 --gpus-per-node 4 --intra pcie3 --inter 25gbe --output " + out.path());
  ASSERT_EQ(r.code, 0) << r.out;
  r = run_ddlsim("platform show " + out.path() + " --from 0 --to 11");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("hosts: 12"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4 link(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("node0-uplink_UP"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("node2-uplink_DOWN"), std::string::npos) << r.out;
  r = run_ddlsim("platform generate --inter 3gbe");
  EXPECT_EQ(r.code, 2) << r.out;
}

TEST(PlatformXml, SimulateOnAPlatformFileMatchesTheBuiltIn) {
  TempFile xml("poti4.xml", platform_xml(find_cluster("poti", "t"), 4));
  auto a = read_scenario("", std::vector<std::string>{"--cluster.platform=poti", "--cluster.nodes=4"});
  auto b = read_scenario("", std::vector<std::string>{"--cluster.platform=" + xml.path(), "--cluster.nodes=4",
                                                      "--simulation.backend=simgrid"});
  const Prediction pa = predict(resolve_scenario(a.settings, ".")), pb = predict(resolve_scenario(b.settings, "."));
  EXPECT_NEAR(pb.step_time_s / pa.step_time_s, 1.0, 0.005);
}

TEST(SimGridSweep, FailingConfigurationKeepsItsRow) {
  TempFile xml("two.xml", platform_xml(find_cluster("poti", "t"), 2));
  ScenarioInput in = read_scenario("", std::vector<std::string>{"--cluster.platform=" + xml.path(),
                                                               "--simulation.backend=simgrid"});
  in.sweep["cluster.nodes"] = {"1", "2", "3", "2"};
  in.sweep["comm.algorithm"] = {"ring", "rhd"};
  const auto configs = expand_sweep(in);
  const auto results = run_sweep(configs, ".", 3, nullptr);
  ASSERT_EQ(results.size(), 8u);
  int failed = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].settings.at("cluster.nodes").value, configs[i].at("cluster.nodes").value);
    EXPECT_EQ(results[i].settings.at("comm.algorithm").value, configs[i].at("comm.algorithm").value);
    if (!results[i].record) {
      ++failed;
      EXPECT_NE(results[i].error.find("two.xml"), std::string::npos) << results[i].error;
    } else {
      EXPECT_EQ((*results[i].record)["backend"], "simgrid");
    }
  }
  EXPECT_EQ(failed, 2);  // nodes = 3, for both algorithms
}

TEST(Trace, ChromeTraceHasEveryPhasePerRank) {
  for (const char* backend : {"analytic", "simgrid"}) {
    auto in = read_scenario("", std::vector<std::string>{"--cluster.nodes=2", "--training.framework=pytorch_ddp",
                                                         "--training.sync_period=2",
                                                         std::string("--simulation.backend=") + backend});
    const Prediction p = predict(resolve_scenario(in.settings, "."));
    const auto j = nlohmann::json::parse(chrome_trace_json(p));
    int forward = 0, buckets = 0, optimizer = 0;
    std::set<int> pids;
    for (const auto& e : j["traceEvents"]) {
      if (e["ph"] != "X") continue;
      pids.insert(e["pid"].get<int>());
      const std::string name = e["name"];
      forward += name == "forward";
      buckets += name.find("bucket") != std::string::npos;
      optimizer += name == "optimizer";
      EXPECT_GE(e["dur"].get<double>(), 0.0);
    }
    EXPECT_EQ(pids.size(), 2u) << backend;
    EXPECT_EQ(forward, 2 * 2) << backend;  // 2 ranks x (sync step + local step)
    EXPECT_EQ(optimizer, 2) << backend;
    EXPECT_EQ(buckets, 2 * p.buckets) << backend;
  }
}

TEST(Trace, SimulateWritesTraceFile) {
  TempFile trace("t.json");
  auto r = run_ddlsim("simulate --cluster.nodes=2 --simulation.backend=simgrid --trace " + trace.path());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(testutil::slurp(trace.path()));
  EXPECT_GT(j["traceEvents"].size(), 4u);
}

TEST(PlatformXml, SimGridAbortIsAnInputErrorWithoutBacktrace) {
  // Loads, but SimGrid 3.32 aborts (CRITICAL, backtrace) when routing between the two clusters
  // through a router-only zone under Dijkstra: the child dies, the parent reports the file.
  TempFile xml("abort.xml",
               "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
               "<platform version=\"4.1\">\n<zone id=\"c\" routing=\"DijkstraCache\">\n"
               "<cluster id=\"n0\" prefix=\"gpu-0-\" suffix=\"\" radical=\"0-1\" speed=\"1f\" bw=\"1GBps\" lat=\"1us\" router_id=\"r0\"/>\n"
               "<cluster id=\"n1\" prefix=\"gpu-1-\" suffix=\"\" radical=\"0-1\" speed=\"1f\" bw=\"1GBps\" lat=\"1us\" router_id=\"r1\"/>\n"
               "<zone id=\"sw\" routing=\"Full\"><router id=\"swr\"/></zone>\n"
               "<link id=\"u0\" bandwidth=\"1GBps\" latency=\"1us\"/><link id=\"u1\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
               "<zoneRoute src=\"n0\" dst=\"sw\" gw_src=\"r0\" gw_dst=\"swr\"><link_ctn id=\"u0\"/></zoneRoute>\n"
               "<zoneRoute src=\"n1\" dst=\"sw\" gw_src=\"r1\" gw_dst=\"swr\"><link_ctn id=\"u1\"/></zoneRoute>\n"
               "</zone>\n</platform>\n");
  const auto r = run_ddlsim("simulate --cluster.platform=" + xml.path() + " --compute.device=v100");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(xml.path()), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Backtrace"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line: " << r.out;
}

TEST(SimGridSweep, ManyParallelConfigurationsKeepOrder) {
  ScenarioInput in = read_scenario("", std::vector<std::string>{"--simulation.backend=simgrid",
                                                               "--cluster.platform=cluster4x25g"});
  in.sweep["cluster.nodes"] = {"1", "2", "3", "4", "5", "6", "7", "8"};
  in.sweep["comm.algorithm"] = {"ring", "rhd", "tree", "hierarchical", "ps"};
  const auto configs = expand_sweep(in);
  const auto results = run_sweep(configs, ".", 8, nullptr);
  ASSERT_EQ(results.size(), 40u);
  for (std::size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i].record) << results[i].error;
    EXPECT_EQ((*results[i].record)["nodes"], std::stoi(configs[i].at("cluster.nodes").value));
    EXPECT_EQ((*results[i].record)["algorithm"], configs[i].at("comm.algorithm").value);
  }
}

TEST(PlatformXml, FewerGpusPerNodeThanTheFileTakesTheFirstOfEachNode) {
  // 3 nodes x 4 GPUs in the file, 2 nodes x 2 GPUs used: ranks gpu-0-0, gpu-0-1, gpu-1-0, gpu-1-1,
  // so the hierarchical exchange crosses the network once per node, as the analytic model says.
  TempFile xml("c4.xml", platform_xml(find_cluster("cluster4x25g", "t"), 3));
  auto run = [&](const char* backend) {
    auto in = read_scenario("", std::vector<std::string>{"--cluster.platform=" + xml.path(), "--cluster.nodes=2",
                                                         "--cluster.gpus_per_node=2", "--comm.algorithm=hierarchical",
                                                         std::string("--simulation.backend=") + backend});
    return predict(resolve_scenario(in.settings, "."));
  };
  const Prediction a = run("analytic"), s = run("simgrid");
  EXPECT_EQ(s.ranks, 4);
  EXPECT_NEAR(s.comm_time_s / a.comm_time_s, 1.0, 0.02);
}

// Ranks follow the hosts' names in natural order, not the order the file declares them in: a file
// with one slow node gives the same prediction whichever way its nodes are listed.
TEST(PlatformXml, ResultsDoNotDependOnTheOrderOfHostsInTheFile) {
  std::string text = platform_xml(find_cluster("poti", "t"), 4);
  const std::string slow = "<link id=\"node2-uplink\" bandwidth=\"117500000Bps\"";
  ASSERT_NE(text.find(slow), std::string::npos) << text;
  text.replace(text.find(slow), slow.size(), "<link id=\"node2-uplink\" bandwidth=\"50000000Bps\"");
  // The same file with its <cluster> declarations, and its <link> declarations, in reverse order
  // (SimGrid wants the zones before the links).
  std::vector<std::string> lines, clusters, links;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  auto is = [](const std::string& l, const char* tag) { return l.rfind(tag, 0) == 0; };
  for (const auto& l : lines) {
    if (is(l, "  <cluster ")) clusters.push_back(l);
    if (is(l, "  <link ")) links.push_back(l);
  }
  ASSERT_EQ(clusters.size(), 4u);
  ASSERT_EQ(links.size(), 4u);
  std::string reversed;
  auto next_cluster = clusters.rbegin();
  auto next_link = links.rbegin();
  for (const auto& l : lines)
    reversed += (is(l, "  <cluster ") ? *next_cluster++ : is(l, "  <link ") ? *next_link++ : l) + "\n";
  ASSERT_NE(reversed, text);

  TempFile a("p.xml", text), b("p.xml", reversed);
  auto run = [](const std::string& path, const char* algorithm) {
    const auto r = run_ddlsim("simulate --cluster.platform=" + path + " --cluster.nodes=4 --format json " +
                              "--simulation.backend=simgrid --simulation.fidelity=full --comm.algorithm=" + algorithm);
    EXPECT_EQ(r.code, 0) << r.out;
    auto j = nlohmann::json::parse(r.out);
    j.erase("platform");
    return j;
  };
  for (const char* algorithm : {"tree", "ring", "rhd"}) EXPECT_EQ(run(a.path(), algorithm), run(b.path(), algorithm)) << algorithm;
}
