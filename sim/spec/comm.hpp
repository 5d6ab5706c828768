// Communication vocabulary shared by every layer: which allreduce algorithm, one rank-to-rank
// route as an effective alpha-beta pair, and where the ranks are (nodes x GPUs per node).
// alpha = route latency per message, B = route bandwidth per direction (full duplex).
#pragma once
#include <string>

#include "core/units.hpp"

namespace ddlsim {

enum class Algorithm { Ring, HalvingDoubling, Tree, Hierarchical, ParameterServer };

Algorithm parse_algorithm(const std::string& text, const std::string& key);
const char* to_string(Algorithm a);

// One rank-to-rank route.
struct Route {
  Seconds latency_s = 0;
  BytesPerSecond bw_Bps = 0;
  // Fraction of bw_Bps each direction keeps while two ranks send to each other at once (a 2-rank
  // ring step, a halving-doubling step). 1 = ideal full duplex; TCP over shaped or busy links
  // measures less (`ddlsim netfit` fits it from netbench's `exchange` rows).
  double exchange_factor = 1;
  // Fraction of bw_Bps each direction keeps while every rank sends to one peer and receives from
  // another at once (a ring step with p >= 3). 1 = ideal; netfit fits it from `shift` rows.
  double duplex_factor = 1;
  BytesPerSecond exchange_bw_Bps() const { return bw_Bps * exchange_factor; }
  BytesPerSecond ring_bw_Bps() const { return bw_Bps * duplex_factor; }
};

// Where the ranks are: nodes x gpus_per_node, with the intra- and inter-node routes.
struct CommTopology {
  int nodes = 1;
  int gpus_per_node = 1;
  Route intra;
  Route inter;
  int ps_servers = 1;

  int ranks() const { return nodes * gpus_per_node; }
  // The route a flat (one-level) algorithm is limited by: inter-node when there are several nodes.
  Route flat_route() const { return nodes > 1 ? inter : intra; }
};

}  // namespace ddlsim
