// SimGrid backend against the closed forms: with CM02, no cross traffic and no TCP window cap,
// a contention-free platform must give the analytic times; a shared NIC must make things slower.
// "Agree" means to 1e-7 relative: SimGrid's event times carry about 1e-8 of solver precision
// (measured: at most 1.0e-8 over these tests), so a 1e-7 bound catches any modelling change.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "predict_util.hpp"
#include "backend/analytic.hpp"
#include "core/error.hpp"
#include "predict/prediction.hpp"
#include "cost/collectives.hpp"
#include "scenario/resolve.hpp"
#include "engine/platform_reader.hpp"
#include "system/platform_xml.hpp"
#include "simgrid/simgrid_backend.hpp"
#include "test_util.hpp"

using namespace ddlsim;
using testutil::predict_default;

namespace {
constexpr Bytes kMessage = 100e6;

System system_of(const std::string& platform, int nodes) {
  System s;
  s.cluster = find_cluster(platform, "test");
  s.nodes = nodes;
  return s;
}

CommTopology topology_of(const System& s, int ps_servers = 1) {
  CommTopology t;
  t.nodes = s.nodes;
  t.gpus_per_node = s.cluster.gpus_per_node;
  t.intra = s.cluster.intra_route();
  t.inter = s.cluster.inter_route();
  t.ps_servers = ps_servers;
  return t;
}

SimGridOptions exact(Fidelity f) {
  SimGridOptions o;  // defaults: CM02, no cross traffic, no TCP window cap
  o.fidelity = f;
  return o;
}

double rel_diff(double a, double b) { return std::abs(a - b) / b; }
}  // namespace

TEST(SimGridBackend, RingAgreesWithClosedFormToOnePartInTenMillion) {
  for (int p : {2, 3, 4, 8, 16, 64}) {
    const System sys = system_of("poti", p);
    const CommTopology topo = topology_of(sys);
    const Seconds analytic = collective_time_s(Algorithm::Ring, topo, kMessage);
    for (Fidelity f : {Fidelity::Fast, Fidelity::Full}) {
      const Seconds sg = simgrid_collective_s(Algorithm::Ring, topo, kMessage, sys, exact(f));
      EXPECT_LT(rel_diff(sg, analytic), 1e-7) << "p = " << p << " fidelity " << int(f) << ": simgrid " << sg
                                               << " s, analytic " << analytic << " s";
    }
  }
}

TEST(SimGridBackend, OtherAlgorithmsAgreeWithClosedFormsToOnePartInTenMillion) {
  for (Algorithm a : {Algorithm::HalvingDoubling, Algorithm::Tree, Algorithm::Hierarchical}) {
    for (int p : {2, 3, 4, 8, 16}) {
      const System sys = system_of("tupi", p);
      const CommTopology topo = topology_of(sys);
      const Seconds analytic = collective_time_s(a, topo, kMessage);
      const Seconds sg = simgrid_collective_s(a, topo, kMessage, sys, exact(Fidelity::Full));
      EXPECT_LT(rel_diff(sg, analytic), 1e-7) << to_string(a) << " p = " << p << ": simgrid " << sg
                                              << " s, analytic " << analytic << " s";
    }
  }
}

TEST(SimGridBackend, HierarchicalOnTwoLevelClusterAgrees) {
  const System sys = system_of("cluster4x25g", 4);  // 16 ranks, 4 per node
  const CommTopology topo = topology_of(sys);
  const Seconds analytic = collective_time_s(Algorithm::Hierarchical, topo, kMessage);
  for (Fidelity f : {Fidelity::Fast, Fidelity::Full})
    EXPECT_LT(rel_diff(simgrid_collective_s(Algorithm::Hierarchical, topo, kMessage, sys, exact(f)), analytic), 1e-7);
}

TEST(SimGridBackend, ParameterServerOnSpareHostsAgrees) {
  // p workers on p one-GPU nodes, the server on an extra node of the platform file.
  for (int p : {2, 4, 8}) {
    ClusterDescription c = find_cluster("poti", "test");
    c.max_nodes = 0;
    testutil::TempFile xml("ps.xml", platform_xml(c, p + 1));
    System sys;
    sys.cluster = read_platform_file(xml.path());
    sys.nodes = p;
    const CommTopology topo = topology_of(sys, 1);
    const Seconds analytic = collective_time_s(Algorithm::ParameterServer, topo, kMessage);
    const Seconds sg = simgrid_collective_s(Algorithm::ParameterServer, topo, kMessage, sys, exact(Fidelity::Full));
    EXPECT_LT(rel_diff(sg, analytic), 1e-7) << "p = " << p << ": simgrid " << sg << " s, analytic " << analytic;
  }
}

