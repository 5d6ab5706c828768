#include "core/text.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

namespace ddlsim {

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

std::string clip(const std::string& s) {
  constexpr std::size_t kShown = 60;
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < kShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\r') out += "\\r";
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += s[i];
  }
  if (s.size() > kShown) out += "... (" + std::to_string(s.size()) + " characters)";
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

}  // namespace ddlsim
