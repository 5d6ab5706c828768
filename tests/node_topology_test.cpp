// CPU sockets and PCIe switches inside a node (docs/design.md "CPU sockets and PCIe switches"): a
// ring through PCIe GPUs is bounded as NCCL's topology search bounds it (NVIDIA/nccl src/graph/
// topo.h, search.cc): 5/6 of the PCIe rate through an Intel root complex, the socket link's figure
// across sockets. Each figure below by hand from those two rules.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/platform_reader.hpp"
#include "system/platform.hpp"
#include "system/platform_xml.hpp"
#include "test_util.hpp"

using namespace ddlsim;
using testutil::run_ddlsim;
using testutil::TempFile;

namespace {
ClusterDescription node(const char* intra, int gpus, const char* cpu, int per_socket, int per_switch,
                        bool peer_to_peer = true) {
  ClusterDescription c = find_cluster("cluster4x25g", "test");
  c.peer_to_peer = peer_to_peer;
  c.intra = find_link_kind(intra, "test", LinkPlace::Intra);
  c.gpus_per_node = gpus;
  c.cpu = cpu;
  c.gpus_per_socket = per_socket;
  c.gpus_per_switch = per_switch;
  return c;
}

// A node's GPUs and what a ring through them gets, by hand.
struct PathCase {
  const char* intra;
  int gpus;
  const char* cpu;
  int per_socket, per_switch;
  double GBps;
};

double busbw_GBps(const std::string& args) {
  const auto r = run_ddlsim("collective --algorithm ring --sizes 16G --format json " + args);
  EXPECT_EQ(r.code, 0) << args << "\n" << r.out;
  if (r.code != 0) return 0;
  return nlohmann::json::parse(r.out)[0]["busbw_GBps"].get<double>();
}
}  // namespace

TEST(NodeTopology, GpuPathFollowsNcclsTopologyModel) {
  const PathCase cases[] = {
      {"pcie3", 8, "", 0, 1, 12.0},                    // not described: the link alone
      {"pcie3", 8, "skylake", 4, 1, 10.0},             // min(12 x 5/6 = 10, UPI 10)
      {"pcie3", 8, "broadwell", 4, 2, 6.0},            // switches of 2 < 4 a socket: min(10, QPI 6)
      {"pcie3", 8, "skylake", 4, 4, 10.0},             // a switch per socket: min(12, UPI 10)
      {"pcie4", 4, "skylake", 0, 1, 20.0},             // one socket, root ports: 24 x 5/6
      {"pcie4", 4, "skylake", 0, 4, 24.0},             // one switch joins all four
      {"pcie4", 4, "skylake", 4, 1, 20.0},             // 4 used of 4 a socket: one socket
      {"pcie4", 8, "epyc-rome", 4, 1, 16.0},           // AMD: no overhead; Infinity Fabric 16
      {"pcie4", 8, "epyc-milan", 0, 1, 24.0},          // AMD, one socket: the link
      {"pcie5", 8, "sapphire-rapids", 4, 1, 22.0},     // min(48 x 5/6 = 40, UPI 22)
      {"pcie4", 2, "broadwell", 1, 1, 6.0},            // one GPU a socket: only the socket link
      {"pcie4", 1, "broadwell", 1, 1, 24.0},           // one GPU: no ring inside the node
      {"nvlink3", 8, "broadwell", 4, 1, 230.0},        // NVLink carries the GPUs' traffic
      {"pcie4", 4, "intel-core", 0, 1, 20.0},          // an Intel workstation: 24 x 5/6
      {"pcie4", 4, "amd-ryzen", 0, 1, 24.0},           // an AMD one: the link
  };
  for (const auto& c : cases) {
    const ClusterDescription d = node(c.intra, c.gpus, c.cpu, c.per_socket, c.per_switch);
    EXPECT_NEAR(d.gpu_path_Bps() / 1e9, c.GBps, 1e-9) << c.intra << " " << c.gpus << " " << c.cpu << " " << c.per_socket
                                                      << " " << c.per_switch;
    EXPECT_NEAR(d.intra_route().bw_Bps / 1e9, c.GBps, 1e-9) << c.cpu;
    EXPECT_EQ(d.gpu_path_note().empty(), c.GBps == find_link_kind(c.intra, "t", LinkPlace::Intra).bw_Bps / 1e9) << c.cpu;
  }
}

