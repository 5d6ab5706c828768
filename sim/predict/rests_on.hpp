// What a prediction rests on that the scenario did not say: each default that matters where no
// measurement replaces it (compute without a calibration, the input pipeline's storage, cores and
// decode, the links between and inside nodes, the library's per-call cost and interference, the
// host's time, the ranks' jitter), with the value it took, so a user sees what to set or measure.
#pragma once
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace ddlsim {
inline namespace predict_layer {

struct RestsOn {
  std::string key;   // the key that would replace it
  std::string what;  // the value taken, and where it comes from
};

std::vector<RestsOn> rests_on(const Scenario& sc);

// The socket transport that carries the scenario's traffic between nodes, in words ("NCCL's socket
// transport (generic NIC)", "gloo's TCP transport, one thread a rank"); "" where none does.
std::string socket_transport_name(const Scenario& sc);

}  // namespace predict_layer
}  // namespace ddlsim