TEST(SimGridBackend, SharedNicMakesHalvingDoublingSlowerThanFlatModel) {
  // 4 nodes x 4 GPUs on 25 GbE: in rhd's cross-node rounds the 4 GPUs of a node send through one
  // NIC at once, which the flat analytic model ignores: SimGrid must be slower, by a lot.
  const System sys = system_of("cluster4x25g", 4);
  const CommTopology topo = topology_of(sys);
  const Seconds analytic = collective_time_s(Algorithm::HalvingDoubling, topo, kMessage);
  const Seconds sg = simgrid_collective_s(Algorithm::HalvingDoubling, topo, kMessage, sys, exact(Fidelity::Full));
  std::cout << "rhd, 4 nodes x 4 GPUs, 25 GbE, 100 MB: analytic " << analytic << " s, simgrid " << sg << " s\n";
  EXPECT_GT(sg, 1.5 * analytic);
  // Ring keeps one flow per NIC (ranks are node-major), so there it matches.
  EXPECT_LT(rel_diff(simgrid_collective_s(Algorithm::Ring, topo, kMessage, sys, exact(Fidelity::Full)),
                     collective_time_s(Algorithm::Ring, topo, kMessage)),
            1e-7);
}

TEST(SimGridBackend, DefaultTcpFactorsOfLv08AreSlower) {
  const System sys = system_of("poti", 4);
  const CommTopology topo = topology_of(sys);
  SimGridOptions lv08 = exact(Fidelity::Fast);
  lv08.network_model = "LV08";
  lv08.crosstraffic = true;
  EXPECT_GT(simgrid_collective_s(Algorithm::Ring, topo, kMessage, sys, lv08),
            1.01 * simgrid_collective_s(Algorithm::Ring, topo, kMessage, sys, exact(Fidelity::Fast)));
}


TEST(SimGridBackend, FastAndFullStepsAgreeToOnePartInTenMillion) {
  for (const char* alg : {"ring", "rhd", "tree", "hierarchical", "ps"}) {
    const std::vector<std::string> base = {"--model.name=resnet50",        "--model.input_size=64",
                                           "--cluster.platform=cluster4x25g", "--cluster.nodes=2",
                                           "--training.framework=pytorch_ddp", std::string("--comm.algorithm=") + alg,
                                           "--simulation.backend=simgrid"};
    auto fast = base, full = base;
    fast.push_back("--simulation.fidelity=fast");
    full.push_back("--simulation.fidelity=full");
    const Prediction a = predict_default(fast), b = predict_default(full);
    EXPECT_LT(rel_diff(a.step_time_s, b.step_time_s), 1e-7) << alg << ": fast " << a.step_time_s << " full " << b.step_time_s;
    EXPECT_EQ(a.backend, "simgrid");
  }
}

// Fast fidelity on a slice (simgrid/slice.hpp): two nodes of a built-in cluster stand for all of
// them where every round loads each node alike (ring, leaders' ring, rounds inside the nodes); the
// step equals the one simulated on every node, with TCP's acks and LV08's factors too (up to 1,024
// GPUs; bench/simgrid_bench.cpp times 131,072). Halving-doubling slices on 8 and 128 nodes (a
// power-of-two count) and keeps every node on 3 (its folds).
TEST(SimGridBackend, SliceOfTwoNodesGivesTheWholeClustersStep) {
  for (const char* alg : {"ring", "hierarchical", "rhd"})
    for (const char* extra : {"--training.framework=pytorch_ddp", "--training.framework=horovod",
                              "--comm.library=mpi", "--network.crosstraffic=true", "--network.model=lv08"})
      for (int nodes : {3, 8, 128}) {
        const std::vector<std::string> args = {"--cluster.platform=dgx1", "--cluster.nodes=" + std::to_string(nodes),
                                               extra, std::string("--comm.algorithm=") + alg,
                                               "--simulation.backend=simgrid"};
        Scenario sliced = testutil::scenario_default(args), whole = sliced;
        whole.simgrid.slices = false;
        const Prediction a = predict(sliced), b = predict(whole);
        EXPECT_LT(rel_diff(a.step_time_s, b.step_time_s), 1e-9)
            << alg << " " << extra << " on " << nodes << " nodes: sliced " << a.step_time_s << " whole " << b.step_time_s;
        EXPECT_LT(rel_diff(a.exposed_comm_s + 1e-12, b.exposed_comm_s + 1e-12), 1e-9) << alg << " " << extra;
      }
}

