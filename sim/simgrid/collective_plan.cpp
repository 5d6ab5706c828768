#include "simgrid/collective_plan.hpp"

namespace ddlsim {

namespace {
int floor_pow2(int p) {
  int q = 1;
  while (2 * q <= p) q *= 2;
  return q;
}
int ceil_log2(int p) {
  int l = 0;
  while ((1 << l) < p) ++l;
  return l;
}

// The factor of a ring step on p ranks: two ranks send to each other, more send and receive at once.
double ring_factor(int p, const Layout& l) { return p == 2 ? l.exchange_factor : l.duplex_factor; }

std::vector<Round> ring_plan(int p, Bytes n, const Layout& l) {
  if (p <= 1) return {};
  return {{RoundKind::RingStep, 0, n / p / ring_factor(p, l), 2 * (p - 1)}};
}

std::vector<Round> rhd_plan(int p, Bytes n, const Layout& l) {
  std::vector<Round> plan;
  const int q = floor_pow2(p);
  if (q != p) plan.push_back({RoundKind::FoldIn, 0, n, 1});
  Bytes size = n;
  std::vector<Round> halving;
  for (int mask = q / 2; mask >= 1; mask /= 2) {
    size /= 2;
    halving.push_back({RoundKind::XorExchange, mask, size / l.exchange_factor, 1});
  }
  plan.insert(plan.end(), halving.begin(), halving.end());
  plan.insert(plan.end(), halving.rbegin(), halving.rend());
  if (q != p) plan.push_back({RoundKind::FoldOut, 0, n, 1});
  return plan;
}

std::vector<Round> tree_plan(int p, Bytes n, RoundKind up, RoundKind down) {
  std::vector<Round> plan;
  const int levels = ceil_log2(p);
  for (int k = 0; k < levels; ++k) plan.push_back({up, k, n, 1});
  for (int k = levels - 1; k >= 0; --k) plan.push_back({down, k, n, 1});
  return plan;
}

std::vector<Round> hierarchical_plan(const Layout& l, Bytes n) {
  const int g = l.gpus_per_node, nodes = l.ranks / g;
  std::vector<Round> plan = tree_plan(g, n, RoundKind::NodeTreeUp, RoundKind::NodeTreeDown);
  const auto mid = plan.begin() + ceil_log2(g);
  if (nodes > 1)
    plan.insert(mid, {RoundKind::LeaderRingStep, 0, n / nodes / ring_factor(nodes, l), 2 * (nodes - 1)});
  return plan;
}

// Binomial tree over positions 0..size-1 (position = index - base).
void binomial(RoundOps& ops, int pos, int size, int k, bool up, int base) {
  const int d = 1 << k;
  const bool sender_up = pos % (2 * d) == d;
  const bool receiver_up = pos % (2 * d) == 0 && pos + d < size;
  if (up) {
    if (sender_up) ops.sends.push_back({base + pos - d, 0});
    if (receiver_up) ops.recvs.push_back(base + pos + d);
  } else {
    if (receiver_up) ops.sends.push_back({base + pos + d, 0});
    if (sender_up) ops.recvs.push_back(base + pos - d);
  }
}
}  // namespace

int Layout::server_participant(int j) const {
  return spare_server_hosts ? ranks + j : int((long long)j * ranks / ps_servers);
}

std::vector<Round> collective_plan(Algorithm a, const Layout& l, Bytes n) {
  const int p = l.ranks;
  if (p <= 1 || n <= 0) return {};
  switch (a) {
    case Algorithm::Ring: return ring_plan(p, n, l);
    case Algorithm::HalvingDoubling: return rhd_plan(p, n, l);
    case Algorithm::Tree: return tree_plan(p, n, RoundKind::TreeUp, RoundKind::TreeDown);
    case Algorithm::Hierarchical: return hierarchical_plan(l, n);
    case Algorithm::ParameterServer:
      return {{RoundKind::PsPush, 0, n / l.ps_servers, 1}, {RoundKind::PsPull, 0, n / l.ps_servers, 1}};
  }
  return {};
}

RoundOps round_ops(const Round& r, const Layout& l, int me) {
  RoundOps ops;
  const int p = l.ranks, g = l.gpus_per_node;
  const bool rank = me < p;
  switch (r.kind) {
    case RoundKind::RingStep:
      if (rank) {
        ops.sends.push_back({(me + 1) % p, 0});
        ops.recvs.push_back((me + p - 1) % p);
      }
      break;
    case RoundKind::XorExchange:
      if (me < floor_pow2(p)) {
        ops.sends.push_back({me ^ r.param, 0});
        ops.recvs.push_back(me ^ r.param);
      }
      break;
    case RoundKind::FoldIn:
    case RoundKind::FoldOut: {
      const int q = floor_pow2(p);
      const bool extra = rank && me >= q, partner = me < p - q;
      const bool in = r.kind == RoundKind::FoldIn;
      if (extra) (in ? ops.sends.push_back({me - q, 0}) : ops.recvs.push_back(me - q));
      if (partner) (in ? ops.recvs.push_back(me + q) : ops.sends.push_back({me + q, 0}));
      break;
    }
    case RoundKind::TreeUp:
    case RoundKind::TreeDown:
      if (rank) binomial(ops, me, p, r.param, r.kind == RoundKind::TreeUp, 0);
      break;
    case RoundKind::NodeTreeUp:
    case RoundKind::NodeTreeDown:
      if (rank) binomial(ops, me % g, g, r.param, r.kind == RoundKind::NodeTreeUp, me - me % g);
      break;
    case RoundKind::LeaderRingStep:
      if (rank && me % g == 0) {
        const int nodes = p / g, node = me / g;
        ops.sends.push_back({((node + 1) % nodes) * g, 0});
        ops.recvs.push_back(((node + nodes - 1) % nodes) * g);
      }
      break;
    case RoundKind::PsPush:
    case RoundKind::PsPull: {
      const bool push = r.kind == RoundKind::PsPush;
      for (int j = 0; j < l.ps_servers; ++j) {
        const int s = l.server_participant(j);
        if (rank && s != me) (push ? ops.sends.push_back({s, 0}) : ops.recvs.push_back(s));
        if (s == me)
          for (int w = 0; w < p; ++w)
            if (w != me) (push ? ops.recvs.push_back(w) : ops.sends.push_back({w, 0}));
      }
      break;
    }
  }
  for (auto& t : ops.sends) t.bytes = r.bytes;
  return ops;
}

}  // namespace ddlsim
