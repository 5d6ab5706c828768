#include "system/system.hpp"

namespace ddlsim {

CommTopology comm_topology(const System& sys, int nodes, int gpus_per_node, int ps_servers) {
  CommTopology t;
  t.nodes = nodes;
  t.gpus_per_node = gpus_per_node;
  t.intra = sys.cluster.intra_route();
  t.inter = sys.cluster.inter_route();
  t.ps_servers = ps_servers;
  return t;
}

}  // namespace ddlsim
