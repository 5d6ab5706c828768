// What a backend reports for one training step of one rank: when each phase ran.
#pragma once
#include <string>
#include <vector>

#include "core/units.hpp"

namespace ddlsim {
inline namespace schedule_layer {

enum class Lane { Compute, Comm, Input };

struct Phase {
  std::string name;  // "forward", "backward", "allreduce bucket 3", "optimizer", "input wait"
  Lane lane;
  Seconds start_s;
  Seconds end_s;
};

struct StepTiming {
  Seconds step_s = 0;        // wall time of the step, input wait included
  Seconds compute_s = 0;     // forward + backward + optimizer or accumulation
  Seconds comm_s = 0;        // sum of the exchanges' durations (with per-call cost and host staging)
  Seconds exposed_comm_s = 0;// time the GPU waits for exchanges (and coordination) after backward
  Seconds input_wait_s = 0;  // time the GPU waits for the input pipeline
  Seconds interference_s = 0;// how much longer the backward pass ran because exchanges overlapped it
  Seconds framework_s = 0;   // the framework's host time per step (cost/framework_costs.hpp)
  // step_s = compute_s + framework_s + interference_s + exposed_comm_s + input_wait_s
  std::vector<Phase> phases;
};

// Both kinds of step: one that exchanges gradients and one that only accumulates them.
// Mixed clusters (several kinds of rank): `sync` and `local` are the cluster's steps (those of the
// rank that ends last) and each kind has its own timeline, waits included; empty with one kind.
struct StepPair {
  StepTiming sync;
  StepTiming local;
  std::vector<StepTiming> kind_sync;
  std::vector<StepTiming> kind_local;
};

}  // namespace schedule_layer
}  // namespace ddlsim
