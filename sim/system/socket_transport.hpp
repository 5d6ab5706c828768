// Socket transports: where the network between nodes is plain TCP (no RDMA), NCCL moves a GPU's
// data across nodes through CPU threads and TCP sockets (src/transport/net_socket.cc), as gloo and
// Open MPI's TCP BTL do a rank's, and those threads, not the wire, bound what one GPU moves
// (docs/model.md, "NCCL over TCP sockets").
#pragma once
#include <string>

#include "core/units.hpp"
#include "spec/comm.hpp"

namespace ddlsim {
inline namespace system_layer {

// One CPU thread's TCP rate per direction while it sends to one peer and receives from another
// at once, as NCCL's proxy thread does in a ring: NVIDIA/nccl issue 209 (GCP, 32 Gb/s, one ring on
// one socket: 1.85 GB/s with NCCL 2.4.2, 2.06 with 2.3.7) and this machine's one thread through a
// veth pair (calibration/tcp_thread_rate.sh, calibration/measured/tcp-one-thread.csv: median
// 1.90 GB/s each way over five runs, 1.75-2.00).
constexpr BytesPerSecond kTcpThread_Bps = 1.9e9;

// NCCL's rings use two channels a NIC: src/graph/connect.cc ncclTopoPostset doubles the channels
// its topology search found ("Having two channels per NIC makes the NIC utilization closer to
// peak": NVIDIA/nccl issue 438). Each channel has its own connection to the next GPU.
constexpr int kNcclChannelsPerNic = 2;

// What NCCL's socket transport picks on a NIC by itself (NCCL_SOCKET_NTHREADS and
// NCCL_NSOCKS_PERTHREAD left unset; ncclNetSocketGetNsockNthread): on AWS's ENA (PCI vendor
// 0x1d0f) 2 helper threads of 8 sockets a connection, on Google's gVNIC (0x1ae0) 4 of 1, on any
// other NIC none: the GPU's proxy thread moves every connection's data itself, one socket each.
struct SocketThreads {
  int threads = 0;           // helper threads a connection (0: the proxy thread alone)
  int socks_per_thread = 1;  // sockets each helper thread drives
  int connections = kNcclChannelsPerNic;  // a GPU's connections to the next node in its ring
};

enum class SocketNic { Generic, AwsEna, GcpGvnic };
SocketThreads nccl_socket_threads(SocketNic nic);
// "generic", "aws-ena", "gcp-gvnic" (cluster.socket_nic).
const char* to_string(SocketNic nic);

// gloo and Open MPI's TCP BTL: one thread moves all of a rank's TCP traffic, on one connection a
// peer. gloo's TCP device runs one epoll loop thread for every pair's I/O (facebookincubator/gloo
// gloo/transport/tcp/loop.h: "a single listening socket on the device instance and I/O for all
// pair instances"); Open MPI progresses its TCP BTL in the calling thread, one connection a peer
// by default (btl_tcp_links = 1, Open MPI r14076; its TCP FAQ, "Can I use multiple TCP
// connections"). Measured here on an unshaped veth pair (calibration/tcp_library_rates.sh,
// calibration/measured/tcp-unshaped-*.csv): both ways at once, 1.89-2.01 GB/s a direction through
// Open MPI and 1.60-1.77 through gloo from 16 to 256 MiB, about the one-thread rate kTcpThread_Bps.
constexpr SocketThreads kOneThreadOnePeer{0, 1, 1};

// The CPU cores a GPU's socket transport keeps busy while it moves data between nodes, which the
// node's data loaders then do not have (input.cpu_cores): NCCL's proxy thread and its helper threads
// (threads a connection, src/transport/net_socket.cc), gloo's loop thread (gloo/transport/tcp/loop.h);
// MPI progresses its TCP BTL in the calling thread, the training process's own: none. A thread that
// moves TCP data at line rate takes most of a core (meta-pytorch/torchcomms PR 3920: one connection's
// thread at 90.6 % of a core on 200 GbE), so each is counted as one whole core for the whole step: an
// upper bound, since the threads idle between exchanges.
int socket_busy_cores(SocketThreads s, Library l);

// The link kinds NCCL reaches over TCP sockets (Ethernet without RDMA: 1/10/25/40 GbE and
// 100gbe-tcp; the 100/200/400 GbE kinds are RoCE).
bool tcp_link_kind(const std::string& kind);

// Inside one node, MPI and gloo exchanging buffers in host memory (host-staged GPU buffers, or CPU
// ranks) go through that memory, not the GPUs' links: Open MPI through its shared-memory BTL, gloo
// through TCP over loopback (it has no shared-memory transport). What one rank moved per direction
// while two ranks of this machine swapped 256 MiB (calibration/tcp_library_rates.sh,
// calibration/measured/one-host-{mpi,gloo}.csv: 7.69 and 2.95 GB/s; 7.1-9.0 and 2.1-3.0 from 16 to
// 256 MiB). Another host's memory and cores give other rates: comm.host_exchange_GBps.
constexpr BytesPerSecond kMpiSharedMemory_Bps = 7.69e9;
constexpr BytesPerSecond kGlooLoopback_Bps = 2.95e9;
// The library's rate above; 0 for a library that does not exchange through host memory.
BytesPerSecond host_exchange_Bps(Library l);

// What one GPU moves across nodes per direction through a socket transport: with helper threads,
// each of its `connections` has `threads` threads of `thread_Bps`, and its threads x
// socks_per_thread sockets carry at most `flow_Bps` each (a cloud's per-flow limit; 0: none);
// without, one thread's `thread_Bps` for every connection, one socket each.
BytesPerSecond socket_transport_Bps(SocketThreads s, BytesPerSecond thread_Bps, BytesPerSecond flow_Bps);

}  // namespace system_layer
}  // namespace ddlsim
