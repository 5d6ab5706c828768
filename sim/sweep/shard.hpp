// A sweep split into N shards, each run as its own process (a Slurm array task, a machine of its
// own) and joined again by `ddlsim sweep FILE --merge`.
//
// Configuration i (in the sweep's order) runs in shard (i + floor(i / N)) mod N. Each block of N
// consecutive configurations gives every shard one (shards differ by at most one row), and which
// one turns by one from block to block. Plain i mod N would give a shard every configuration of one
// value of the fastest-varying key whenever its list's length divides N (4 node counts, 8 shards:
// shard 3 would run every largest SimGrid configuration); contiguous blocks would give whole values
// of the slowest keys (one model each) to a shard. Turning the assignment spreads both.
#pragma once
#include <cstddef>

namespace ddlsim {
inline namespace sweep_layer {

struct Shard {
  std::size_t index = 0;  // 0 .. count-1
  std::size_t count = 1;
};

constexpr std::size_t kMaxShards = 100000;

// The shard that runs configuration i.
std::size_t shard_of(std::size_t i, const Shard& s);
// How many of a sweep's `size` configurations shard s runs.
std::size_t shard_rows(std::size_t size, const Shard& s);
// The configuration of the sweep that is shard s's k-th row (k < shard_rows).
std::size_t shard_config(std::size_t k, const Shard& s);

}  // namespace sweep_layer
}  // namespace ddlsim
