// How the simulator itself runs: which backend, and the SimGrid backend's settings.
#pragma once
#include <string>

#include "core/units.hpp"

namespace ddlsim {
inline namespace spec_layer {

enum class BackendKind { Analytic, SimGrid };

// SimGrid backend settings (simulation.fidelity, network.*); unused by the analytic backend.
enum class Fidelity { Fast, Full };
struct SimGridOptions {
  Fidelity fidelity = Fidelity::Fast;
  std::string network_model = "CM02";  // SimGrid's network/model
  bool crosstraffic = false;           // network/crosstraffic
  Bytes tcp_gamma_bytes = 0;           // network/TCP-gamma: TCP window cap; 0 = none
  double latency_factor = 0;           // network/latency-factor; 0 = the model's own
  double bandwidth_factor = 0;         // network/bandwidth-factor; 0 = the model's own
  Seconds timeout_s = 0;               // deadline of one SimGrid run; 0 = derived from its size
  bool stack_guard = false;            // a guard page under each actor's stack (set per run: make_world)
  bool slices = true;                  // fast fidelity on two nodes where every node's rounds load
                                       // its links alike (simgrid/slice.hpp); false: every node (tests)
};

}  // namespace spec_layer
}  // namespace ddlsim
