#include "simgrid/fast_fidelity.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "cost/collectives.hpp"

namespace sg4 = simgrid::s4u;

namespace ddlsim {
inline namespace simgrid_layer {

namespace {

using RoundKey = std::tuple<int, int, double, double, double, bool>;
RoundKey key_of(const Round& r) { return {int(r.kind), r.param, r.bytes, r.overhead_s, r.node_overhead_s, r.pipelined}; }

struct RoundTimes {
  std::vector<Seconds> took;              // per round: its duration (barrier to barrier)
  std::vector<std::vector<Seconds>> hop;  // pipelined rounds: per rank, its message's time to arrive
};

RoundTimes fast_round_times(const World& w, const std::vector<Round>& rounds) {
  RoundTimes out{std::vector<Seconds>(rounds.size(), 0),
                 std::vector<std::vector<Seconds>>(rounds.size(), std::vector<Seconds>(w.hosts.size(), 0))};
  auto barrier = sg4::Barrier::create(unsigned(w.hosts.size()));
  for (int me = 0; me < int(w.hosts.size()); ++me)
    sg4::Actor::create("rank" + std::to_string(me), w.hosts[me], [&rounds, &w, me, barrier, &out] {
      for (std::size_t i = 0; i < rounds.size(); ++i) {
        barrier->wait();
        const Seconds start = sg4::Engine::get_clock();
        if (rounds[i].pipelined)
          out.hop[i][me] = ring_step_hop_s(rounds[i], w.layout, me);
        else
          run_round(rounds[i], w.layout, me);
        barrier->wait();
        if (me == 0) out.took[i] = sg4::Engine::get_clock() - start;
      }
    });
  run_engine();
  return out;
}

// A pipelined ring's hop inside a node (inter = false) or out of it, from one lockstep step (the
// slowest sender of each kind of hop): fixed = its overhead and its route's latency, serial the
// rest of the time its message took (its bytes, slowed by whatever shares their links).
RingHop measured_hop(const Round& r, const std::vector<Seconds>& took, const Layout& l, bool inter) {
  RingHop h;
  for (int me = 0; me < l.ranks; ++me)
    if (l.ring_hop_leaves_node(me) == inter && took[me] >= h.total_s()) {
      h.fixed_s = ring_hop_overhead_s(r, l, me) + l.ring_link_latency_s[me];
      h.serial_s = took[me] - h.fixed_s;
    }
  return h;
}

}  // namespace

std::vector<Seconds> fast_bucket_times(const World& w, const Plans& plans) {
  std::map<RoundKey, std::size_t> index;
  std::vector<Round> distinct;
  const auto add = [&](const Round& r) {
    if (index.emplace(key_of(r), distinct.size()).second) distinct.push_back(r);
  };
  for (const auto& plan : plans)
    for (const Round& r : plan)
      if (composed_pipeline(r.kind))
        for (const Round& hop : pipeline_hop_rounds(r, w.layout)) add(hop);
      else
        add(r);
  const RoundTimes m = fast_round_times(w, distinct);
  std::vector<Seconds> out;
  for (const auto& plan : plans) {
    Seconds t = 0;
    for (const Round& r : plan) {
      if (composed_pipeline(r.kind)) {
        std::vector<Seconds> took;
        for (const Round& hop : pipeline_hop_rounds(r, w.layout)) took.push_back(m.took[index.at(key_of(hop))]);
        t += composed_pipeline_s(r, w.layout, took);
        continue;
      }
      const std::size_t i = index.at(key_of(r));
      if (!r.pipelined) {
        t += r.repeat * m.took[i];
        continue;
      }
      t += pipelined_ring_s(r.repeat, w.layout.gpus_per_node, measured_hop(r, m.hop[i], w.layout, false),
                            measured_hop(r, m.hop[i], w.layout, true));
    }
    out.push_back(t);
  }
  return out;
}

}  // namespace simgrid_layer
}  // namespace ddlsim
