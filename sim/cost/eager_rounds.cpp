#include "cost/eager_rounds.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

namespace ddlsim {
inline namespace cost_layer {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Rounds whose messages all take the flat route, one message a rank and direction at most.
bool flat_one_to_one(RoundKind k) {
  switch (k) {
    case RoundKind::RingStep:
    case RoundKind::XorExchange:
    case RoundKind::FoldIn:
    case RoundKind::FoldOut:
    case RoundKind::TreeUp:
    case RoundKind::TreeDown:
    case RoundKind::PairExchange:
    case RoundKind::PairToEven:
    case RoundKind::PairToOdd:
    case RoundKind::VirtualXorEven:
    case RoundKind::VirtualXorOdd: return true;
    default: return false;
  }
}

struct Message {
  int src = 0, dst = 0;
  Bytes left = 0;
  bool eager = false;
  Seconds sent = kInf, posted = kInf;  // when its sender and its receiver posted it
  Seconds moves = kInf;                // when its bytes start to move: its start + the latency
  Seconds done = kInf;
  double rate = 0;  // bytes per second while it moves
};

struct RankState {
  std::size_t round = 0;  // the round it is in (repeats unrolled)
  Seconds round_start = 0, post = 0;
  bool posted = false;
};

// The message ids each rank takes part in, round by round (repeats unrolled).
struct Traffic {
  std::vector<const Round*> rounds;
  std::vector<std::vector<std::vector<int>>> mine;  // [round][rank]
  std::vector<Message> messages;
};

Traffic traffic_of(const std::vector<Round>& plan, const Layout& l) {
  Traffic t;
  for (const Round& r : plan)
    for (int k = 0; k < r.repeat; ++k) t.rounds.push_back(&r);
  t.mine.assign(t.rounds.size(), std::vector<std::vector<int>>(l.ranks));
  for (std::size_t k = 0; k < t.rounds.size(); ++k) {
    std::map<std::pair<int, int>, int> id;  // (sender, receiver) -> message
    std::vector<RoundOps> ops;
    for (int me = 0; me < l.ranks; ++me) {
      ops.push_back(round_ops(*t.rounds[k], l, me));
      for (const Transfer& s : ops.back().sends) {
        id[{me, s.peer}] = int(t.messages.size());
        t.mine[k][me].push_back(int(t.messages.size()));
        t.messages.push_back({me, s.peer, s.bytes, s.bytes <= l.eager_limit_bytes});
      }
    }
    for (int me = 0; me < l.ranks; ++me)
      for (int from : ops[me].recvs) {
        const auto it = id.find({from, me});
        if (it == id.end()) throw std::logic_error("eager rounds: a receive without its send");
        t.mine[k][me].push_back(it->second);
      }
  }
  return t;
}

// Max-min fair rates of the moving messages: each rank's link carries bw each way; the link that
// gives the smallest equal share fixes its messages' rates, and so on (SimGrid's LMM solution with
// equal weights).
void share_links(std::vector<Message>& m, const std::vector<int>& moving, int ranks, BytesPerSecond bw) {
  std::vector<double> cap(2 * ranks, bw);  // [0, ranks): uplinks, [ranks, 2 ranks): downlinks
  std::vector<int> users(2 * ranks, 0);
  std::vector<int> open = moving;
  for (int i : open) ++users[m[i].src], ++users[ranks + m[i].dst];
  while (!open.empty()) {
    int link = -1;
    for (int k = 0; k < 2 * ranks; ++k)
      if (users[k] > 0 && (link < 0 || cap[k] / users[k] < cap[link] / users[link])) link = k;
    const double share = cap[link] / users[link];
    std::vector<int> rest;
    for (int i : open) {
      const int up = m[i].src, down = ranks + m[i].dst;
      if (up != link && down != link) {
        rest.push_back(i);
        continue;
      }
      m[i].rate = share;
      cap[up] -= share, cap[down] -= share;
      --users[up], --users[down];
    }
    open.swap(rest);
  }
}

// Moves every rank that can: into its next round's post, or past a round whose messages are done.
// Returns the ranks that have finished.
int settle(Traffic& t, std::vector<RankState>& st, const Layout& l, Seconds latency, Seconds now) {
  int finished = 0;
  for (bool moved = true; moved;) {
    moved = false, finished = 0;
    for (Message& m : t.messages)
      if (m.done == kInf && m.moves <= now && m.left <= 0) m.done = m.moves, moved = true;
    for (int me = 0; me < l.ranks; ++me) {
      RankState& s = st[me];
      if (s.round == t.rounds.size()) {
        ++finished;
        continue;
      }
      const std::vector<int>& ids = t.mine[s.round][me];
      if (!s.posted) {
        const Round& r = *t.rounds[s.round];
        s.post = s.round_start + (ids.empty() ? 0 : l.step_overhead_s + r.overhead_s);
        if (s.post > now) continue;
        s.posted = moved = true;
        for (int id : ids) {
          Message& m = t.messages[id];
          (m.src == me ? m.sent : m.posted) = s.post;
          const Seconds start = m.eager ? m.sent : std::max(m.sent, m.posted);
          if (start < kInf && m.moves == kInf) m.moves = start + latency;
        }
      }
      Seconds end = s.post;
      for (int id : ids) end = std::max(end, t.messages[id].done);
      if (end > now) continue;
      s.round_start = end, s.posted = false, moved = true;
      ++s.round;
    }
  }
  return finished;
}

}  // namespace

bool eager_sends_matter(const std::vector<Round>& plan, const Layout& l) {
  if (l.eager_limit_bytes <= 0 || plan.empty()) return false;
  bool within = false, idle = false;
  for (const Round& r : plan) {
    if (r.pipelined || !flat_one_to_one(r.kind)) return false;
    within = within || r.bytes <= l.eager_limit_bytes;
    for (int me = 0; me < l.ranks && !idle; ++me) {
      const RoundOps ops = round_ops(r, l, me);
      idle = ops.sends.empty() && ops.recvs.empty();
    }
  }
  return within && idle;
}

Seconds eager_plan_time_s(const std::vector<Round>& plan, const Layout& l, const Route& r) {
  Traffic t = traffic_of(plan, l);
  std::vector<RankState> st(l.ranks);
  Seconds now = 0;
  while (settle(t, st, l, r.latency_s, now) < l.ranks) {
    std::vector<int> moving;
    for (std::size_t i = 0; i < t.messages.size(); ++i)
      if (t.messages[i].moves <= now && t.messages[i].done == kInf) moving.push_back(int(i));
    share_links(t.messages, moving, l.ranks, r.bw_Bps);
    Seconds next = kInf;
    for (const RankState& s : st)
      if (s.round < t.rounds.size() && !s.posted) next = std::min(next, s.post);
    for (const Message& m : t.messages)
      if (m.moves > now) next = std::min(next, m.moves);
    for (int i : moving) next = std::min(next, now + t.messages[i].left / t.messages[i].rate);
    if (!(next < kInf) || next <= now) throw std::logic_error("eager rounds: no rank can move");
    for (int i : moving) {
      Message& m = t.messages[i];
      const Seconds finish = now + m.left / m.rate;
      m.left -= m.rate * (next - now);
      if (finish <= next * (1 + 1e-12)) m.left = 0, m.done = next;
    }
    now = next;
  }
  Seconds end = 0;
  for (const RankState& s : st) end = std::max(end, s.round_start);
  return end;
}

}  // namespace cost_layer
}  // namespace ddlsim
