// System input: the cluster. A two-level description (nodes of G GPUs; an intra-node link class
// between GPU and node, an inter-node link class between node and the one switch), built in by
// name or generated. Every GPU is a host with a private link to its node's router; each node has
// one uplink to the switch (its NICs, aggregated, that all of its GPUs share).
#pragma once
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "spec/comm.hpp"
#include "system/socket_transport.hpp"

namespace ddlsim {
inline namespace system_layer {

// One kind of link, as an effective (achievable) figure per direction, not the line rate.
struct LinkKind {
  std::string name;
  BytesPerSecond bw_Bps = 0;
  Seconds latency_s = 0;  // one hop
  std::string note;       // where the figure comes from
  double exchange_factor = 1;  // bandwidth kept per direction when two ranks swap data (netfit)
  double duplex_factor = 1;    // ... when a rank sends to one peer and receives from another (netfit)
};

// Size limits of a cluster, shared by scenario files and `ddlsim platform generate`.
constexpr int kMaxNodes = 65536;
constexpr int kMaxGpusPerNode = 64;
constexpr int kMaxRanks = 1 << 20;
// The SimGrid backend runs one actor per rank (two at full fidelity): 65,536 ranks simulate in
// about 15 s at fast fidelity here; beyond, the analytic backend. Fast fidelity on a built-in
// cluster whose plans run on a two-node slice (simgrid/slice.hpp) takes up to kMaxRanks.
constexpr int kMaxSimGridRanks = 1 << 16;

const std::vector<LinkKind>& link_kinds();
// Inside a node (GPU to node: pcie*, nvlink*) or between nodes (Ethernet, InfiniBand).
enum class LinkPlace { Intra, Inter };
// Throws InputError naming `key` for an unknown name or a kind of the other place.
const LinkKind& find_link_kind(const std::string& name, const std::string& key, LinkPlace place);

// A host CPU family as NCCL's topology model knows it (NVIDIA/nccl src/graph/topo.h, topo.cc
// ncclTopoGetInterCpuBw): the bandwidth NCCL's ring search assumes one direction of the link
// between two sockets carries, and whether its PCIe root complex splits GPU peer-to-peer traffic
// into 64-byte packets (Intel: the traffic takes 6/5 of the PCIe bandwidth, INTEL_P2P_OVERHEAD).
struct CpuKind {
  std::string name;
  BytesPerSecond socket_link_Bps = 0;  // 0: a one-socket CPU
  bool intel_root_complex = false;
  std::string note;
};
const std::vector<CpuKind>& cpu_kinds();
// Throws InputError naming `key` for an unknown name.
const CpuKind& find_cpu_kind(const std::string& name, const std::string& key);

// The signalling (line) rate per direction of a link kind, bytes/s, from its standard or
// datasheet: what no measurement can exceed. 0 for a name without one (a platform file's links).
BytesPerSecond line_rate_Bps(const std::string& kind);

struct ClusterDescription {
  std::string name;
  std::string device;      // the GPU model of every rank
  int max_nodes = 0;       // hosts the real cluster has (0: unlimited, generated)
  int gpus_per_node = 1;
  LinkKind intra;          // GPU <-> node router (PCIe, NVLink)
  LinkKind inter;          // node <-> switch (Ethernet, InfiniBand)
  std::string note;        // assumptions, shown by `ddlsim platform show`
  std::string xml_path;    // SimGrid platform file it was read from ("" = built in / generated)
  int nics = 1;            // inter-node NICs per node ("rails"), aggregated into the node's uplink
                           // (NCCL spreads its rings' channels over them): uplink = rails x inter,
                           // of which a job drives at most one a GPU it uses (rails_used)
  // A platform file's netfit factors per library that measured them (exchange, duplex), and the
  // library its plain ddlsim.*_factor properties came from ("" when not recorded); see
  // use_library_factors.
  std::map<std::string, std::pair<double, double>> library_factors;
  // A fitted file's spread of measured / fitted exchange time (ddlsim.time_p10 and _p90, written by
  // `ddlsim netfit` from its ring rows' repetitions), for factors_library's exchanges; 0: none.
  double time_p10 = 0, time_p90 = 0;
  std::string factors_library;
  // A platform file's host speeds, flop/s: per node (netzone, ordered by first host) its hosts in
  // natural order, as the SimGrid backend places ranks. Empty for built-in clusters.
  std::vector<std::vector<double>> node_host_speeds;
  // A platform file's software overhead per round of a collective (ddlsim.step_overhead_us, written
  // by `ddlsim netfit`), seconds; both routes carry it (Route::step_overhead_s). 0 for built-ins.
  Seconds step_overhead_s = 0;
  // The communication library's own least time per round on each route (its synchronisation, as
  // its cost model counts it: NCCL's per-step latencies, see use_library_factors); a route's
  // software overhead per round is raised so that it pays at least this. 0: none.
  Seconds intra_round_floor_s = 0;
  Seconds inter_round_floor_s = 0;
  // Inside a PCIe node (docs/design.md "CPU sockets and PCIe switches"): the host CPU family
  // (cpu_kinds(); "" = not described, GPU routes are the intra link's alone), the GPUs attached to
  // each socket (0 = all on one; local ranks fill socket 0 first) and the GPUs behind one PCIe
  // switch (1 = each GPU on its own root port). NVLink nodes ignore them.
  std::string cpu;
  int gpus_per_socket = 0;
  int gpus_per_switch = 1;
  // The GPUs may use CUDA peer-to-peer over PCIe (the device's own: not GeForce RTX 30/40/50;
  // cluster.peer_to_peer). Without it NCCL routes every hop between a node's GPUs through its CPU
  // (host memory: NCCL's SHM transport), so the GPUs behind one PCIe switch share its uplink.
  bool peer_to_peer = true;
  // The InfiniBand switches between the nodes reduce (SHARP, Mellanox/NVIDIA Quantum switches):
  // NCCL's CollNet runs where the SHARP plugin is loaded (cluster.network_reduction = sharp).
  bool network_reduction = false;
  // What NCCL's network plugin tells NCCL (ncclNetProperties, cluster.nccl_net_latency_us and
  // cluster.nccl_net_protocols): the latency it reports, which NCCL's model adds to every network
  // step when it picks an algorithm and protocol, twice with Simple (its flush: src/graph/tuning.cc,
  // graphs[a]->latencyInter); NCCL's own IB and socket transports report 0 (src/transport/net_ib/
  // init.cc, net_socket.cc).
  Seconds nccl_net_latency_s = 0;
  // A network plugin's per-message rendezvous, as measured, not reported (cluster.net_eager_kib,
  // cluster.net_rendezvous_us): NCCL's pipelined steps between nodes of more than net_eager_bytes
  // (a step's bytes over all its channels) hold the link net_rendezvous_s longer; 0: none. No
  // cited value: `fit` finds them from nccl-tests logs.
  Bytes net_eager_bytes = 0;
  Seconds net_rendezvous_s = 0;
  // The network carries NCCL's LL and LL128 protocols. false: the plugin sets NCCL_PROTO=simple
  // for the whole process, as aws-ofi-nccl does where EFA cannot deliver 128-byte stores in order.
  bool nccl_net_ll = true;
  // The NIC as NCCL's socket transport tells it apart (its threads and sockets by default:
  // system/socket_transport.hpp), and the most one TCP flow carries on the network (a cloud's
  // per-flow limit; 0: none). cluster.socket_nic, cluster.tcp_flow_GBps.
  SocketNic socket_nic = SocketNic::Generic;
  BytesPerSecond tcp_flow_Bps = 0;
  // A socket transport carries the traffic between nodes (NCCL, gloo or MPI over a TCP link kind on
  // a built-in or generated cluster; set by the scenario, resolve.cpp: a platform file's links are
  // taken as they are), with these threads a connection and one thread's TCP rate
  // (comm.nccl_socket_threads and _socks_per_thread for NCCL, cluster.tcp_thread_GBps).
  bool socket_transport = false;
  SocketThreads socket_threads;
  BytesPerSecond tcp_thread_Bps = kTcpThread_Bps;
  // Inside a node, the library exchanges through host memory at this rate a rank per direction
  // (MPI's shared memory, gloo's loopback; host_exchange_Bps), not over the GPUs' links: the routes
  // between two GPUs of a node carry at most it (set by the scenario, resolve.cpp); 0: no bound.
  BytesPerSecond host_exchange_Bps = 0;

  // The bandwidth of a ring through the node's GPUs, per direction: the intra link's, bounded as
  // NCCL's topology search bounds it where the ring crosses the CPU (the root complex's peer-to-
  // peer overhead, the socket link). Every GPU's link (analytic routes, SimGrid) carries it.
  BytesPerSecond gpu_path_Bps() const;
  // What bounds gpu_path_Bps, in words ("" when nothing does).
  std::string gpu_path_note() const;
  // Throws InputError naming `key` where the GPUs span sockets of a one-socket CPU.
  void check_node_topology(const std::string& key) const;
  // GPU to GPU inside a node: two intra hops, at most host_exchange_Bps where that is set.
  Route intra_route() const;
  // GPU to GPU across nodes: intra, uplink, uplink, intra; limited by the slowest hop.
  Route inter_route() const;
  // The same while all of a node's GPUs send at once (one per rail): each gets uplink / G.
  Route rail_route() const;
  // What the library's own transport lets one GPU move across nodes per direction (a socket
  // transport: socket_transport_Bps); 0: nothing beyond the links. inter_route and rail_route carry at
  // most this: transport_bound(links).
  BytesPerSecond transport_Bps() const;
  BytesPerSecond transport_bound(BytesPerSecond links_Bps) const;
  // The rails a node's used GPUs drive: one NIC a GPU at most. On rail-optimised nodes (DGX A100
  // and H100: one compute NIC beside each GPU on its PCIe switch) NCCL's topology search gives each
  // GPU's channels the NIC nearest to it (src/graph/search.cc, by PCI distance), and a GPU's own
  // PCIe x16 link carries about one NIC's rate, so a job using 2 GPUs of a node reaches 2 rails,
  // not all of them. (NCCL's PXN routes through the NVLink of a peer GPU only where that GPU is in
  // the job too.)
  int rails_used() const { return std::max(1, std::min(nics, gpus_per_node)); }
  BytesPerSecond uplink_Bps() const { return rails_used() * inter.bw_Bps; }
  // Whether the GPUs' switch reduces in the network (NVLink SHARP, for NCCL's nvls): the NVSwitch
  // of NVLink 4 (HGX/DGX H100 and later) has it; earlier NVSwitches, NVLink without a switch and
  // PCIe do not.
  bool switch_reduction() const { return intra.name == "nvlink4" && nvswitch(); }
  // Whether the node's GPUs share an NVSwitch (NCCL runs CollNet Direct only there, and NVLink
  // SHARP): as cluster.nvswitch says, else NVLink 3 and 4 nodes (HGX 8-GPU boards) and NVLink 2
  // nodes of more than 8 GPUs (DGX-2; 8 V100 are DGX-1's hybrid cube mesh).
  bool nvswitch() const;
  // cluster.nvswitch: -1 auto (the link kind's, above), 0 none (GPUs joined directly: 4-GPU HGX
  // boards, GH200 nodes), 1 one.
  int nvswitch_set = -1;
  // Whether the GPUs of a node talk over NVLink: an nvlink kind (a platform file's route, whose
  // kind is unknown: at nccl_tuning::kNvlinkMin_Bps and more).
  bool intra_nvlink() const;
};

// The inter-node factors for a scenario communicating with `library`: its own when the platform
// file has them (ddlsim.exchange_factor.LIB); the file's plain ones when they were measured with
// that library or with an unrecorded one; else 1 (a factor is a library's protocol: Open MPI's
// two-rank exchange at half rate says nothing of gloo's). Built-in platforms keep theirs. The
// software overhead per round (step_overhead_s) is kept only for the library that measured it (or
// an unrecorded one), else 0. With NCCL and no measured overhead, each route's rounds last at
// least NCCL's own per-step latency (spec/comm.hpp nccl_tuning: NVLink or PCI inside a node, the
// network between nodes) unless `network_latency_only` (comm.round_latency = network).
void use_library_factors(ClusterDescription& c, const std::string& library, bool network_latency_only = false);


const std::vector<ClusterDescription>& builtin_clusters();
// Throws InputError naming `key` for an unknown name.
const ClusterDescription& find_cluster(const std::string& name, const std::string& key);

}  // namespace system_layer
}  // namespace ddlsim
