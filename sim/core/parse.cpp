#include "core/parse.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "core/error.hpp"
#include "core/text.hpp"

namespace ddlsim {
inline namespace core_layer {

std::optional<long long> parse_integer(const std::string& text, long long min, long long max) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < min || v > max) return std::nullopt;
  return v;
}

std::optional<double> parse_real(const std::string& text, double min, double max, bool min_open) {
  if (text.find_first_of("xX") != std::string::npos) return std::nullopt;  // strtod reads 0x10 as 16
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const bool above_min = min_open ? v > min : v >= min;
  if (text.empty() || *end != '\0' || !std::isfinite(v) || !above_min || v > max) return std::nullopt;
  return v;
}

std::optional<std::pair<int, int>> parse_size(const std::string& text, long long max) {
  const auto parts = split(to_lower(text), 'x');
  if (parts.empty() || parts.size() > 2) return std::nullopt;
  int v[2] = {0, 0};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto n = parse_integer(parts[i], 1, max);
    if (!n) return std::nullopt;
    v[i] = int(*n);
  }
  return std::make_pair(v[0], parts.size() == 2 ? v[1] : v[0]);
}

std::optional<long long> parse_byte_size(const std::string& text, long long max) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 18 || text.size() - digits > 1) return std::nullopt;  // 10^18 fits a long long
  const std::string unit = to_lower(text.substr(digits));
  const int shift = unit.empty() ? 0 : unit == "k" ? 10 : unit == "m" ? 20 : unit == "g" ? 30 : -1;
  const long long v = std::stoll(text.substr(0, digits));
  if (shift < 0 || v < 1 || v > (max >> shift)) return std::nullopt;
  return v << shift;
}

void throw_unknown(const std::string& origin, const std::string& text, const std::string& what,
                   const std::string& names) {
  throw InputError(origin + " = '" + clip(text) + "': " + (what.empty() ? "" : "unknown " + what + "; ") +
                   "expected one of " + names + did_you_mean(text, split(names, ',')));
}

}  // namespace core_layer
}  // namespace ddlsim
