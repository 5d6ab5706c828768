// Small text helpers shared by the parsers at the edge.
#pragma once
#include <string>
#include <vector>

namespace ddlsim {
inline namespace core_layer {

std::string to_lower(std::string s);
std::string trim(const std::string& s);
std::vector<std::string> split(const std::string& s, char sep);  // trims each piece
// Natural order: "gpu2" < "gpu10".
bool natural_less(const std::string& a, const std::string& b);
// Shortest round-trip text for a double, locale-independent ("0.1", "1e-05", "25").
std::string format_number(double v);
// "; did you mean 'NAME'?" for the name closest to `word` (edit distance, case-insensitive) when
// it is close enough (at most 2 edits, or a third of the word); "" otherwise.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& names);

// `s` as quoted in a message: at most 60 characters, with the length when clipped; control
// characters shown escaped (\r, \n, \t, \xHH; C1 controls and the bidirectional marks and
// overrides as \uHHHH), never echoed raw.
std::string clip(const std::string& s);
// A whole message as it reaches a terminal: every control character escaped as clip() shows it,
// line breaks kept, nothing clipped (error.cpp prints every error through it, so bytes a file
// carried into a message never reach the terminal raw).
std::string terminal_safe(const std::string& s);

// The length in bytes of a C1 control or a bidirectional mark or override (U+200E/F, U+202A..E,
// U+2066..9) encoded in UTF-8 at s[i]; 0 when there is none there.
int invisible_control_length(const std::string& s, std::size_t i);

// Text for HTML, SVG and XML: & < > " ' as character references.
std::string markup_escape(const std::string& s);

}  // namespace core_layer
}  // namespace ddlsim