// The sliced fast step against full fidelity, which sends every message on every node: 1,024 GPUs
// for hierarchical exchanges and halving-doubling, 256 for the pipelined ring (full fidelity's ring
// on 1,024 GPUs takes minutes; measured once: equal to 1e-13).
TEST(SimGridBackend, SlicedFastAgreesWithFullFidelity) {
  for (const auto& [alg, nodes] : {std::pair{"hierarchical", 128}, std::pair{"rhd", 128}, std::pair{"ring", 32}}) {
    const std::vector<std::string> base = {"--cluster.platform=dgx1", "--cluster.nodes=" + std::to_string(nodes),
                                           "--training.framework=pytorch_ddp", std::string("--comm.algorithm=") + alg,
                                           "--simulation.backend=simgrid"};
    auto full = base;
    full.push_back("--simulation.fidelity=full");
    const Prediction a = predict_default(base), b = predict_default(full);
    EXPECT_LT(rel_diff(a.step_time_s, b.step_time_s), 1e-7) << alg << ": sliced fast " << a.step_time_s << " full "
                                                            << b.step_time_s;
  }
}

// A platform file slices where its nodes look alike and each link between nodes serves one node
// (the generated cluster4x25g: every node's uplink to a non-blocking switch); with a core link that
// every route between nodes crosses, a slice would load it with 2 nodes' traffic instead of 8, and
// every node is simulated instead. Both equal the run on every node.
TEST(SimGridBackend, PlatformFileSlicesOnlyWithoutASharedCore) {
  std::string xml = testutil::slurp(testutil::source_dir() + "/platforms/cluster4x25g.xml");
  testutil::TempFile plain("plain.xml", xml);
  const std::string uplinks = "direction=\"UP\"/><link_ctn id=\"node";
  for (std::size_t at = xml.find(uplinks); at != std::string::npos; at = xml.find(uplinks, at + 1))
    xml.insert(at + std::string("direction=\"UP\"/>").size(), "<link_ctn id=\"core\"/>");
  xml.insert(xml.find("<link id=\"node0-uplink\""),
             "<link id=\"core\" bandwidth=\"3000000000Bps\" latency=\"1e-06s\" sharing_policy=\"SHARED\"/>\n  ");
  testutil::TempFile core("core.xml", xml);
  double steps[2][2];
  for (int f = 0; f < 2; ++f)
    for (const char* alg : {"ring", "hierarchical"}) {
      Scenario sliced = testutil::scenario_default({"--cluster.platform=" + (f ? core : plain).path(), "--cluster.nodes=8",
                                                    "--training.framework=pytorch_ddp", std::string("--comm.algorithm=") + alg,
                                                    "--simulation.backend=simgrid"});
      Scenario whole = sliced;
      whole.simgrid.slices = false;
      const Prediction a = predict(sliced), b = predict(whole);
      EXPECT_LT(rel_diff(a.step_time_s, b.step_time_s), 1e-9) << (f ? "core " : "plain ") << alg << ": sliced "
                                                              << a.step_time_s << " whole " << b.step_time_s;
      steps[f][alg[0] == 'h'] = b.exposed_comm_s;
    }
  EXPECT_GT(steps[1][0], 1.5 * steps[0][0]) << "the core link bounds the ring: the test's file is what it says";
}

TEST(SimGridBackend, StepMatchesAnalyticOnContentionFreeCluster) {
  const std::vector<std::string> base = {"--cluster.platform=poti", "--cluster.nodes=3", "--training.framework=horovod"};
  auto sg = base;
  sg.push_back("--simulation.backend=simgrid");
  const Prediction a = predict_default(base), s = predict_default(sg);
  EXPECT_LT(rel_diff(s.step_time_s, a.step_time_s), 1e-7);
  EXPECT_LT(rel_diff(s.epoch_time_s, a.epoch_time_s), 1e-7);
  EXPECT_DOUBLE_EQ(s.single_gpu_epoch_s, a.single_gpu_epoch_s);  // the one-GPU reference is analytic
  EXPECT_EQ(s.steps.sync.phases.size(), a.steps.sync.phases.size());
}

