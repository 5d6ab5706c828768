#include "simgrid/rounds.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cost/collectives.hpp"

namespace sg4 = simgrid::s4u;

namespace ddlsim {
inline namespace simgrid_layer {

namespace {

// One mailbox per (receiver, sender) pair: messages of one pair arrive in the order both sides
// run their rounds, so a fast peer's next-round message never matches this round's receive.
sg4::Mailbox* mailbox(int dst, int src) {
  return sg4::Mailbox::by_name(std::to_string(dst) + "<" + std::to_string(src));
}

// The same pair's mailbox for eager messages: its receiver is set permanently (receive_eagerly), so
// a message put there starts flowing at once, before the receiver asks for it (SimGrid's model of
// MPI's and TCP's eager sends).
sg4::Mailbox* eager_mailbox(int dst, int src) {
  return sg4::Mailbox::by_name(std::to_string(dst) + "<eager<" + std::to_string(src));
}

uint64_t wire_bytes(Bytes b) { return uint64_t(std::max(1.0, b + 0.5)); }

void sleep_for(Seconds d) {
  if (d > 0) sg4::this_actor::sleep_for(d);
}

}  // namespace

Seconds ring_hop_overhead_s(const Round& r, const Layout& l, int me) {
  return l.ring_hop_leaves_node(me) ? l.step_overhead_s + r.overhead_s : l.node_step_overhead_s + r.node_overhead_s;
}

void run_pipelined_ring(const Round& r, const Layout& l, int me, const sg4::BarrierPtr& start) {
  if (me >= l.ranks || r.repeat <= 0) return;
  start->wait();
  const int next = (me + 1) % l.ranks, prev = (me + l.ranks - 1) % l.ranks;
  // Step k leaves `overhead` after step k-1 arrived (the per-step latency is in flight, not this
  // rank's own time: NCCL's tuning model counts the network's only on the steps that cross it),
  // and not before the last one's bytes have left (one message at a time on the link,
  // Layout::ring_link_Bps). Both only grow with k, so one actor keeps every departure time.
  const Seconds overhead = ring_hop_overhead_s(r, l, me);
  const Seconds serial = l.ring_link_Bps.empty() ? 0 : double(wire_bytes(r.bytes)) / l.ring_link_Bps[me];
  const Seconds rendezvous = l.ring_hop_leaves_node(me) ? l.rendezvous_extra_s(r.bytes) : 0;
  // NCCL_STEPS = 8 receive slots per connection (src/include/collectives.h): a step's message
  // moves as soon as its sender has it and the receiver has a free slot for it.
  constexpr int kSlots = 8;
  std::vector<sg4::CommPtr> arrivals;
  arrivals.reserve(r.repeat);
  static int token = 0;  // payloads travel by size only (a detached send outlives this call)
  std::vector<int*> slots(kSlots, nullptr);
  const auto post = [&](int k) {
    if (k < r.repeat) arrivals.push_back(mailbox(me, prev)->get_async<int>(&slots[k % kSlots]));
  };
  for (int k = 0; k < kSlots; ++k) post(k);
  Seconds ready = sg4::Engine::get_clock(), link_free = 0;
  for (int k = 0; k < r.repeat; ++k) {
    if (k > 0) {
      arrivals[k - 1]->wait();  // the step it forwards
      ready = arrivals[k - 1]->get_finish_time();
      post(k - 1 + kSlots);
    }
    // A rendezvous (Layout::rendezvous_s) holds the link before the message leaves.
    const Seconds leave = std::max(ready + overhead, link_free) + rendezvous;
    if (leave > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(leave);
    // Detached: the successor waits for every step, and SimGrid scans an actor's pending
    // activities on each wait, so hundreds of sends held here would make a long ring quadratic.
    mailbox(next, me)->put_init(&token, wire_bytes(r.bytes))->detach();
    link_free = leave + serial;
  }
  arrivals.back()->wait();
}

void run_pipelined_chain(const Round& r, const Layout& l, int me, const sg4::BarrierPtr& start) {
  if (me >= l.ranks || r.repeat <= 0) return;
  start->wait();
  const bool reduce = r.param == 1;
  const int pos = reduce ? l.ranks - 1 - me : me;  // place along the chain, 0 the source
  const int prev = reduce ? me + 1 : me - 1, next = reduce ? me - 1 : me + 1;
  const bool sends = pos + 1 < l.ranks, receives = pos > 0;
  const bool leaves_node = reduce ? me % l.gpus_per_node == 0 : (me + 1) % l.gpus_per_node == 0;
  const Seconds overhead = leaves_node ? l.step_overhead_s + r.overhead_s : l.node_step_overhead_s + r.node_overhead_s;
  const std::vector<BytesPerSecond>& link = reduce ? l.ring_back_link_Bps : l.ring_link_Bps;
  const Seconds serial = link.empty() ? 0 : double(wire_bytes(r.bytes)) / link[me];
  const Seconds rendezvous = leaves_node ? l.rendezvous_extra_s(r.bytes) : 0;
  constexpr int kSlots = 8;  // NCCL_STEPS receive slots per connection, as the pipelined ring
  std::vector<sg4::CommPtr> arrivals;
  std::vector<int*> slots(kSlots, nullptr);
  const auto post = [&](int k) {
    if (receives && k < r.repeat) arrivals.push_back(mailbox(me, prev)->get_async<int>(&slots[k % kSlots]));
  };
  for (int k = 0; k < kSlots; ++k) post(k);
  static int token = 0;  // payloads travel by size only (a detached send outlives this call)
  Seconds link_free = 0;
  const Seconds begin = sg4::Engine::get_clock();
  for (int k = 0; k < r.repeat; ++k) {
    Seconds ready = begin;
    if (receives) {
      arrivals[k]->wait();
      ready = arrivals[k]->get_finish_time();
      post(k + kSlots);
    }
    if (!sends) continue;
    const Seconds leave = std::max(ready + overhead, link_free) + rendezvous;
    if (leave > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(leave);
    mailbox(next, me)->put_init(&token, wire_bytes(r.bytes))->detach();
    link_free = leave + serial;
  }
  start->wait();  // the call ends for every rank when the chain's end has the last chunk
}

Seconds ring_step_hop_s(const Round& r, const Layout& l, int me) {
  if (me >= l.ranks) return 0;
  const Seconds start = sg4::Engine::get_clock();
  int token = 0, *slot = nullptr;
  sg4::CommPtr in = mailbox(me, (me + l.ranks - 1) % l.ranks)->get_async<int>(&slot);  // its slot is ready
  sleep_for(ring_hop_overhead_s(r, l, me) + (l.ring_hop_leaves_node(me) ? l.rendezvous_extra_s(r.bytes) : 0));
  mailbox((me + 1) % l.ranks, me)->put_async(&token, wire_bytes(r.bytes))->wait();
  const Seconds hop = sg4::Engine::get_clock() - start;
  in->wait();
  return hop;
}

namespace {
// A hop from its round with a payload of `bytes` (took) and with none (took_empty): SimGrid sends
// at least one byte, so the empty round's byte is moved from its fixed part to the serial one.
RingHop measured_hop(Bytes bytes, Seconds took, Seconds took_empty) {
  const double wire = double(wire_bytes(bytes));
  const Seconds per_byte = wire > 1 ? (took - took_empty) / (wire - 1) : 0;
  return {took_empty - per_byte, per_byte * wire};
}
}  // namespace

Seconds composed_pipeline_s(const Round& r, const Layout& l, const std::vector<Seconds>& took) {
  const int g = l.gpus_per_node, nodes = l.ranks / g;
  const std::vector<Round> hops = pipeline_hop_rounds(r, l);
  const RingHop intra = measured_hop(hops[0].bytes, took[0], took[1]);
  RingHop inter = measured_hop(hops[2].bytes, took[2], took[3]);
  inter.serial_s += l.rendezvous_extra_s(pipeline_inter_message_bytes(r, l));
  if (r.kind == RoundKind::ChainPipeline) return pipelined_chain_s(r.repeat, g, nodes, intra, inter);
  if (r.kind == RoundKind::NvlsTreePipeline) return pipelined_nvls_tree_s(r.repeat, dbt_depth(nodes), nodes, intra, inter);
  if (r.kind == RoundKind::CollnetPipeline) return pipelined_collnet_s(r.repeat, g, intra, inter);
  return pipelined_tree_s(r.repeat, dbt_depth(nodes), g, nodes, intra, inter);
}

void run_composed_pipeline(const Round& r, const Layout& l, int me, const sg4::BarrierPtr& barrier) {
  if (me >= l.ranks) return;
  barrier->wait();
  const Seconds start = sg4::Engine::get_clock();
  std::vector<Seconds> took;
  for (const Round& hop : pipeline_hop_rounds(r, l)) {
    const Seconds from = sg4::Engine::get_clock();
    run_round(hop, l, me);
    barrier->wait();
    took.push_back(sg4::Engine::get_clock() - from);
  }
  const Seconds end = start + composed_pipeline_s(r, l, took);
  if (end > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(end);
}

void receive_eagerly(const Plans& plans, const std::vector<bool>& eager, const Layout& l, int me,
                     const sg4::ActorPtr& receiver) {
  for (std::size_t i = 0; i < plans.size(); ++i)
    if (eager[i])
      for (const Round& r : plans[i])
        for (int from : round_ops(r, l, me).recvs) eager_mailbox(me, from)->set_receiver(receiver);
}

void run_round(const Round& r, const Layout& l, int me, bool eager) {
  const RoundOps ops = round_ops(r, l, me);
  const auto box = eager && r.bytes <= l.eager_limit_bytes ? eager_mailbox : mailbox;
  if (ops.sends.empty() && ops.recvs.empty()) return;
  // The library's software overhead per round (closed forms: Route::step_latency_s) and the
  // algorithm's own (Round::overhead_s): this rank's time before its messages start.
  const Seconds overhead = (node_round(r.kind) ? l.node_step_overhead_s : l.step_overhead_s) + r.overhead_s;
  sleep_for(overhead);
  int token = 0;  // payloads travel by size only
  std::vector<int*> slots(ops.recvs.size(), nullptr);
  std::vector<sg4::CommPtr> comms;
  comms.reserve(ops.sends.size() + ops.recvs.size());
  for (const auto& t : ops.sends) comms.push_back(box(t.peer, me)->put_async(&token, wire_bytes(t.bytes)));
  for (std::size_t i = 0; i < ops.recvs.size(); ++i) comms.push_back(box(me, ops.recvs[i])->get_async<int>(&slots[i]));
  sg4::Comm::wait_all(comms);
}

// Runs the simulation; actors still blocked at the end mean the messages did not match.
void run_engine() {
  sg4::Engine* e = sg4::Engine::get_instance();
  e->run();
  if (e->get_actor_count() > 0)
    throw std::runtime_error("SimGrid backend: " + std::to_string(e->get_actor_count()) +
                             " actors blocked at the end of the simulation (unmatched messages)");
}

}  // namespace simgrid_layer
}  // namespace ddlsim
