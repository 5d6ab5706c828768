#include "system/platform.hpp"

#include <tuple>

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace ddlsim {
inline namespace system_layer {

namespace {
constexpr double us = 1e-6;

template <class T>
const T& find_by_name(const std::vector<T>& items, const std::string& name, const std::string& key,
                      const char* what) {
  const std::string n = to_lower(name);
  auto it = std::find_if(items.begin(), items.end(), [&](const T& x) { return x.name == n; });
  if (it == items.end()) throw_unknown(key, name, what, names_of(items, [](const T& x) { return x.name; }));
  return *it;
}
}  // namespace

// One NVLink link's latency: NCCL's tuning model gives a whole LL ring step on an NVLink hop 0.47 us
// (src/graph/tuning.cc, hwLat[NVLINK][RING][LL], NCCL 2.7-2.8), wire, flag and copy included, and a
// route between two GPUs crosses two links (GPU to switch or bridge, then to the GPU): at most half
// of it each. (1 us each before, uncited: an LL step then took 2 us, four times NCCL's own figure.)
constexpr Seconds kNvlinkLatency_s = 0.47e-6 / 2;

// A PCIe link: half of the shortest step NCCL times on PCIe, its ring LL step of 1.0 us
// (src/graph/tuning.cc hwLatencies[PCI]), since a GPU-to-GPU route crosses two links (as NVLink's,
// above); every other protocol's step is longer, and NCCL's own floors (comm.round_latency =
// library) give those. (2 us a link before, uncited: a small allreduce on a PCIe server then took
// about twice its nccl-tests time, docs/validation-collectives.md.)
constexpr Seconds kPcieLatency_s = 1.0e-6 / 2;

// Effective one-direction bandwidths: what a bulk transfer achieves (TCP goodput on Ethernet,
// NCCL bus bandwidth for NVLink), and one-hop latencies including the software stack's share.
const std::vector<LinkKind>& link_kinds() {
  static const std::vector<LinkKind> kinds = {
      {"1gbe", 117.5e6, 25 * us, "1 Gb/s Ethernet, TCP goodput 940 Mb/s"},
      {"10gbe", 1.175e9, 10 * us, "10 Gb/s Ethernet, TCP goodput 9.4 Gb/s"},
      {"25gbe", 2.9e9, 5 * us, "25 Gb/s Ethernet, 23 Gb/s achieved"},
      {"100gbe", 11.5e9, 3 * us, "100 Gb/s Ethernet (RoCE)"},
      {"ib-fdr", 6.0e9, 1 * us, "InfiniBand FDR 56 Gb/s"},
      {"ib-edr", 12.0e9, 1 * us, "InfiniBand EDR 100 Gb/s"},
      {"pcie3", 12.0e9, kPcieLatency_s, "PCIe 3.0 x16, about 12 GB/s achieved"},
      {"pcie4", 24.0e9, kPcieLatency_s, "PCIe 4.0 x16, about 24 GB/s achieved"},
      {"nvlink1", 36.0e9, kNvlinkLatency_s, "NVLink 1 (P100 DGX-1), ring bus bandwidth"},
      {"nvlink2", 130.0e9, kNvlinkLatency_s, "NVLink 2 (V100 DGX-1/DGX-2), NCCL bus bandwidth"},
      {"nvlink3", 230.0e9, kNvlinkLatency_s, "NVLink 3 (A100), NCCL bus bandwidth"},
      // Added with their derivation (docs/design.md, "Link kinds"): line rate from the standard or
      // datasheet, times the share of it the kinds above already use for the same technology.
      {"40gbe", 4.7e9, 5 * us,
       "40 Gb/s Ethernet, TCP goodput 94 % of line rate (1448 payload bytes per 1538 on the wire, MTU 1500)"},
      {"100gbe-tcp", 11.75e9, 10 * us,
       "100 Gb/s Ethernet over TCP sockets (NCCL's socket transport): 94 % header bound; a single stream is "
       "CPU-bound below it"},
      {"200gbe", 23.0e9, 3 * us, "200 Gb/s Ethernet (RoCE): the 100gbe kind's 92 % of line rate"},
      {"400gbe", 46.0e9, 3 * us, "400 Gb/s Ethernet (RoCE): the 100gbe kind's 92 % of line rate"},
      {"ib-hdr", 24.0e9, 1 * us, "InfiniBand HDR 200 Gb/s (4x 50G PAM4, 25 GB/s of data): EDR's 96 % of the data rate"},
      {"ib-ndr", 48.0e9, 1 * us, "InfiniBand NDR 400 Gb/s (4x 100G PAM4, 50 GB/s of data): EDR's 96 % of the data rate"},
      {"pcie5", 48.0e9, kPcieLatency_s, "PCIe 5.0 x16 (32 GT/s x 16, 128b/130b: 63 GB/s raw): pcie4's 76 % of raw"},
      {"nvlink4", 345.0e9, kNvlinkLatency_s,
       "NVLink 4 (H100 SXM: 18 links, 450 GB/s per direction): NVLink 3's 77 % of line rate; its NVSwitch "
       "reduces (NVLink SHARP: comm.algorithm = nvls, or NCCL's auto, on one node)"},
      {"nvlink-bridge", 43.0e9, kNvlinkLatency_s,
       "NVLink bridge between two RTX 3090 (112.5 GB/s both directions, 56.25 one way): NVLink 3's 77 %"},
  };
  return kinds;
}

namespace {
bool is_intra_kind(const LinkKind& k) { return k.name.rfind("pcie", 0) == 0 || k.name.rfind("nvlink", 0) == 0; }
}  // namespace

const LinkKind& find_link_kind(const std::string& name, const std::string& key, LinkPlace place) {
  const auto in_place = [&](const LinkKind& k) { return is_intra_kind(k) == (place == LinkPlace::Intra); };
  const std::string n = to_lower(name);
  for (const LinkKind& k : link_kinds())  // a prediction asks for its host link: no copies on the way
    if (in_place(k) && k.name == n) return k;
  std::vector<LinkKind> kinds;  // unknown: the error lists this place's kinds
  std::copy_if(link_kinds().begin(), link_kinds().end(), std::back_inserter(kinds), in_place);
  find_by_name(kinds, name, key, place == LinkPlace::Intra ? "intra-node link kind" : "inter-node link kind");
  throw std::logic_error("find_link_kind: " + name + " found in a copy of the table only");
}

// The CPU families NCCL's topology model tells apart (NVIDIA/nccl src/graph/topo.cc: an Intel
// CPU of family 6 is Emerald Rapids from model 0xCF, Sapphire Rapids from 0x8F, Skylake from 0x55,
// else Broadwell; AMD's by Zen generation) with the inter-socket bandwidth NCCL gives each (src/
// graph/topo.h, GB/s in one direction, the figure its ring search fits channels into).
const std::vector<CpuKind>& cpu_kinds() {
  static const std::vector<CpuKind> kinds = {
      {"haswell", 6e9, true, "Intel Xeon E5 v3: QPI, NCCL's BDW_QPI_BW 6 GB/s"},
      {"broadwell", 6e9, true, "Intel Xeon E5 v4: QPI, NCCL's BDW_QPI_BW 6 GB/s"},
      {"skylake", 10e9, true, "Intel Xeon Scalable 1st gen: UPI, NCCL's SKL_QPI_BW 10 GB/s"},
      {"cascadelake", 10e9, true, "Intel Xeon Scalable 2nd gen: UPI, NCCL's SKL_QPI_BW 10 GB/s"},
      {"icelake", 10e9, true, "Intel Xeon Scalable 3rd gen: UPI, NCCL's SKL_QPI_BW 10 GB/s"},
      {"sapphire-rapids", 22e9, true, "Intel Xeon Scalable 4th gen: UPI, NCCL's SRP_QPI_BW 22 GB/s"},
      {"emerald-rapids", 40e9, true, "Intel Xeon Scalable 5th gen: UPI, NCCL's ERP_QPI_BW 40 GB/s"},
      {"epyc-naples", 16e9, false, "AMD EPYC 7001 (Zen): Infinity Fabric, NCCL's AMD_ZEN12_BW 16 GB/s"},
      {"epyc-rome", 16e9, false, "AMD EPYC 7002 (Zen 2): Infinity Fabric, NCCL's AMD_ZEN12_BW 16 GB/s"},
      {"epyc-milan", 24e9, false, "AMD EPYC 7003 (Zen 3): Infinity Fabric, NCCL's AMD_ZEN34_BW 24 GB/s"},
      {"epyc-genoa", 24e9, false, "AMD EPYC 9004 (Zen 4): Infinity Fabric, NCCL's AMD_ZEN34_BW 24 GB/s"},
      {"epyc-turin", 32e9, false, "AMD EPYC 9005 (Zen 5): Infinity Fabric, NCCL's AMD_ZEN5_BW 32 GB/s"},
      {"power9", 32e9, false, "IBM POWER9: NCCL's P9_BW 32 GB/s"},
      // Desktop and workstation CPUs have one socket (no socket link: 0).
      {"intel-core", 0, true, "Intel Core / Xeon W workstations: one socket, Intel root complex"},
      {"amd-ryzen", 0, false, "AMD Ryzen / Threadripper workstations: one socket"},
      {"arm", 6e9, false, "Arm server CPUs: NCCL's ARM_BW 6 GB/s"},
  };
  return kinds;
}

const CpuKind& find_cpu_kind(const std::string& name, const std::string& key) {
  return find_by_name(cpu_kinds(), name, key, "CPU family");
}

namespace {
bool is_pcie(const LinkKind& k) { return k.name.rfind("pcie", 0) == 0; }

// Where a ring through a node's GPUs crosses the CPU (NCCL's path types, src/graph/paths.cc): a hop
// between GPUs of one socket that no PCIe switch joins goes through the root complex (PHB), a hop
// between sockets over the socket link (SYS). Local ranks fill socket 0's GPUs first.
struct NodePaths {
  int per_socket = 1;  // GPUs of the job on one socket
  bool through_root_complex = false;
  bool across_sockets = false;
};
NodePaths node_paths(const ClusterDescription& c) {
  const int per_socket = c.gpus_per_socket > 0 ? std::min(c.gpus_per_socket, c.gpus_per_node) : c.gpus_per_node;
  return {per_socket, per_socket > 1 && c.gpus_per_switch < per_socket, c.gpus_per_node > per_socket};
}

// Intel's root complex: peer-to-peer traffic costs 6/5 of its bandwidth (topo.h INTEL_P2P_OVERHEAD,
// applied by search.cc to PHB paths only).
constexpr double kIntelP2pShare = 5.0 / 6.0;
}  // namespace

bool ClusterDescription::nvswitch() const {
  if (nvswitch_set >= 0) return nvswitch_set == 1 && intra_nvlink();
  return intra.name == "nvlink3" || intra.name == "nvlink4" || (intra.name == "nvlink2" && gpus_per_node > 8);
}

bool ClusterDescription::intra_nvlink() const {
  if (intra.name.rfind("nvlink", 0) == 0) return true;
  return !is_intra_kind(intra) && intra.bw_Bps >= nccl_tuning::kNvlinkMin_Bps;
}

namespace {
// A ring's path through a node's GPUs: its bandwidth and what bounds it, in words.
struct GpuPath {
  BytesPerSecond bw_Bps = 0;
  std::string bound;
};
// Without peer-to-peer NCCL diverts every hop between two GPUs through their CPU (src/graph/paths.cc
// ncclTopoComputePaths, "Divert all traffic through the CPU", when ncclTopoCheckP2p finds NVML's
// P2P status not OK), and its search charges each channel's hop to every link the path crosses
// (search.cc followPath): the uplink of a PCIe switch carries each of its GPUs' hops up and down,
// so a ring through g GPUs behind one switch gets 1/g of it (the uplink taken as one more link of
// the GPUs' kind, x16). The path is a PHB one, so an Intel root complex's 6/5 applies on every hop.
GpuPath gpu_path(const ClusterDescription& c) {
  GpuPath out{c.intra.bw_Bps, ""};
  if (c.cpu.empty() || !is_pcie(c.intra)) return out;
  const CpuKind& k = find_cpu_kind(c.cpu, "cluster.cpu");
  const NodePaths p = node_paths(c);
  const bool via_host = !c.peer_to_peer && c.gpus_per_node > 1;
  if ((p.through_root_complex || via_host) && k.intel_root_complex) {
    out.bw_Bps *= kIntelP2pShare;
    out.bound = via_host ? "no peer-to-peer: every hop through an Intel root complex at 5/6 of the PCIe rate "
                           "(NCCL's INTEL_P2P_OVERHEAD)"
                         : "peer-to-peer through an Intel root complex at 5/6 of the PCIe rate (NCCL's "
                           "INTEL_P2P_OVERHEAD)";
  }
  const int sharing = std::min(c.gpus_per_switch, p.per_socket);
  if (via_host && sharing > 1) {
    out.bw_Bps /= sharing;
    out.bound += std::string(out.bound.empty() ? "" : "; ") + "no peer-to-peer: the " + std::to_string(sharing) +
                 " GPUs behind a PCIe switch share its uplink to the CPU";
  }
  if (p.across_sockets && k.socket_link_Bps > 0) {  // else refused (check_node_topology)
    out.bw_Bps = std::min(out.bw_Bps, k.socket_link_Bps);
    out.bound += std::string(out.bound.empty() ? "" : "; ") + "the ring crosses the " + k.name + " socket link (" +
                 k.note + ")";
  }
  return out;
}
}  // namespace

BytesPerSecond ClusterDescription::gpu_path_Bps() const { return gpu_path(*this).bw_Bps; }

std::string ClusterDescription::gpu_path_note() const { return gpu_path(*this).bound; }

void ClusterDescription::check_node_topology(const std::string& key) const {
  if (cpu.empty() || !node_paths(*this).across_sockets) return;
  const CpuKind& k = find_cpu_kind(cpu, key);
  if (k.socket_link_Bps <= 0)
    throw InputError(key + ": " + std::to_string(gpus_per_node) + " GPUs at " + std::to_string(gpus_per_socket) +
                     " a socket span sockets, but " + k.name + " has one socket");
}


namespace {
// The software overhead per round that makes a round of a route with network latency `latency`
// last at least `floor` (none where they differ by rounding alone: a route whose latency adds up to
// the floor).
Seconds overhead_for(Seconds measured, Seconds floor, Seconds latency) {
  const Seconds gap = floor - latency;
  return std::max(measured, gap > 1e-15 ? gap : 0.0);
}
}  // namespace

Route ClusterDescription::intra_route() const {
  const Seconds latency = 2 * intra.latency_s;
  const BytesPerSecond bw = host_exchange_Bps > 0 ? std::min(gpu_path_Bps(), host_exchange_Bps) : gpu_path_Bps();
  return {latency, bw, intra.exchange_factor, intra.duplex_factor,
          overhead_for(step_overhead_s, intra_round_floor_s, latency)};
}

Route ClusterDescription::inter_route() const {
  const Seconds latency = 2 * intra.latency_s + 2 * inter.latency_s;
  Route r{latency, transport_bound(std::min(gpu_path_Bps(), uplink_Bps())),
          std::min(intra.exchange_factor, inter.exchange_factor), std::min(intra.duplex_factor, inter.duplex_factor),
          overhead_for(step_overhead_s, inter_round_floor_s, latency)};
  r.rendezvous_bytes = net_eager_bytes;
  r.rendezvous_s = net_rendezvous_s;
  return r;
}

Route ClusterDescription::rail_route() const {
  Route r = inter_route();
  r.bw_Bps = transport_bound(std::min(gpu_path_Bps(), uplink_Bps() / gpus_per_node));
  return r;
}

BytesPerSecond ClusterDescription::transport_Bps() const {
  return socket_transport ? socket_transport_Bps(socket_threads, tcp_thread_Bps, tcp_flow_Bps) : 0;
}

BytesPerSecond ClusterDescription::transport_bound(BytesPerSecond links_Bps) const {
  const BytesPerSecond t = transport_Bps();
  return t > 0 ? std::min(links_Bps, t) : links_Bps;
}

void use_library_factors(ClusterDescription& c, const std::string& library, bool network_latency_only) {
  c.intra_round_floor_s = c.inter_round_floor_s = 0;
  if (library == "nccl" && !network_latency_only) {
    using namespace nccl_tuning;
    c.intra_round_floor_s = intra_step_s(kRing[int(Protocol::Simple)], c.intra_nvlink());
    c.inter_round_floor_s = kRingStepNet_s;
  }
  if (c.xml_path.empty()) return;
  const auto own = c.library_factors.find(library);
  if (own != c.library_factors.end()) {
    std::tie(c.inter.exchange_factor, c.inter.duplex_factor) = own->second;
  } else if (!c.factors_library.empty() && c.factors_library != library) {
    c.inter.exchange_factor = c.inter.duplex_factor = 1;
  }
  // The step overhead is the plain properties' library's software (one value per file).
  if (!c.factors_library.empty() && c.factors_library != library) c.step_overhead_s = 0;
  // A measured overhead is the library's own: it replaces the cost model's.
  if (c.step_overhead_s > 0) c.intra_round_floor_s = c.inter_round_floor_s = 0;
}

// Ethernet: IEEE 802.3 rates; InfiniBand: IBTA data rates (FDR 54.5, EDR 100, HDR 200, NDR 400
// Gb/s after 64b/66b); PCIe x16: PCI-SIG, 128b/130b; NVLink per GPU and direction: P100 4 x 20,
// V100 6 x 25, A100 12 x 25, H100 18 x 25 GB/s (NVIDIA architecture whitepapers); the RTX 3090
// bridge 56.25 GB/s a direction (GA102 whitepaper).
BytesPerSecond line_rate_Bps(const std::string& kind) {
  static const std::vector<std::pair<std::string, double>> rates = {
      {"1gbe", 0.125e9},  {"10gbe", 1.25e9},     {"25gbe", 3.125e9},   {"40gbe", 5e9},
      {"100gbe", 12.5e9}, {"100gbe-tcp", 12.5e9}, {"200gbe", 25e9},    {"400gbe", 50e9},
      {"ib-fdr", 6.8125e9}, {"ib-edr", 12.5e9},  {"ib-hdr", 25e9},      {"ib-ndr", 50e9},
      {"pcie3", 15.75e9}, {"pcie4", 31.5e9},     {"pcie5", 63e9},       {"nvlink1", 80e9},
      {"nvlink2", 150e9}, {"nvlink3", 300e9},    {"nvlink4", 450e9},    {"nvlink-bridge", 56.25e9}};
  for (const auto& [name, rate] : rates)
    if (name == kind) return rate;
  return 0;
}

namespace {
const LinkKind& intra_kind(const char* name) { return find_link_kind(name, "", LinkPlace::Intra); }
const LinkKind& inter_kind(const char* name) { return find_link_kind(name, "", LinkPlace::Inter); }
}  // namespace

namespace {
// A built-in platform: what its source gives; every other field at its default.
ClusterDescription builtin(const char* name, const char* device, int max_nodes, int gpus, const char* intra,
                           const char* inter, const char* note, int nics = 1) {
  ClusterDescription c;
  c.name = name;
  c.device = device;
  c.max_nodes = max_nodes;
  c.gpus_per_node = gpus;
  c.intra = intra_kind(intra);
  c.inter = inter_kind(inter);
  c.note = note;
  c.nics = nics;
  return c;
}

// A built-in cluster on an EC2 instance whose NCCL runs over EFA through aws-ofi-nccl
// (src/platform-aws.c): the internode latency it reports to NCCL, 75 us on p4d, p4de and p5 and
// 150 us on other EFA instances ("for historical reasons"; its platform table at a21f4dfd), and
// whether it sets NCCL_PROTO=simple (p4d, p4de and p3dn: force_proto_simple in the table at
// 008a28b4; later, wherever the EFA endpoint lacks in-order 128-byte delivery, p5 with RDMA
// writes exempt).
ClusterDescription on_efa(ClusterDescription c, double latency_us, bool simple_only) {
  c.nccl_net_latency_s = latency_us * 1e-6;
  c.nccl_net_ll = !simple_only;
  return c;
}

// A built-in cluster on EC2 instances whose TCP networking is AWS's ENA: NCCL's socket transport
// detects it (2 threads of 8 sockets a connection), and a flow carries at most 10 Gb/s inside a
// cluster placement group (AWS EC2 user guide, "Amazon EC2 instance network bandwidth": "a single-flow
// is considered a unique 5-tuple TCP or UDP flow"; 5 Gb/s outside one).
ClusterDescription on_ena(ClusterDescription c) {
  c.socket_nic = SocketNic::AwsEna;
  c.tcp_flow_Bps = 10e9 / 8;
  return c;
}

// The same on a host CPU whose sockets each hold `gpus_per_socket` of the node's GPUs.
ClusterDescription on_cpu(ClusterDescription c, const char* cpu, int gpus_per_socket) {
  c.cpu = cpu;
  c.gpus_per_socket = gpus_per_socket;
  return c;
}
}  // namespace

const std::vector<ClusterDescription>& builtin_clusters() {
  static const std::vector<ClusterDescription> clusters = {
      builtin("tupi", "rtx4090", 6, 1, "pcie4", "1gbe",
              "UFRGS PCAD Tupi: nodes with one RTX 4090 (i9-14900KF), commodity 1 GbE to one switch; "
              "node count assumed"),
      builtin("poti", "rtx4070", 6, 1, "pcie4", "1gbe",
              "UFRGS PCAD Poti: nodes with one RTX 4070 (i7-14700KF), commodity 1 GbE to one switch; "
              "node count assumed"),
      // NVIDIA DGX-1 datasheets (P100 and V100): 8 GPUs in an NVLink hybrid cube mesh, "4X IB EDR"
      // (four 100 Gb/s InfiniBand ports) for the cluster network.
      builtin("dgx1", "v100", 0, 8, "nvlink2", "ib-edr",
              "DGX-1 V100: 8 GPUs joined by NVLink 2, 4 EDR InfiniBand 100 Gb/s ports (rails) aggregated into the "
              "node's uplink", 4),
      builtin("dgx1-p100", "p100", 0, 8, "nvlink1", "ib-edr",
              "DGX-1 P100: 8 GPUs joined by NVLink 1, 4 EDR InfiniBand 100 Gb/s ports (rails) aggregated", 4),
      builtin("k80-pcie", "k80", 0, 8, "pcie3", "10gbe",
              "Cloud servers with 4 K80 boards (8 dies) on PCIe 3, 10 GbE between servers"),
      builtin("cluster4x25g", "v100", 0, 4, "pcie3", "25gbe",
              "Nodes with 4 V100 PCIe GPUs, 25 GbE to one switch"),
      // NVIDIA DGX A100 datasheet: 8 A100 SXM4 40 GB, NVSwitch (600 GB/s GPU-GPU both ways),
      // 8 single-port ConnectX-6 HDR 200 Gb/s compute NICs (one per GPU, "rails").
      builtin("dgx-a100", "a100", 0, 8, "nvlink3", "ib-hdr",
              "DGX A100: 8 A100 SXM4 on NVSwitch (NVLink 3), 8 HDR 200 Gb/s NICs (rails) aggregated into the node's "
              "uplink; HDR switches with SHARP reduce in the network (cluster.network_reduction = sharp: collnet)", 8),
      // NVIDIA DGX-2 datasheet: 16 V100 SXM3 32 GB on 12 NVSwitches (NVLink 2 between every pair),
      // 8 EDR InfiniBand 100 Gb/s ports.
      builtin("dgx2", "v100-32gb", 0, 16, "nvlink2", "ib-edr",
              "DGX-2: 16 V100 32 GB on NVSwitch (NVLink 2), 8 EDR 100 Gb/s NICs (rails) aggregated into the node's uplink", 8),
      // NVIDIA DGX H100 datasheet: 8 H100 SXM5 80 GB, NVLink 4 through NVSwitch (900 GB/s GPU-GPU
      // both ways), 8 ConnectX-7 NDR 400 Gb/s compute ports.
      builtin("dgx-h100", "h100", 0, 8, "nvlink4", "ib-ndr",
              "DGX H100: 8 H100 SXM5 on NVSwitch (NVLink 4), 8 NDR 400 Gb/s NICs (rails) aggregated into the node's "
              "uplink; NVLink SHARP inside a node (nvls) and across nodes with trees between them (nvls_tree); NDR "
              "switches with SHARP reduce in the network (cluster.network_reduction = sharp: collnet)", 8),
      // AWS p3.16xlarge (instance type page): 8 V100 16 GB with NVLink, 25 Gbps networking (TCP, ENA).
      on_ena(builtin("aws-p3-16xlarge", "v100", 0, 8, "nvlink2", "25gbe",
                     "AWS p3.16xlarge: 8 V100 16 GB on NVLink 2 (hybrid cube mesh), 25 Gb/s ENA networking (TCP)")),
      // AWS p4d.24xlarge (instance type page): 8 A100 40 GB on NVSwitch, 400 Gbps EFA (4 x 100 Gb/s).
      on_efa(builtin("aws-p4d-24xlarge", "a100", 0, 8, "nvlink3", "100gbe",
                     "AWS p4d.24xlarge: 8 A100 40 GB on NVSwitch (NVLink 3), 4 x 100 Gb/s EFA (RDMA, SRD) aggregated; "
                     "aws-ofi-nccl reports 75 us to NCCL and sets NCCL_PROTO=simple", 4),
             75, true),
      // AWS p3dn.24xlarge (instance type page): 8 V100 32 GB with NVLink, 100 Gbps networking with EFA.
      on_efa(builtin("aws-p3dn-24xlarge", "v100-32gb", 0, 8, "nvlink2", "100gbe",
                     "AWS p3dn.24xlarge: 8 V100 32 GB on NVLink 2 (hybrid cube mesh), 100 Gb/s EFA; aws-ofi-nccl "
                     "reports 150 us to NCCL and sets NCCL_PROTO=simple"),
             150, true),
      // AWS p5.48xlarge (instance type page): 8 H100 80 GB on NVSwitch, 3200 Gbps EFA (v2): 400 Gb/s
      // a GPU, taken as one 400 Gb/s rail a GPU (the 400gbe kind's RDMA efficiency).
      on_efa(builtin("aws-p5-48xlarge", "h100", 0, 8, "nvlink4", "400gbe",
                     "AWS p5.48xlarge: 8 H100 80 GB on NVSwitch (NVLink 4), 3200 Gb/s EFA: 400 Gb/s a GPU (rails) "
                     "aggregated into the node's uplink; aws-ofi-nccl reports 75 us to NCCL", 8),
             75, false),
      // AWS g4dn.metal (instance type page): 8 T4 on PCIe 3, 96 vCPUs of 2nd gen Xeon Scalable
      // (Cascade Lake, 24 cores a socket: two sockets), 100 Gbps ENA networking (TCP). The GPUs
      // are taken as four a socket on root ports (the page does not say).
      on_ena(on_cpu(builtin("aws-g4dn-metal", "t4", 0, 8, "pcie3", "100gbe-tcp",
                            "AWS g4dn.metal: 8 T4 on PCIe 3 over two Cascade Lake sockets (4 each assumed: the ring "
                            "crosses UPI, NCCL's 10 GB/s), 100 Gb/s ENA (TCP)"),
                    "cascadelake", 4)),
      // Azure's GPU sizes, from Microsoft's pages (MicrosoftDocs/azure-docs, articles/virtual-machines):
      // ncv2-series.md and ncv3-series.md: 4 P100 or 4 V100 cards (PCIe 3), Xeon E5-2690 v4
      // (Broadwell; how the cards hang off its two sockets is not stated: all on one taken), RDMA
      // on the r sizes; sizes-hpc.md: their InfiniBand runs FDR ("FDR for ... other RDMA-capable
      // N-series VMs"), NDv2's EDR. ndv2-series.md: 8 V100 32 GB NVLink-connected, 100 Gb/s EDR
      // InfiniBand. nda100-v4-series.md and ndm-a100-v4-series.md: 8 A100 40 or 80 GB on NVLink 3.0,
      // a 200 Gb/s HDR InfiniBand connection per GPU. nd-h100-v5-series.md: 8 H100 80 GB on NVLink
      // 4.0, a 400 Gb/s NDR InfiniBand connection per GPU.
      on_cpu(builtin("azure-nc24rs-v2", "p100-pcie", 0, 4, "pcie3", "ib-fdr",
                     "Azure NC24rs_v2: 4 P100 PCIe on PCIe 3, Broadwell host, FDR InfiniBand (RDMA)"),
             "broadwell", 0),
      on_cpu(builtin("azure-nc24rs-v3", "v100-pcie", 0, 4, "pcie3", "ib-fdr",
                     "Azure NC24rs_v3: 4 V100 PCIe on PCIe 3, Broadwell host, FDR InfiniBand (RDMA)"),
             "broadwell", 0),
      builtin("azure-nd40rs-v2", "v100-32gb", 0, 8, "nvlink2", "ib-edr",
              "Azure ND40rs_v2: 8 V100 32 GB on NVLink 2, one EDR InfiniBand 100 Gb/s port"),
      builtin("azure-nd96asr-v4", "a100", 0, 8, "nvlink3", "ib-hdr",
              "Azure ND96asr_v4 (ND A100 v4): 8 A100 40 GB on NVSwitch (NVLink 3), a HDR InfiniBand 200 Gb/s port per "
              "GPU (rails) aggregated into the node's uplink", 8),
      builtin("azure-nd96amsr-a100-v4", "a100-80gb", 0, 8, "nvlink3", "ib-hdr",
              "Azure ND96amsr_A100_v4 (NDm A100 v4): 8 A100 80 GB on NVSwitch (NVLink 3), a HDR InfiniBand 200 Gb/s "
              "port per GPU (rails) aggregated into the node's uplink", 8),
      builtin("azure-nd96isr-h100-v5", "h100", 0, 8, "nvlink4", "ib-ndr",
              "Azure ND96isr_H100_v5 (ND H100 v5): 8 H100 80 GB on NVSwitch (NVLink 4), a NDR InfiniBand 400 Gb/s port "
              "per GPU (rails) aggregated into the node's uplink", 8),
      // ND H200 v5: 8 H200 141 GB, Xeon Platinum 8480C (Azure/AI-benchmarking-guide,
      // Azure_Results/ND_H200_v5_results.md), NVLink 4 and a 400 Gb/s NDR port a GPU as ND H100 v5.
      builtin("azure-nd96isr-h200-v5", "h200", 0, 8, "nvlink4", "ib-ndr",
              "Azure ND96isr_H200_v5 (ND H200 v5): 8 H200 141 GB on NVSwitch (NVLink 4), a NDR InfiniBand 400 Gb/s "
              "port per GPU (rails) aggregated into the node's uplink", 8),
      // A 4-GPU PCIe 4.0 workstation (e.g. 4 RTX 3090 on x16 slots, no NVLink bridge): one node.
      builtin("workstation-4x3090", "rtx3090", 1, 4, "pcie4", "10gbe",
              "Workstation with 4 RTX 3090 on PCIe 4.0 x16, no NVLink bridges; one node"),
  };
  return clusters;
}

const ClusterDescription& find_cluster(const std::string& name, const std::string& key) {
  return find_by_name(builtin_clusters(), name, key, "platform");
}

}  // namespace system_layer
}  // namespace ddlsim
