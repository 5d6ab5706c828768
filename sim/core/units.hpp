// Units live in the names: *_s seconds, *_Bps bytes per second, *_flops floating-point operations
// (a multiply-add counts 2), *_bytes bytes. Binary prefixes for sizes (MiB), decimal for rates (GB/s).
#pragma once
#include <cstdint>

namespace ddlsim {
inline namespace core_layer {

using Seconds = double;
using Bytes = double;           // byte counts; double keeps per-sample fractions exact enough
using BytesPerSecond = double;  // decimal: 1 GB/s = 1e9
using Flops = double;           // operation counts (2 per multiply-add)
using FlopsPerSecond = double;

constexpr double kKiB = 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;
constexpr double kGB = 1e9;
constexpr double kTera = 1e12;

}  // namespace core_layer
}  // namespace ddlsim