// Without peer-to-peer (GeForce RTX 30/40/50) NCCL sends every hop through the CPU: a PHB path
// (Intel: 5/6) whose switch uplink carries each of its GPUs' hops (docs/design.md "CPU sockets and
// PCIe switches"). By hand.
TEST(NodeTopology, WithoutPeerToPeerEveryHopCrossesTheCpu) {
  const PathCase cases[] = {
      {"pcie4", 4, "skylake", 0, 4, 5.0},     // one switch of four: 24 x 5/6 / 4
      {"pcie4", 4, "epyc-milan", 0, 4, 6.0},  // AMD: 24 / 4
      {"pcie4", 4, "skylake", 0, 1, 20.0},    // root ports: each GPU's own link, 24 x 5/6
      {"pcie4", 8, "skylake", 4, 4, 5.0},     // min(5, UPI 10)
      {"pcie4", 8, "epyc-rome", 4, 2, 12.0},  // min(24 / 2, Infinity Fabric 16)
      {"pcie4", 8, "skylake", 2, 4, 10.0},    // two a socket behind its switch: min(24 x 5/6 / 2, 10)
      {"pcie4", 4, "", 0, 1, 24.0},           // not described: the link alone
      {"pcie4", 1, "skylake", 0, 1, 24.0},    // one GPU: no hop inside the node
      {"nvlink3", 8, "broadwell", 4, 1, 230.0},  // NVLink: peer-to-peer over its own links
  };
  for (const auto& c : cases) {
    const ClusterDescription d = node(c.intra, c.gpus, c.cpu, c.per_socket, c.per_switch, false);
    EXPECT_NEAR(d.gpu_path_Bps() / 1e9, c.GBps, 1e-9) << c.intra << " " << c.gpus << " " << c.cpu << " "
                                                      << c.per_socket << " " << c.per_switch;
    EXPECT_LE(d.gpu_path_Bps(), node(c.intra, c.gpus, c.cpu, c.per_socket, c.per_switch).gpu_path_Bps()) << c.cpu;
  }
  const std::string xml = platform_xml(node("pcie4", 4, "skylake", 0, 4, false), 2);
  EXPECT_NE(xml.find("share its uplink"), std::string::npos) << xml;
  const auto gen = run_ddlsim("platform generate --gpus-per-node 4 --intra pcie4 --cpu skylake --gpus-per-switch 4 "
                              "--device rtx4090");
  ASSERT_EQ(gen.code, 0) << gen.out;
  EXPECT_NE(gen.out.find("bw=\"5000000000Bps\""), std::string::npos) << gen.out;
  const auto on = run_ddlsim("platform generate --gpus-per-node 4 --intra pcie4 --cpu skylake --gpus-per-switch 4 "
                             "--device rtx4090 --peer-to-peer on");
  ASSERT_EQ(on.code, 0) << on.out;
  EXPECT_NE(on.out.find("bw=\"24000000000Bps\""), std::string::npos) << on.out;
}

TEST(NodeTopology, MoreSocketBandwidthIsNeverSlower) {
  for (const CpuKind& a : cpu_kinds())
    for (const CpuKind& b : cpu_kinds()) {
      if (a.intel_root_complex != b.intel_root_complex || a.socket_link_Bps > b.socket_link_Bps) continue;
      if (a.socket_link_Bps == 0) continue;  // one socket: refused where GPUs span sockets
      for (const char* intra : {"pcie3", "pcie4", "pcie5"})
        EXPECT_LE(node(intra, 8, a.name.c_str(), 4, 1).gpu_path_Bps(), node(intra, 8, b.name.c_str(), 4, 1).gpu_path_Bps())
            << a.name << " " << b.name;
    }
}