TEST(SimGridBackend, SynchronisedNormsMatchAnalyticInBothFidelities) {
  // Statistics exchanges that hold the passes up and queue behind the buckets on the one stream,
  // on sync and local steps (gradient accumulation), and across nodes of several GPUs.
  const std::vector<std::string> base = {"--cluster.platform=poti", "--cluster.nodes=3",
                                         "--training.framework=pytorch_ddp", "--model.sync_bn=true",
                                         "--training.sync_period=2", "--comm.algorithm=ring"};
  const Prediction a = predict_default(base);
  for (const char* f : {"fast", "full"}) {
    auto sg = base;
    sg.push_back("--simulation.backend=simgrid");
    sg.push_back(std::string("--simulation.fidelity=") + f);
    const Prediction s = predict_default(sg);
    EXPECT_LT(rel_diff(s.step_time_s, a.step_time_s), 1e-7) << f << ": simgrid " << s.step_time_s << " analytic " << a.step_time_s;
    EXPECT_LT(rel_diff(s.epoch_time_s, a.epoch_time_s), 1e-7) << f;
    EXPECT_LT(rel_diff(s.exposed_comm_s, a.exposed_comm_s), 1e-6) << f;
    EXPECT_EQ(s.steps.sync.phases.size(), a.steps.sync.phases.size()) << f;
  }
}

TEST(SimGridBackend, FastFallsBackToFullOnAnAsymmetricPlatformFile) {
  const ClusterDescription c = find_cluster("cluster4x25g", "test");
  const std::string xml = platform_xml(c, 3);
  testutil::TempFile same("same.xml", xml);
  std::string slow = xml;
  const std::string uplink2 = "<link id=\"node2-uplink\" bandwidth=\"";
  const auto at = slow.find(uplink2) + uplink2.size();
  slow.replace(at, slow.find('"', at) - at, "1e9Bps");  // node 2 gets a slower NIC
  testutil::TempFile odd("odd.xml", slow);
  for (const auto* f : {&same, &odd}) {
    System sys;
    sys.cluster = read_platform_file(f->path());
    sys.nodes = 3;
    const CommTopology topo = topology_of(sys);
    EXPECT_EQ(simgrid_fast_applies(topo, sys), f == &same) << f->path();
    // Either way fast gives full's answer (there by construction, here by falling back).
    const Seconds fast = simgrid_collective_s(Algorithm::Ring, topo, kMessage, sys, exact(Fidelity::Fast));
    const Seconds full = simgrid_collective_s(Algorithm::Ring, topo, kMessage, sys, exact(Fidelity::Full));
    EXPECT_LT(rel_diff(fast, full), 1e-7) << f->path();
  }
  System sys = system_of("cluster4x25g", 3);
  EXPECT_TRUE(simgrid_fast_applies(topology_of(sys), sys));
}

TEST(SimGridBackend, SlowerHostInAPlatformFileIsAStraggler) {
  const std::string xml = platform_xml(find_cluster("poti", "test"), 3);
  std::string slow = xml, other_unit = xml;
  const std::string node2 = "<cluster id=\"node2\"";
  const auto at = slow.find("speed=\"1Tf\"", slow.find(node2));
  slow.replace(at, 11, "speed=\"0.5Tf\"");  // node 2 computes at half speed
  for (auto p = other_unit.find("speed=\"1Tf\""); p != std::string::npos; p = other_unit.find("speed=\"1Tf\""))
    other_unit.replace(p, 11, "speed=\"3Gf\"");  // every host alike, other units: no change
  testutil::TempFile f_slow("slow.xml", slow), f_unit("unit.xml", other_unit);
  auto step = [](const std::string& platform, const char* backend) {
    return predict_default({"--cluster.platform=" + platform, "--cluster.nodes=3", "--compute.device=rtx4070",
                         std::string("--simulation.backend=") + backend});
  };
  const Prediction analytic = step("poti", "analytic");
  const Prediction straggler = step(f_slow.path(), "simgrid"), same = step(f_unit.path(), "simgrid");
  EXPECT_LT(rel_diff(same.step_time_s, analytic.step_time_s), 1e-7);
  // Half speed on one rank: its forward and backward take twice as long and its buckets fill
  // later; the others wait for it in every exchange (1 GbE: most of the delay hides in comm).
  EXPECT_GT(straggler.step_time_s, analytic.step_time_s + 0.3 * analytic.compute_time_s);
  EXPECT_GT(straggler.compute_time_s, 1.8 * analytic.compute_time_s);
  // Host speeds are in each rank's schedule (system.hpp RankKinds): fast fidelity applies to a file
  // whose nodes differ only in speed, and the analytic backend honours the slow host as well.
  System sys;
  sys.cluster = read_platform_file(f_slow.path());
  sys.nodes = 3;
  EXPECT_TRUE(simgrid_fast_applies(topology_of(sys), sys));
  EXPECT_LT(rel_diff(step(f_slow.path(), "analytic").step_time_s, straggler.step_time_s), 1e-7);
}

