#include "system/socket_transport.hpp"

#include <algorithm>


namespace ddlsim {
inline namespace system_layer {

SocketThreads nccl_socket_threads(SocketNic nic) {
  switch (nic) {
    case SocketNic::AwsEna: return {2, 8, kNcclChannelsPerNic};
    case SocketNic::GcpGvnic: return {4, 1, kNcclChannelsPerNic};
    case SocketNic::Generic: break;
  }
  return {0, 1, kNcclChannelsPerNic};
}

const char* to_string(SocketNic nic) {
  switch (nic) {
    case SocketNic::AwsEna: return "aws-ena";
    case SocketNic::GcpGvnic: return "gcp-gvnic";
    case SocketNic::Generic: break;
  }
  return "generic";
}

BytesPerSecond host_exchange_Bps(Library l) {
  switch (l) {
    case Library::Mpi: return kMpiSharedMemory_Bps;
    case Library::Gloo: return kGlooLoopback_Bps;
    default: return 0;
  }
}

int socket_busy_cores(SocketThreads s, Library l) {
  switch (l) {
    case Library::Nccl: return 1 + s.threads * s.connections;
    case Library::Gloo: return 1;
    default: return 0;
  }
}

bool tcp_link_kind(const std::string& kind) {
  return kind == "1gbe" || kind == "10gbe" || kind == "25gbe" || kind == "40gbe" || kind == "100gbe-tcp";
}

BytesPerSecond socket_transport_Bps(SocketThreads s, BytesPerSecond thread_Bps, BytesPerSecond flow_Bps) {
  const auto flows = [&](int sockets, BytesPerSecond threads_Bps) {
    return flow_Bps > 0 ? std::min(threads_Bps, sockets * flow_Bps) : threads_Bps;
  };
  if (s.threads <= 0) return flows(s.connections, thread_Bps);
  return s.connections * flows(s.threads * s.socks_per_thread, s.threads * thread_Bps);
}

}  // namespace system_layer
}  // namespace ddlsim
