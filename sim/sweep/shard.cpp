#include "sweep/shard.hpp"

namespace ddlsim {
inline namespace sweep_layer {

std::size_t shard_of(std::size_t i, const Shard& s) { return (i + i / s.count) % s.count; }

// Block b holds configurations b N .. b N + N - 1; shard s's one among them is b N + (s - b) mod N.
std::size_t shard_config(std::size_t k, const Shard& s) {
  const std::size_t n = s.count, shift = k % n;
  return k * n + (s.index + n - shift) % n;
}

std::size_t shard_rows(std::size_t size, const Shard& s) {
  if (size == 0) return 0;
  const std::size_t blocks = (size + s.count - 1) / s.count;
  return blocks - 1 + (shard_config(blocks - 1, s) < size ? 1 : 0);
}

}  // namespace sweep_layer
}  // namespace ddlsim
