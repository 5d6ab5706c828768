// A platform file read by a real XML parser (expat) before SimGrid sees it: SimGrid's own lexer
// corrupts memory on some inputs (zones nested a few thousand deep), so a file that is not
// well-formed XML, or nests elements deeper than any platform does, stops here with its line.
#pragma once
#include <string>

namespace ddlsim {
inline namespace engine_layer {

// Elements nested deeper than this are refused (a platform nests a handful: platform, cluster or
// zone, node, GPU); zones alone at most kMaxZoneDepth.
constexpr int kMaxElementDepth = 128;
constexpr int kMaxZoneDepth = 64;

// Throws InputError naming `path` and the line where the file stops being well-formed XML or
// nests too deep.
void check_platform_xml(const std::string& path, const std::string& text);

}  // namespace engine_layer
}  // namespace ddlsim