// A large ring allreduce reaches the path as bus bandwidth, and across nodes the lower of the path
// and the NIC. The analytic backend and SimGrid (which builds each GPU's link at the path's figure)
// agree.
TEST(NodeTopology, RingBusBandwidthIsThePathInEveryBackend) {
  const std::string ws = "--cluster.platform=workstation-4x3090 ";
  EXPECT_NEAR(busbw_GBps(ws), 24.0, 0.24);
  EXPECT_NEAR(busbw_GBps(ws + "--cluster.cpu=skylake"), 20.0, 0.2);
  EXPECT_NEAR(busbw_GBps(ws + "--cluster.cpu=epyc-rome --cluster.gpus_per_socket=2"), 16.0, 0.16);
  // The RTX 3090 has no peer-to-peer: behind one switch the four share its uplink, each hop at
  // 5/6 through the Intel root complex (24 x 5/6 / 4 = 5); with it, the switch joins them (24).
  EXPECT_NEAR(busbw_GBps(ws + "--cluster.cpu=icelake --cluster.gpus_per_switch=4"), 5.0, 0.05);
  EXPECT_NEAR(busbw_GBps(ws + "--cluster.cpu=icelake --cluster.gpus_per_switch=4 --cluster.peer_to_peer=on"), 24.0,
              0.24);
  EXPECT_NEAR(busbw_GBps(ws + "--cluster.cpu=icelake --cluster.gpus_per_switch=4 --compute.device=a100-pcie"), 24.0,
              0.24);
  // 2 nodes of 8 PCIe 3 GPUs on two Broadwell sockets with 100 GbE: min(6, 11.5).
  const std::string two = "--cluster.platform=cluster4x25g --cluster.gpus_per_node=8 --cluster.nodes=2 "
                          "--cluster.inter=100gbe --cluster.cpu=broadwell --cluster.gpus_per_socket=4 ";
  EXPECT_NEAR(busbw_GBps(two), 6.0, 0.06);
  // Without peer-to-peer, switches of four: 12 x 5/6 / 4 = 2.5 GB/s.
  const std::string no_p2p = two + "--cluster.gpus_per_switch=4 --cluster.peer_to_peer=off ";
  EXPECT_NEAR(busbw_GBps(no_p2p), 2.5, 0.025);
  for (const std::string& keys : {two, no_p2p})
    for (const char* fidelity : {"fast", "full"}) {
      const auto r = run_ddlsim("collective --algorithm ring --sizes 64M --format json " + keys +
                                "--simulation.backend=simgrid --simulation.fidelity=" + fidelity);
      const auto a = run_ddlsim("collective --algorithm ring --sizes 64M --format json " + keys);
      ASSERT_EQ(r.code, 0) << r.out;
      ASSERT_EQ(a.code, 0) << a.out;
      const double simgrid_s = nlohmann::json::parse(r.out)[0]["time_s"].get<double>();
      const double analytic_s = nlohmann::json::parse(a.out)[0]["time_s"].get<double>();
      EXPECT_NEAR(simgrid_s, analytic_s, 1e-6 * analytic_s) << fidelity << " " << keys;
    }
}

TEST(NodeTopology, GeneratedPlatformCarriesThePath) {
  const ClusterDescription c = node("pcie3", 8, "skylake", 4, 1);
  const std::string xml = platform_xml(c, 2);
  EXPECT_NE(xml.find("CPU skylake, 4 GPU(s) per socket, 1 per PCIe switch: each GPU's link carries 10 GB/s"),
            std::string::npos) << xml;
  TempFile file("p.xml", xml);
  const ClusterDescription r = read_platform_file(file.path());
  EXPECT_NEAR(r.intra_route().bw_Bps, 10e9, 1e-3);
  const auto gen = run_ddlsim("platform generate --gpus-per-node 8 --intra pcie3 --cpu broadwell --gpus-per-socket 4");
  ASSERT_EQ(gen.code, 0) << gen.out;
  EXPECT_NE(gen.out.find("bw=\"6000000000Bps\""), std::string::npos) << gen.out;
  const auto list = run_ddlsim("platform list");
  EXPECT_NE(list.out.find("sapphire-rapids"), std::string::npos) << list.out;
}

