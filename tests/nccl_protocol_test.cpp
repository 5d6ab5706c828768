// NCCL's protocols (cost/protocol.hpp, cost/decision.hpp; comm.nccl_protocol, default simple): the
// protocol NCCL's tuning model picks by size (auto), what a protocol does to a call's rounds
// (per-step latency floors, share of the link), both backends running it alike, a forced protocol,
// and nothing changed where NCCL's latencies are off or Simple is asked for.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "backend/backend.hpp"
#include "cost/collectives.hpp"
#include "cost/decision.hpp"
#include "cost/library_costs.hpp"
#include "cost/protocol.hpp"
#include "plan_layout.hpp"
#include "simgrid/simgrid_backend.hpp"
#include "system/platform.hpp"
#include "system/system.hpp"
#include "collective_cli.hpp"
#include "test_util.hpp"

using namespace ddlsim;

namespace {

System dgx_a100(int nodes) {
  System sys;
  sys.cluster = find_cluster("dgx-a100", "test");
  use_library_factors(sys.cluster, "nccl");
  sys.nodes = nodes;
  return sys;
}

}  // namespace

// One DGX A100 (8 GPUs, NVLink at 230 GB/s, NVLink 3: llMaxBw 87.7 GB/s). NCCL's model (tuning.cc
// at master), times in us and n in bytes (bandwidths in bytes per us), 14 ring steps, algbw =
// busBw x 8 / 14:
//   LL      6.6 + 14 x 0.6  = 15.00 + n / (min(230 / 4, 87.7) x 8/14 = 32 857)
//   LL128  14.0 + 14 x 1.9  = 40.60 + n / (230 x 0.92 x 8/14      = 120 914)
//   Simple  8.4 + 14 x 3.4  = 56.00 + n / (230 x 8/14             = 131 429)
// LL until LL128 catches up at n = 25.6 / (1/32 857 - 1/120 914) = 1.155 MB; LL128 until Simple
// does at n = 15.4 / (1/120 914 - 1/131 429) = 23.3 MB.
TEST(NcclProtocol, TuningModelPicksLLThenLL128ThenSimpleBySize) {
  const CommTopology t = comm_topology(dgx_a100(1), 1, 8, 1);
  ASSERT_TRUE(t.nccl_protocols);
  EXPECT_NEAR(nccl_model_time_s(Algorithm::Ring, t, 1e6, Protocol::LL), 15.0e-6 + 1e6 / 32.857142857e9, 1e-12);
  EXPECT_NEAR(nccl_model_time_s(Algorithm::Ring, t, 1e6, Protocol::LL128), 40.6e-6 + 1e6 / (230e9 * 0.92 * 8 / 14), 1e-12);
  const auto proto = [&](Bytes n) { return nccl_allreduce_choice(t, n).protocol; };
  EXPECT_EQ(proto(8), Protocol::LL);
  EXPECT_EQ(proto(1.15e6), Protocol::LL);
  EXPECT_EQ(proto(1.16e6), Protocol::LL128);
  EXPECT_EQ(proto(23.2e6), Protocol::LL128);
  EXPECT_EQ(proto(23.4e6), Protocol::Simple);
  EXPECT_EQ(nccl_allreduce_choice(t, 23.4e6).algorithm, Algorithm::Ring);
  // A forced algorithm still gets NCCL's protocol.
  EXPECT_EQ(library_call({Library::Nccl, Algorithm::Ring, Protocol::Auto}, Collective::Allreduce, t, 8).protocol, Protocol::LL);
}

// LL128 needs NVLink: on PCIe (the 4 x RTX 3090 workstation) NCCL has LL and Simple only. LL moves a
// quarter of 24 GB/s (llMaxBw does not bind); its rounds last at least 1.0 us (PCI), below the
// route's own 4 us, so they keep 4 us.
TEST(NcclProtocol, Ll128OnlyOverNvlink) {
  System sys;
  sys.cluster = find_cluster("workstation-4x3090", "test");
  use_library_factors(sys.cluster, "nccl");
  const CommTopology t = comm_topology(sys, 1, 4, 1);
  EXPECT_FALSE(protocol_enabled(Protocol::LL128, t));
  for (double n = 8; n < 1e10; n *= 4) EXPECT_NE(nccl_allreduce_choice(t, n).protocol, Protocol::LL128) << n;
  EXPECT_DOUBLE_EQ(protocol_efficiency(Algorithm::Ring, Protocol::LL, t), 0.25);
  const CommTopology ll = protocol_topology(t, Algorithm::Ring, Protocol::LL);
  EXPECT_EQ(ll.intra.step_overhead_s, 0);
  EXPECT_DOUBLE_EQ(ll.intra.latency_s, t.intra.latency_s);
}

