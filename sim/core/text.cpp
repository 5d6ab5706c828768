#include "core/text.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

namespace ddlsim {
inline namespace core_layer {

std::string to_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

namespace {

// The code point of the n-byte UTF-8 sequence at s[i].
unsigned unicode_of(const std::string& s, std::size_t i, int n) {
  const auto b = [&](std::size_t k) { return unsigned(static_cast<unsigned char>(s[i + k])); };
  return n == 2 ? ((b(0) & 0x1f) << 6) | (b(1) & 0x3f) : ((b(0) & 0x0f) << 12) | ((b(1) & 0x3f) << 6) | (b(2) & 0x3f);
}

}  // namespace

int invisible_control_length(const std::string& s, std::size_t i) {
  const auto at = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  if (at(0) == 0xc2 && at(1) >= 0x80 && at(1) <= 0x9f) return 2;  // C1 controls U+0080..U+009F
  if (at(0) != 0xe2 || at(1) == 0 || at(2) == 0) return 0;  // at() is 0 past the end
  const unsigned cp = unicode_of(s, i, 3);
  // Marks and overrides that reorder or hide text: U+200E/F, U+202A..U+202E, U+2066..U+2069.
  const bool bidi = cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
  return bidi ? 3 : 0;
}

namespace {

// s[i] (and the bytes of its character) as shown in a message; i moves to its last byte.
void append_shown(std::string& out, const std::string& s, std::size_t& i, bool keep_newline) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (const int n = invisible_control_length(s, i)) {  // shown as its code point, e.g. \u202e
    out += fmt::format("\\u{:04x}", unicode_of(s, i, n));
    i += n - 1;
  } else if (c == '\n' && keep_newline) out += '\n';
  else if (c == '\r') out += "\\r";
  else if (c == '\n') out += "\\n";
  else if (c == '\t') out += "\\t";
  else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
  else out += s[i];
}

}  // namespace

std::string clip(const std::string& s) {
  constexpr std::size_t kShown = 60;
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < kShown; ++i) append_shown(out, s, i, false);
  if (s.size() > kShown) out += "... (" + std::to_string(s.size()) + " characters)";
  return out;
}

std::string terminal_safe(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) append_shown(out, s, i, true);
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string::size_type start = 0;
  while (true) {
    const auto pos = s.find(sep, start);
    out.push_back(trim(s.substr(start, pos - start)));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return out;
}

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit((unsigned char)a[i]) && std::isdigit((unsigned char)b[j])) {
      std::size_t i2 = i, j2 = j;
      while (i2 < a.size() && std::isdigit((unsigned char)a[i2])) ++i2;
      while (j2 < b.size() && std::isdigit((unsigned char)b[j2])) ++j2;
      const std::string na = a.substr(i, i2 - i), nb = b.substr(j, j2 - j);
      const auto za = na.find_first_not_of('0'), zb = nb.find_first_not_of('0');
      const std::string sa = za == std::string::npos ? "" : na.substr(za);
      const std::string sb = zb == std::string::npos ? "" : nb.substr(zb);
      if (sa.size() != sb.size()) return sa.size() < sb.size();
      if (sa != sb) return sa < sb;
      i = i2;
      j = j2;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::string format_number(double v) { return fmt::format("{}", v); }

namespace {
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& names) {
  const std::string w = to_lower(word);
  if (w.empty() || w.size() > 200) return "";
  std::string best;
  std::size_t best_d = std::string::npos;
  for (const auto& n : names) {
    const std::size_t d = edit_distance(w, to_lower(n));
    if (d < best_d) best_d = d, best = n;
  }
  const std::size_t allowed = std::max<std::size_t>(2, w.size() / 3);
  return best_d > 0 && best_d <= allowed ? "; did you mean '" + best + "'?" : "";
}

std::string markup_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace core_layer
}  // namespace ddlsim