TEST(NodeTopology, BadInputsExit2NamingTheKey) {
  const struct {
    const char* args;
    const char* says;
  } cases[] = {
      {"collective --cluster.cpu=pentium", "cluster.cpu = 'pentium': unknown CPU family"},
      {"collective --cluster.gpus_per_socket=2", "cluster.gpus_per_socket = '2': expected a CPU family in cluster.cpu"},
      {"collective --cluster.cpu=skylake --cluster.gpus_per_switch=0", "cluster.gpus_per_switch = '0': expected a positive"},
      {"platform generate --gpus-per-switch 2", "need --cpu"},
      {"platform generate --cpu z80", "--cpu = 'z80': unknown CPU family"},
      {"collective --cluster.platform=workstation-4x3090 --cluster.cpu=intel-core --cluster.gpus_per_socket=2",
       "cluster.gpus_per_socket"},
      {"platform generate --gpus-per-node 4 --cpu amd-ryzen --gpus-per-socket 2", "has one socket"},
      {"collective --cluster.peer_to_peer=maybe", "cluster.peer_to_peer = 'maybe'"},
      {"platform generate --peer-to-peer maybe", "--peer-to-peer maybe: expected auto, on or off"},
  };
  for (const auto& c : cases) {
    const auto r = run_ddlsim(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << c.args << "\n" << r.out;
  }
  // SimGrid simulates a platform file's own links: the keys cannot change them.
  TempFile file("p.xml", platform_xml(node("pcie3", 4, "", 0, 1), 2));
  const auto r = run_ddlsim("collective --simulation.backend=simgrid --cluster.platform=" + file.path() +
                            " --cluster.nodes=2 --cluster.cpu=skylake");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("cluster.cpu"), std::string::npos) << r.out;
}

// NCCL takes NVLink's per-step latencies and LL128 on NVLink paths, whatever their bandwidth: PCIe
// 5 (48 GB/s) stays PCI, NVLink 1 (36 GB/s) is NVLink; a platform file's route, of unknown kind,
// is NVLink from 40 GB/s.
TEST(NodeTopology, NvlinkHopsGoByKind) {
  EXPECT_FALSE(node("pcie5", 8, "", 0, 1).intra_nvlink());
  EXPECT_TRUE(node("nvlink1", 8, "", 0, 1).intra_nvlink());
  ClusterDescription file = node("pcie3", 8, "", 0, 1);
  file.intra = {"file", 50e9, 1e-6, ""};
  EXPECT_TRUE(file.intra_nvlink());
  file.intra.bw_Bps = 30e9;
  EXPECT_FALSE(file.intra_nvlink());
  const std::string ws = "collective --cluster.platform=workstation-4x3090 --comm.nccl_protocol=ll128 ";
  const auto pcie5 = run_ddlsim(ws + "--cluster.intra=pcie5");
  EXPECT_EQ(pcie5.code, 2) << pcie5.out;
  EXPECT_EQ(run_ddlsim(ws + "--cluster.intra=nvlink1").code, 0);
}

// A job drives one rail a GPU it uses (ClusterDescription::rails_used): 2 DGX A100 (8 HDR rails of
// 24 GB/s each) with one GPU each are a 2-rank ring over one rail, busbw -> 24 GB/s at 1 GiB (the
// ring's 2 (alpha + n / (2 B)) rounds: 23.99 with its latencies); two GPUs each, two rails: 48;
// all eight, NVLink-bound inside the node as before (191.7). SimGrid's uplink is the same link.
TEST(NodeTopology, AJobDrivesOneRailAGpu) {
  const std::string dgx =
      "--cluster.platform=dgx-a100 --cluster.nodes=2 --comm.algorithm=ring --cluster.gpus_per_node=";
  for (const auto& [g, rails] : std::vector<std::pair<int, double>>{{1, 1}, {2, 2}}) {
    for (const char* backend : {"analytic", "simgrid"}) {
      const auto r = run_ddlsim("collective --algorithm ring --sizes 1G --format json " + dgx + std::to_string(g) +
                                " --simulation.backend=" + backend);
      ASSERT_EQ(r.code, 0) << r.out;
      const double busbw = nlohmann::json::parse(r.out)[0]["busbw_GBps"].get<double>();
      EXPECT_NEAR(busbw, 24.0 * rails, 0.01 * 24.0 * rails) << g << " GPUs a node, " << backend;
    }
  }
  EXPECT_GT(busbw_GBps(dgx + "8"), 150.0);
}