// What a protocol does to the rounds, by hand on the DGX A100 (a route: 0.47 us, 230 GB/s):
// 1 MiB runs LL: 8.4 us per call + 14 x (max(0.47, 0.6) us + 1 MiB / 8 / (230 GB/s / 4)) = 48.71 us;
// 4 MiB runs LL128: 8.4 + 14 x (max(0.47, 1.9) + 4 MiB / 8 / (230 GB/s x 0.92)) = 69.69 us, below
// NCCL's own estimate of the call, 14.0 + 14 x 1.9 + 4 MiB / (230 GB/s x 0.92 x 8/14) = 75.29 us,
// which it then lasts (LibraryCosts::nccl_residual_s); 1 MiB's rounds are above NCCL's 46.91.
// Across 3 nodes (NVLink routes of 0.47 us, 2.47 us between nodes): LL's intra hops at least the
// network's post overhead, 1.0 us, and its network hop 2.7 us, both above the routes' latencies:
// 0.53 and 0.23 us added.
TEST(NcclProtocol, ProtocolsSetEachRoundsFloorAndShareOfTheLink) {
  const auto time_us = [](const std::string& size) {
    const auto r = testutil::run_ddlsim("collective --cluster.platform=dgx-a100 --cluster.nodes=1 --sizes " + size +
                                        " --format json --comm.nccl_protocol=auto");
    EXPECT_EQ(r.code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out)[0];
    return std::make_pair(j["time_s"].get<double>() * 1e6, j["protocol"].get<std::string>());
  };
  const auto [t1, p1] = time_us("1M");
  EXPECT_EQ(p1, "LL");
  EXPECT_NEAR(t1, 8.4 + 14 * (0.6 + 1048576.0 / 8 / (230e9 / 4) * 1e6), 1e-6);
  const auto [t4, p4] = time_us("4M");
  EXPECT_EQ(p4, "LL128");
  EXPECT_NEAR(t4, 40.6 + 4194304.0 / (230e9 * 0.92 * 8 / 14) * 1e6, 1e-6);
  EXPECT_GT(t4, 8.4 + 14 * (1.9 + 4194304.0 / 8 / (230e9 * 0.92) * 1e6));
  const CommTopology three = protocol_topology(comm_topology(dgx_a100(3), 3, 8, 1), Algorithm::Ring, Protocol::LL);
  EXPECT_NEAR(three.intra.step_overhead_s, 1.0e-6 - 0.47e-6, 1e-15);
  EXPECT_NEAR(three.inter.step_overhead_s, 2.7e-6 - 2.47e-6, 1e-15);
  EXPECT_DOUBLE_EQ(protocol_efficiency(Algorithm::Ring, Protocol::LL, comm_topology(dgx_a100(3), 3, 8, 1)),
                   20.4e9 / comm_topology(dgx_a100(3), 3, 8, 1).flat_route().bw_Bps);
}

// Both backends run each bucket as the library does: a step's exchanges of small, mid-size and
// large buckets (LL, LL128, Simple) take the same time analytically and in SimGrid (fast and full).
TEST(NcclProtocol, BothBackendsRunTheProtocolAlike) {
  const System sys = dgx_a100(2);
  const CommTopology t = comm_topology(sys, 2, 8, 1);
  const CommMethod ring{Library::Nccl, Algorithm::Ring, Protocol::Auto};
  for (Bytes n : {65536.0, 4e6, 64e6}) {
    const LibraryCall k = library_call(ring, Collective::Allreduce, t, n);
    const Seconds analytic = collective_s(BackendKind::Analytic, Collective::Allreduce, k, sys, {});
    for (Fidelity f : {Fidelity::Fast, Fidelity::Full}) {
      SimGridOptions o;
      o.fidelity = f;
      EXPECT_NEAR(collective_s(BackendKind::SimGrid, Collective::Allreduce, k, sys, o), analytic,
                  1e-6 * analytic)
          << n;
    }
  }
}

