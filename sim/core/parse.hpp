// Number parsing and name look-up, written once for every reader at the edge (scenario keys,
// command-line options, model, calibration, CSV, netfit and platform files).
// The parse_* functions are pure: they return nothing unless `text` is one whole value in range,
// and the caller's message names the file and line or the key (each reader has its own origin).
// `lookup` and `throw_unknown` give the one "expected one of" message:
//   ORIGIN = 'TEXT': [unknown WHAT; ]expected one of A, B, C
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/text.hpp"

namespace ddlsim {
inline namespace core_layer {

// A decimal integer (optional sign, leading blanks allowed as strtoll does) in [min, max].
std::optional<long long> parse_integer(const std::string& text, long long min, long long max);

// A finite decimal number (no hexadecimal, no inf or nan) in [min, max]; with `min_open`, above min.
std::optional<double> parse_real(const std::string& text, double min, double max, bool min_open = false);

// "224" or "224x160" (height x width, case-insensitive x), each an integer from 1 to `max`.
std::optional<std::pair<int, int>> parse_size(const std::string& text, long long max);

// "64", "64K", "4M", "1G": a positive integer of bytes with an optional binary suffix, at most `max`.
std::optional<long long> parse_byte_size(const std::string& text, long long max);

// A comma-separated list (items trimmed), each item parsed by `item`; nothing when the list is
// empty or any item fails.
template <class T, class Item>
std::optional<std::vector<T>> parse_list(const std::string& text, Item item);

[[noreturn]] void throw_unknown(const std::string& origin, const std::string& text, const std::string& what,
                                const std::string& names);

// The names of a table's entries, ", "-separated.
template <class T, class NameOf>
std::string names_of(const std::vector<T>& items, NameOf name_of) {
  std::string names;
  for (const auto& x : items) names += (names.empty() ? "" : ", ") + std::string(name_of(x));
  return names;
}

// The entry whose name equals `text` (case-insensitive: names are lower case); else throws
// with `shown` as the names expected ("" = every name in the table).
template <class T>
T lookup(const std::vector<std::pair<std::string, T>>& table, const std::string& text, const std::string& origin,
         const std::string& what = "", const std::string& shown = "");

// ---- templates -------------------------------------------------------------------------------

template <class T, class Item>
std::optional<std::vector<T>> parse_list(const std::string& text, Item item) {
  std::vector<T> out;
  for (const auto& piece : split(text, ',')) {
    const std::optional<T> v = item(piece);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

template <class T>
T lookup(const std::vector<std::pair<std::string, T>>& table, const std::string& text, const std::string& origin,
         const std::string& what, const std::string& shown) {
  const std::string t = to_lower(text);
  for (const auto& [name, value] : table)
    if (name == t) return value;
  throw_unknown(origin, text, what, shown.empty() ? names_of(table, [](const auto& e) { return e.first; }) : shown);
}

}  // namespace core_layer
}  // namespace ddlsim
