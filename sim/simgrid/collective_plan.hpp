// A collective as rounds of point-to-point messages, exactly as the closed forms in
// cost/collectives.hpp count them, so the SimGrid backend and the analytic one can agree.
// A participant is a rank (0..ranks-1) or, for the parameter server on a platform with spare
// hosts, a server host (ranks..ranks+servers-1). No SimGrid here: plain data.
#pragma once
#include <vector>

#include "core/units.hpp"
#include "spec/comm.hpp"

namespace ddlsim {

enum class RoundKind {
  RingStep,        // every rank sends to rank+1, receives from rank-1 (ring allreduce)
  XorExchange,     // ranks < q swap with rank ^ param (recursive halving-doubling)
  FoldIn,          // ranks >= q send to rank - q (rhd, p not a power of two)
  FoldOut,         // rank - q sends back to ranks >= q
  TreeUp,          // binomial reduce, distance 2^param
  TreeDown,        // binomial broadcast, distance 2^param
  NodeTreeUp,      // binomial reduce inside each node (hierarchical)
  NodeTreeDown,    // binomial broadcast inside each node
  LeaderRingStep,  // ring among the node leaders (local rank 0)
  PsPush,          // every worker sends bytes to every server
  PsPull,          // every server sends bytes to every worker
};

struct Round {
  RoundKind kind = RoundKind::RingStep;
  int param = 0;
  Bytes bytes = 0;  // per message
  int repeat = 1;   // consecutive identical rounds
};

struct Layout {
  int ranks = 1;
  int gpus_per_node = 1;
  int ps_servers = 1;
  bool spare_server_hosts = false;  // servers on hosts after the ranks; else on ranks
  // Measured bidirectional losses of the flat route (cost/collectives.hpp, `ddlsim netfit`): a
  // message of a round where two ranks send to each other (2-rank ring step, halving-doubling
  // exchange) carries bytes / exchange_factor, one of a ring step with 3 or more ranks
  // bytes / duplex_factor, so the fluid network model shows the same effective bandwidth.
  double exchange_factor = 1;
  double duplex_factor = 1;

  int participants() const { return ranks + (spare_server_hosts ? ps_servers : 0); }
  int server_participant(int j) const;  // where server j runs
};

// The rounds of one exchange of n bytes with algorithm a, in order.
std::vector<Round> collective_plan(Algorithm a, const Layout& l, Bytes n);

struct Transfer {
  int peer = 0;
  Bytes bytes = 0;
};
struct RoundOps {
  std::vector<Transfer> sends;
  std::vector<int> recvs;  // peers, one message each
};

// What participant `me` sends and receives in one round.
RoundOps round_ops(const Round& r, const Layout& l, int me);

}  // namespace ddlsim