// Where NCCL's latencies are off (comm.round_latency = network, or another library) every call runs
// as before: no protocol, the same bytes and routes.
TEST(NcclProtocol, NothingChangesWhereNcclsLatenciesAreOff) {
  System sys;
  sys.cluster = find_cluster("dgx-a100", "test");
  use_library_factors(sys.cluster, "nccl", true);
  const CommTopology t = comm_topology(sys, 1, 8, 1);
  EXPECT_FALSE(t.nccl_protocols);
  const LibraryCall k = library_call({Library::Nccl, Algorithm::Auto, Protocol::Auto}, Collective::Allreduce, t, 65536);
  EXPECT_EQ(k.protocol, Protocol::Simple);
  EXPECT_EQ(k.bytes, 65536);
  EXPECT_EQ(k.topo.intra.step_overhead_s, t.intra.step_overhead_s);
  const auto r = testutil::run_ddlsim("collective --cluster.platform=dgx-a100 --sizes 64K --format json --comm.round_latency=network");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)[0]["protocol"], "");
}

// NCCL_PROTO: comm.nccl_protocol forces one (LL here, at every size); simple, the default, keeps
// every call as before this mechanism; ll128 is refused where the GPUs have no NVLink (exit 2).
TEST(NcclProtocol, ForcedProtocolAndTheDefault) {
  const auto row = [](const std::string& args) {
    const auto r = testutil::run_ddlsim("collective --cluster.platform=dgx-a100 --sizes 64M --format json " + args);
    EXPECT_EQ(r.code, 0) << r.out;
    return nlohmann::json::parse(r.out)[0];
  };
  EXPECT_EQ(row("--comm.nccl_protocol=ll")["protocol"], "LL");
  EXPECT_EQ(row("")["protocol"], "Simple");
  EXPECT_EQ(row("")["time_s"], row("--comm.nccl_protocol=simple")["time_s"]);
  EXPECT_EQ(row("--comm.nccl_protocol=auto")["protocol"], "Simple");  // 64 MB: past LL128's 23 MB
  // A forced protocol also narrows NCCL's choice of algorithm (NCCL_PROTO zeroes the others): on 2
  // DGX A100 at 8 B, Simple alone: the tree's 8.4 + 2 (7 x 4.0 + 14) = 92.4 us beats the ring's
  // 8.4 + 28 x 3.4 + 2 x 14 = 131.6 us; with every protocol the tree's LL, 6.8 + 2 (7 x 0.6 + 5.0)
  // = 25.2 us, beats the ring's, 6.6 + 28 x 1.0 + 2 x 2.7 = 40.0 us (an intra hop at least the
  // network's post overhead across nodes).
  const auto two_nodes = [](const std::string& proto) {
    const auto r = testutil::run_ddlsim("collective --cluster.platform=dgx-a100 --cluster.nodes=2 --sizes 8 --format json "
                                        "--comm.nccl_protocol=" + proto);
    EXPECT_EQ(r.code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out)[0];
    return j["algorithm"].get<std::string>() + "/" + j["protocol"].get<std::string>();
  };
  EXPECT_EQ(two_nodes("simple"), "dbtree/Simple");
  EXPECT_EQ(two_nodes("auto"), "dbtree/LL");
  const auto bad = testutil::run_ddlsim("collective --cluster.platform=workstation-4x3090 --comm.nccl_protocol=ll128 --sizes 1M");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("comm.nccl_protocol"), std::string::npos) << bad.out;
}

