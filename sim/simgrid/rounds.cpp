#include "simgrid/rounds.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace sg4 = simgrid::s4u;

namespace ddlsim {

namespace {

// One mailbox per (receiver, sender) pair: messages of one pair arrive in the order both sides
// run their rounds, so a fast peer's next-round message never matches this round's receive.
sg4::Mailbox* mailbox(int dst, int src) {
  return sg4::Mailbox::by_name(std::to_string(dst) + "<" + std::to_string(src));
}

uint64_t wire_bytes(Bytes b) { return uint64_t(std::max(1.0, b + 0.5)); }

}  // namespace

void run_round(const Round& r, const Layout& l, int me) {
  const RoundOps ops = round_ops(r, l, me);
  if (ops.sends.empty() && ops.recvs.empty()) return;
  // The library's software overhead per round (closed forms: Route::step_latency_s) and the
  // algorithm's own (Round::overhead_s): this rank's time before its messages start.
  const Seconds overhead = (node_round(r.kind) ? l.node_step_overhead_s : l.step_overhead_s) + r.overhead_s;
  if (overhead > 0) sg4::this_actor::sleep_for(overhead);
  int token = 0;  // payloads travel by size only
  std::vector<int*> slots(ops.recvs.size(), nullptr);
  std::vector<sg4::CommPtr> comms;
  comms.reserve(ops.sends.size() + ops.recvs.size());
  for (const auto& t : ops.sends) comms.push_back(mailbox(t.peer, me)->put_async(&token, wire_bytes(t.bytes)));
  for (std::size_t i = 0; i < ops.recvs.size(); ++i)
    comms.push_back(mailbox(me, ops.recvs[i])->get_async<int>(&slots[i]));
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

}  // namespace ddlsim