// Bidirectional losses fitted by `ddlsim netfit` (exchange and duplex factors) slow the SimGrid
// exchanges exactly as they slow the closed forms.
TEST(SimGridBackend, ExchangeAndDuplexFactorsAgreeWithClosedForms) {
  System sys = system_of("poti", 4);
  sys.cluster.inter.exchange_factor = 0.5;
  sys.cluster.inter.duplex_factor = 0.8;
  for (int nodes : {2, 3, 4}) {
    sys.nodes = nodes;
    const CommTopology topo = topology_of(sys);
    ASSERT_DOUBLE_EQ(topo.inter.exchange_factor, 0.5);
    for (Algorithm a : {Algorithm::Ring, Algorithm::HalvingDoubling, Algorithm::Hierarchical}) {
      const Seconds analytic = collective_time_s(a, topo, kMessage);
      CommTopology ideal = topo;
      ideal.inter.exchange_factor = ideal.inter.duplex_factor = 1;
      EXPECT_GT(analytic, 1.2 * collective_time_s(a, ideal, kMessage)) << to_string(a) << " " << nodes;
      const Seconds sg = simgrid_collective_s(a, topo, kMessage, sys, exact(Fidelity::Full));
      EXPECT_LT(rel_diff(sg, analytic), 1e-7) << to_string(a) << " nodes " << nodes << ": simgrid " << sg
                                              << " s, analytic " << analytic << " s";
    }
  }
}

// The library's software overhead per round (Route::step_overhead_s, netfit's
// ddlsim.step_overhead_us) is spent by each rank before its messages of a round start in SimGrid,
// and added to each round's latency in the closed forms: the two agree, and a ring pays it
// 2 (p-1) times.
TEST(SimGridBackend, StepOverheadAgreesWithClosedForms) {
  System sys = system_of("tupi", 8);
  sys.cluster.step_overhead_s = 300e-6;
  const Bytes n = 1.2e6;  // small, where the overhead counts; whole bytes per rank (SimGrid sends whole bytes)
  for (int nodes : {2, 3, 4, 8}) {
    sys.nodes = nodes;
    const CommTopology topo = topology_of(sys);
    ASSERT_DOUBLE_EQ(topo.inter.step_overhead_s, 300e-6);
    CommTopology bare = topo;
    bare.inter.step_overhead_s = bare.intra.step_overhead_s = 0;
    EXPECT_NEAR(collective_time_s(Algorithm::Ring, topo, n) - collective_time_s(Algorithm::Ring, bare, n),
                2 * (nodes - 1) * 300e-6, 1e-12);
    for (Algorithm a : {Algorithm::Ring, Algorithm::HalvingDoubling, Algorithm::Tree, Algorithm::Rabenseifner,
                        Algorithm::RecursiveDoubling}) {
      const Seconds analytic = collective_time_s(a, topo, n);
      for (Fidelity f : {Fidelity::Fast, Fidelity::Full}) {
        const Seconds sg = simgrid_collective_s(a, topo, n, sys, exact(f));
        EXPECT_LT(rel_diff(sg, analytic), 1e-7) << to_string(a) << " nodes " << nodes << " fidelity " << int(f)
                                                << ": simgrid " << sg << " s, analytic " << analytic << " s";
      }
    }
  }
  System dgx = system_of("dgx1", 2);  // hierarchical: the overhead on the node tree rounds too
  dgx.cluster.step_overhead_s = 300e-6;
  const CommTopology topo = topology_of(dgx);
  const Seconds analytic = collective_time_s(Algorithm::Hierarchical, topo, n);
  const Seconds sg = simgrid_collective_s(Algorithm::Hierarchical, topo, n, dgx, exact(Fidelity::Full));
  EXPECT_LT(rel_diff(sg, analytic), 1e-7) << "hierarchical: simgrid " << sg << " s, analytic " << analytic << " s";
}