// The other collectives NCCL runs on its ring get a protocol too (tuning.cc's nsteps, nInterSteps and
// LL share per collective). One DGX A100, times in us, n in bytes, bandwidths in bytes per us:
//   allgather, 7 steps (p - 1), algbw = busBw x share x 8 / 7; LL's share a third on one node:
//     LL      6.6 + 7 x 0.6  = 10.80 + n / (230 000 / 3 x 8/7 =  87 619)
//     LL128  14.0 + 7 x 1.9  = 27.30 + n / (230 000 x 0.92 x 8/7 = 241 829)
//     Simple  8.4 + 7 x 3.4  = 32.20 + n / (230 000 x 8/7 = 262 857)
//   LL until n = 16.5 / (1/87 619 - 1/241 829) = 2.27 MB, LL128 until n = 4.9 / (1/241 829 -
//   1/262 857) = 14.8 MB, then Simple;
//   broadcast, 8 steps (p), one hop's latency: LL 6.6 + 0.6 = 7.2 + n / (230 000 / 3 x 8/8);
//   reduce: the same latency, LL's share a quarter.
TEST(NcclProtocol, OtherCollectivesByHand) {
  const CommTopology t = comm_topology(dgx_a100(1), 1, 8, 1);
  const auto model = [&](Collective c, Protocol p, Bytes n) {
    return nccl_model_time_s(Algorithm::Ring, t, n, p, c);
  };
  EXPECT_NEAR(model(Collective::Allgather, Protocol::LL, 1e6), 10.8e-6 + 1e6 / (230e9 / 3 * 8 / 7), 1e-12);
  EXPECT_NEAR(model(Collective::Allgather, Protocol::LL128, 1e6), 27.3e-6 + 1e6 / (230e9 * 0.92 * 8 / 7), 1e-12);
  EXPECT_NEAR(model(Collective::ReduceScatter, Protocol::Simple, 1e6), 32.2e-6 + 1e6 / (230e9 * 8 / 7), 1e-12);
  EXPECT_NEAR(model(Collective::Broadcast, Protocol::LL, 1e6), 7.2e-6 + 1e6 / (230e9 / 3), 1e-12);
  EXPECT_NEAR(model(Collective::Reduce, Protocol::LL, 1e6), 7.2e-6 + 1e6 / (230e9 / 4), 1e-12);
  const CommMethod nccl{Library::Nccl, Algorithm::Auto, Protocol::Auto};
  const auto proto = [&](Collective c, Bytes n) { return library_call(nccl, c, t, n).protocol; };
  EXPECT_EQ(proto(Collective::Allgather, 2.1e6), Protocol::LL);
  EXPECT_EQ(proto(Collective::Allgather, 2.4e6), Protocol::LL128);
  EXPECT_EQ(proto(Collective::Allgather, 14.7e6), Protocol::LL128);
  EXPECT_EQ(proto(Collective::Allgather, 14.9e6), Protocol::Simple);
  EXPECT_EQ(proto(Collective::Alltoall, 8), Protocol::Simple);  // point-to-point sends: no protocol here
  // The call's rounds carry bytes / share: LL's third of an allgather.
  const LibraryCall k = library_call(nccl, Collective::Allgather, t, 1e6);
  EXPECT_DOUBLE_EQ(k.bytes, 3e6);
  // Simple, the default, leaves every collective's call as it was.
  const LibraryCall simple = library_call({Library::Nccl, Algorithm::Auto, Protocol::Simple}, Collective::Broadcast, t, 1e6);
  EXPECT_EQ(simple.protocol, Protocol::Simple);
  EXPECT_EQ(simple.bytes, 1e6);
  // Across nodes LL moves at most a quarter for every collective.
  EXPECT_LE(protocol_efficiency(Algorithm::Ring, Protocol::LL, comm_topology(dgx_a100(2), 2, 8, 1), Collective::Allgather),
            0.25);
}

