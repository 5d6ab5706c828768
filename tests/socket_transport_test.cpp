// Socket transports (system/socket_transport.hpp): over a TCP link kind, the CPU threads that move a
// GPU's data across nodes bound it (NCCL's socket transport, gloo, Open MPI's TCP BTL), checked
// against values worked out by hand.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "system/socket_transport.hpp"
#include "test_util.hpp"

namespace {

using namespace ddlsim;
using testutil::run_ddlsim;

TEST(SocketTransport, ThreadsAndSocketsBoundAGpuAsWorkedOutByHand) {
  // The proxy thread alone moves both channels' data: one thread's rate.
  EXPECT_DOUBLE_EQ(socket_transport_Bps({0, 1}, 1.9e9, 0), 1.9e9);
  // ... unless the two channels' sockets (one each) carry less: 2 x 0.5.
  EXPECT_DOUBLE_EQ(socket_transport_Bps({0, 1}, 1.9e9, 0.5e9), 1.0e9);
  // AWS's ENA: 2 channels x min(2 threads x 1.9, 16 sockets x 1.25) = 2 x 3.8.
  EXPECT_DOUBLE_EQ(socket_transport_Bps(nccl_socket_threads(SocketNic::AwsEna), 1.9e9, 1.25e9), 7.6e9);
  // ... outside a placement group (5 Gb/s a flow) still the threads: 16 x 0.625 = 10 > 3.8.
  EXPECT_DOUBLE_EQ(socket_transport_Bps(nccl_socket_threads(SocketNic::AwsEna), 1.9e9, 0.625e9), 7.6e9);
  // Google's gVNIC: 2 channels x 4 threads x 1.9; with a 1 GB/s flow limit 2 x 4 sockets x 1.
  EXPECT_DOUBLE_EQ(socket_transport_Bps(nccl_socket_threads(SocketNic::GcpGvnic), 1.9e9, 0), 15.2e9);
  EXPECT_DOUBLE_EQ(socket_transport_Bps(nccl_socket_threads(SocketNic::GcpGvnic), 1.9e9, 1e9), 8e9);
  // gloo and Open MPI: one thread, one connection a peer: min(1.9, 1 x 1.0).
  EXPECT_DOUBLE_EQ(socket_transport_Bps(kOneThreadOnePeer, 1.9e9, 0), 1.9e9);
  EXPECT_DOUBLE_EQ(socket_transport_Bps(kOneThreadOnePeer, 1.9e9, 1e9), 1e9);
  for (const char* k : {"1gbe", "10gbe", "25gbe", "40gbe", "100gbe-tcp"}) EXPECT_TRUE(tcp_link_kind(k)) << k;
  for (const char* k : {"100gbe", "200gbe", "400gbe", "ib-edr", "ib-ndr", "nvlink4"}) EXPECT_FALSE(tcp_link_kind(k)) << k;
}

double busbw_GBps(const std::string& args) {
  const auto r = run_ddlsim("collective --algorithm ring --sizes 1G --format json " + args);
  EXPECT_EQ(r.code, 0) << args << "\n" << r.out;
  if (r.code != 0) return 0;
  return nlohmann::json::parse(r.out)[0]["busbw_GBps"].get<double>();
}

// Two nodes of one GPU each on 100 Gb/s Ethernet over TCP (11.75 GB/s): a 1 GiB ring allreduce
// runs at the proxy thread's 1.9 GB/s with NCCL's defaults on a generic NIC, in both backends; at
// the link's with enough threads; RoCE and a platform file are not bounded so.
TEST(SocketTransport, NcclOverTcpRunsAtItsThreadsRate) {
  const auto on = [](const std::string& inter, const std::string& library) {
    return "--cluster.platform=cluster4x25g --cluster.gpus_per_node=1 --cluster.nodes=2 --cluster.inter=" + inter +
           " --comm.library=" + library + " ";
  };
  const std::string tcp = on("100gbe-tcp", "nccl");
  EXPECT_NEAR(busbw_GBps(tcp), 1.9, 1e-3);
  EXPECT_NEAR(busbw_GBps(tcp + "--simulation.backend=simgrid"), 1.9, 1e-3);
  EXPECT_NEAR(busbw_GBps(tcp + "--cluster.tcp_thread_GBps=3"), 3.0, 1e-3);
  // 2 channels x 4 threads x 1.9 = 15.2 > the link's 11.75.
  EXPECT_NEAR(busbw_GBps(tcp + "--comm.nccl_socket_threads=4"), 11.75, 0.02);
  // AWS's NIC with 1 GB/s a flow: 2 channels x min(2 x 1.9, 16 x 1) = 7.6.
  EXPECT_NEAR(busbw_GBps(tcp + "--cluster.socket_nic=aws-ena --cluster.tcp_flow_GBps=1"), 7.6, 0.01);
  EXPECT_NEAR(busbw_GBps(tcp + "--cluster.socket_nic=aws-ena --cluster.tcp_flow_GBps=1 --simulation.backend=simgrid"),
              7.6, 0.01);
  // NCCL clamps threads x sockets to 64: 16 threads of at most 4 sockets, 128 flows of 0.05 GB/s.
  EXPECT_NEAR(busbw_GBps(tcp + "--comm.nccl_socket_threads=16 --comm.nccl_socks_per_thread=64 "
                               "--cluster.tcp_flow_GBps=0.05"),
              2 * 64 * 0.05, 0.01);
  EXPECT_NEAR(busbw_GBps(on("100gbe", "nccl")), 11.5, 0.02);  // RoCE: NCCL's IB transport
  EXPECT_GT(busbw_GBps(on("100gbe", "mpi")), 3.0);  // RoCE: MPI's RDMA path, no socket threads
  // A platform file's links are taken as they are (described or fitted for the cluster).
  const std::string xml = testing::TempDir() + "socket_transport_2n.xml";
  const auto gen = run_ddlsim("platform generate --nodes 2 --gpus-per-node 1 --intra pcie3 --inter 100gbe-tcp -o " + xml);
  ASSERT_EQ(gen.code, 0) << gen.out;
  EXPECT_GT(busbw_GBps("--cluster.platform=" + xml + " --cluster.nodes=2 --comm.library=nccl --simulation.backend=simgrid"), 5.0);
}

double time_s(const std::string& args) {
  const auto r = run_ddlsim("collective --algorithm ring --sizes 1G --format json " + args);
  EXPECT_EQ(r.code, 0) << args << "\n" << r.out;
  return r.code == 0 ? nlohmann::json::parse(r.out)[0]["time_s"].get<double>() : 0;
}

// gloo and MPI over TCP: one thread moves a rank's data (measured here through both libraries:
// calibration/measured/tcp-unshaped-*.csv). Two ranks' ring moves S = 1 GiB each way, so slowing
// the thread from 1.9 to 1.0 GB/s adds S (1 / 1.0 - 1 / 1.9) / 1e9 = 0.5086145 s, whatever the
// staging through host memory around it costs; with one connection a peer, a 1 GB/s flow limit is
// the same as a 1 GB/s thread, where NCCL's two channels keep their 1.9.
TEST(SocketTransport, GlooAndMpiOverTcpRunAtOneThreadsRate) {
  const std::string two = "--cluster.platform=cluster4x25g --cluster.gpus_per_node=1 --cluster.nodes=2 "
                          "--cluster.inter=100gbe-tcp ";
  for (const char* lib : {"mpi", "gloo"}) {
    const std::string on = two + "--comm.library=" + lib + " ";
    const double fast = time_s(on), slow = time_s(on + "--cluster.tcp_thread_GBps=1");
    EXPECT_NEAR(slow - fast, 0.5086145, 1e-6) << lib;
    EXPECT_NEAR(time_s(on + "--cluster.tcp_flow_GBps=1"), slow, 1e-9) << lib;
    EXPECT_LT(time_s(on + "--cluster.tcp_thread_GBps=1e6"), fast) << lib;  // the link's 11.75 then
  }
  const std::string mpi = two + "--comm.library=mpi --simulation.backend=simgrid ";
  EXPECT_NEAR(time_s(mpi + "--cluster.tcp_thread_GBps=1") - time_s(mpi), 0.5086145, 1e-6);
  EXPECT_NEAR(time_s(two + "--comm.library=nccl --cluster.tcp_flow_GBps=1"), time_s(two + "--comm.library=nccl"), 1e-12);
}

// Inside a node MPI and gloo swap host-staged buffers through host memory (Open MPI's shared
// memory, gloo's TCP over loopback: calibration/measured/one-host-*.csv), not NVLink: two A100s of
// a DGX ring 1 GiB with S = 1 GiB each way, so the host rate going from 2 to 1 GB/s adds
// S (1/1 - 1/2) / 1e9 = 0.536870912 s in both backends. MPI's default (7.69 GB/s) and gloo's (2.95)
// are far below NVLink; CUDA-aware MPI (no staging) and NCCL keep NVLink.
TEST(SocketTransport, MpiAndGlooInsideANodeGoThroughHostMemory) {
  const std::string node = "--cluster.platform=dgx-a100 --cluster.nodes=1 --cluster.gpus_per_node=2 ";
  for (const char* backend : {"analytic", "simgrid"}) {
    const std::string mpi = node + "--comm.library=mpi --simulation.backend=" + backend + " ";
    EXPECT_NEAR(time_s(mpi + "--comm.host_exchange_GBps=1") - time_s(mpi + "--comm.host_exchange_GBps=2"),
                0.536870912, 1e-6) << backend;
  }
  const double mpi = busbw_GBps(node + "--comm.library=mpi"), gloo = busbw_GBps(node + "--comm.library=gloo");
  EXPECT_LT(mpi, 7.69);
  EXPECT_LT(gloo, 2.95);
  EXPECT_LT(gloo, mpi);
  EXPECT_GT(busbw_GBps(node + "--comm.library=mpi --comm.host_staging=off"), 100);
  EXPECT_GT(busbw_GBps(node + "--comm.library=nccl"), 100);
  // Across nodes of one GPU each there is no route inside a node: the host rate changes nothing.
  const std::string two = "--cluster.platform=dgx-a100 --cluster.nodes=2 --cluster.gpus_per_node=1 --comm.library=mpi ";
  EXPECT_DOUBLE_EQ(time_s(two + "--comm.host_exchange_GBps=0.5"), time_s(two));
}

// More threads, sockets or a faster thread never slow the exchange down.
TEST(SocketTransport, MoreThreadsNeverSlower) {
  const std::string tcp = "--cluster.platform=cluster4x25g --cluster.nodes=3 --cluster.inter=100gbe-tcp "
                          "--comm.library=nccl ";
  double last = 0;
  for (int threads : {0, 1, 2, 4, 8, 16}) {
    const double b = busbw_GBps(tcp + "--comm.nccl_socket_threads=" + std::to_string(threads));
    EXPECT_GE(b, last * (1 - 1e-12)) << threads;
    last = b;
  }
  EXPECT_GE(busbw_GBps(tcp + "--cluster.tcp_thread_GBps=2.5"), busbw_GBps(tcp + "--cluster.tcp_thread_GBps=2"));
}

// `fit` on nccl-tests output of a TCP cluster fits the threads' rate (the link does not bound it):
// output predicted at 3.2 GB/s a thread gives back 3.2, and the overlay carries the key.
TEST(SocketTransport, FitRecoversTheThreadRateFromNcclTestsOutput) {
  const std::string dir = testing::TempDir(), ini = dir + "socket_fit.ini", log = dir + "2n_1g_socket_fit.log",
                    overlay = dir + "socket_fit_overlay.ini";
  std::ofstream(ini) << "[cluster]\nplatform = cluster4x25g\ngpus_per_node = 1\nnodes = 2\ninter = 100gbe-tcp\n"
                        "[comm]\nlibrary = nccl\n";
  const auto gen = run_ddlsim("collective " + ini + " --cluster.tcp_thread_GBps=3.2 -b 1M -e 1G --format nccl -o " + log);
  ASSERT_EQ(gen.code, 0) << gen.out;
  const auto fit = run_ddlsim("fit " + log + " --scenario " + ini + " --op allreduce --format json --overlay-out " + overlay);
  ASSERT_EQ(fit.code, 0) << fit.out;
  bool found = false;
  const nlohmann::json j = nlohmann::json::parse(fit.out);
  for (const auto& p : j["effective"])
    if (p["name"] == "tcp_thread") {
      found = true;
      EXPECT_NEAR(p["after"].get<double>(), 3.2, 1e-3) << fit.out;
    }
  EXPECT_TRUE(found) << fit.out;
  EXPECT_NE(testutil::slurp(overlay).find("tcp_thread_GBps = 3.2"), std::string::npos) << testutil::slurp(overlay);
}

TEST(SocketTransport, BadValuesAreRefusedNamingTheKey) {
  const auto r = run_ddlsim("collective --cluster.socket_nic=mellanox");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("cluster.socket_nic"), std::string::npos) << r.out;
  const auto t = run_ddlsim("collective --comm.nccl_socket_threads=17");
  EXPECT_EQ(t.code, 2) << t.out;
  EXPECT_NE(t.out.find("comm.nccl_socket_threads"), std::string::npos) << t.out;
}

}  // namespace
