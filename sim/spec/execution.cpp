#include "spec/execution.hpp"

namespace ddlsim {
inline namespace spec_layer {

const char* to_string(Sharding s) {
  switch (s) {
    case Sharding::None: return "none";
    case Sharding::Zero1: return "zero1";
    case Sharding::Zero2: return "zero2";
    case Sharding::Zero3: return "zero3";
    case Sharding::FsdpFull: return "fsdp_full";
    case Sharding::FsdpGradOp: return "fsdp_grad_op";
    case Sharding::FsdpHybrid: return "fsdp_hybrid";
  }
  return "none";
}

}  // namespace spec_layer
}  // namespace ddlsim