// NCCL's network plugin (aws-ofi-nccl on EFA, src/platform-aws.c): on p4d it reports 75 us to
// NCCL and sets NCCL_PROTO=simple, on p5 75 us and leaves the protocols. NCCL's model adds the
// reported latency to each network step, twice with Simple; the rounds as they run keep hwLat.
// 2 p4d.24xlarge at 8 B, Simple, times in us: the ring 8.4 + 28 x 3.4 + 2 x (14 + 2 x 75) = 431.6,
// the tree 8.4 + 2 (7 x 4.0 + 1 x (14 + 150)) = 392.4: NCCL takes the tree.
TEST(NcclProtocol, NetworkPluginSetsSimpleAndItsLatencySteersTheChoice) {
  const auto cluster = [](const char* name) { return find_cluster(name, "test"); };
  EXPECT_DOUBLE_EQ(cluster("aws-p4d-24xlarge").nccl_net_latency_s, 75e-6);
  EXPECT_FALSE(cluster("aws-p4d-24xlarge").nccl_net_ll);
  EXPECT_DOUBLE_EQ(cluster("aws-p5-48xlarge").nccl_net_latency_s, 75e-6);
  EXPECT_TRUE(cluster("aws-p5-48xlarge").nccl_net_ll);
  EXPECT_EQ(cluster("dgx-a100").nccl_net_latency_s, 0);
  EXPECT_TRUE(cluster("dgx-a100").nccl_net_ll);
  System sys;
  sys.cluster = cluster("aws-p4d-24xlarge");
  use_library_factors(sys.cluster, "nccl");
  sys.nodes = 2;
  const CommTopology t = comm_topology(sys, 2, 8, 1);
  EXPECT_FALSE(protocol_enabled(Protocol::LL, t));
  EXPECT_FALSE(protocol_enabled(Protocol::LL128, t));
  EXPECT_NEAR(nccl_model_time_s(Algorithm::Ring, t, 8) * 1e6, 431.6, 1e-3);  // + 8 B's transfer, < 1 ns
  EXPECT_NEAR(nccl_model_time_s(Algorithm::DoubleBinaryTree, t, 8) * 1e6, 392.4, 1e-3);
  const NcclChoice c = nccl_allreduce_choice(t, 8);
  EXPECT_EQ(c.algorithm, Algorithm::DoubleBinaryTree);
  EXPECT_EQ(c.protocol, Protocol::Simple);
  // The rounds keep NCCL's hwLat: the plugin's figure steers the choice only.
  EXPECT_NEAR(t.inter.step_latency_s(), 14e-6, 1e-15);
  CommTopology ib = t;  // NCCL's own transports report 0: 8.4 + 28 x 3.4 + 2 x 14 = 131.6
  ib.net_plugin_latency_s = 0;
  EXPECT_NEAR(nccl_model_time_s(Algorithm::Ring, ib, 8) * 1e6, 131.6, 1e-3);
  // Keys: the protocols back (LL on two nodes), the latency off; LL asked for where the plugin
  // forbids it is an input error.
  const auto row = [](const std::string& args) {
    return testutil::collective_row("--cluster.platform=aws-p4d-24xlarge --cluster.nodes=2 --sizes 8 " + args);
  };
  EXPECT_EQ(row("")["protocol"], "Simple");
  EXPECT_EQ(row("--cluster.nccl_net_protocols=all")["protocol"], "LL");
  const auto bad = testutil::run_ddlsim("collective --cluster.platform=aws-p4d-24xlarge --comm.nccl_protocol=ll --sizes 8");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("NCCL_PROTO=simple"), std::string::npos) << bad.out;
}

// A call lasts at least NCCL's own estimate of it (LibraryCosts::nccl_residual_s): on 2 DGX A100 a
// 1 GiB ring allreduce's rounds take 10 500.0 us after the 8.4 us call; NCCL's model gives
// 131.6 x 1.4 + 1 GiB / (192 GB/s x 16/30) = 10 670.0, so 161.8 us more. Nothing is added for
// gloo, nor where NCCL's latencies are off, nor for NVLS.
TEST(NcclProtocol, CallsLastAtLeastNcclsOwnEstimate) {
  const System sys = dgx_a100(2);
  const CommTopology t = comm_topology(sys, 2, 8, 1);
  Execution e;
  e.library = Library::Nccl;
  e.algorithm = Algorithm::Ring;
  e.protocol = Protocol::Simple;
  const LibraryCosts lib = library_costs(e, sys, &t);
  ASSERT_TRUE(lib.nccl.has_value());
  const double n = 1073741824.0;
  const LibraryCall k = library_call(e.comm(), Collective::Allreduce, t, n);
  const double rounds_us = collective_time_s(k.algorithm, k.topo, k.bytes) * 1e6;
  EXPECT_NEAR(rounds_us, 14.0 + 30 * (n / 16 / 192e9 * 1e6), 1e-6);
  EXPECT_NEAR(lib.nccl_residual_s(n) * 1e6, 131.6 * 1.4 + n / (192e9 * 16 / 30) * 1e6 - 8.4 - rounds_us, 1e-6);
  EXPECT_EQ(lib.nccl_residual_s(8), 0);  // the rounds, 144.4 us, are above NCCL's 131.6
  e.library = Library::Gloo;
  EXPECT_FALSE(library_costs(e, sys, &t).nccl.has_value());
  e.library = Library::Nccl;
  System off = sys;
  use_library_factors(off.cluster, "nccl", true);
  const CommTopology t_off = comm_topology(off, 2, 8, 1);
  EXPECT_FALSE(library_costs(e, off, &t_off).nccl.has_value());
  EXPECT_FALSE(library_costs(e, sys).nccl.has_value());
}
