#include "engine/platform_check.hpp"

#include <expat.h>
#include <fmt/format.h>

#include <cstring>
#include <memory>

#include "core/error.hpp"

namespace ddlsim {
inline namespace engine_layer {

namespace {

struct Depth {
  XML_Parser parser = nullptr;
  int elements = 0, zones = 0;
  std::string error;  // the first reason to stop, with its line
};

bool is_zone(const XML_Char* name) { return std::strcmp(name, "zone") == 0 || std::strcmp(name, "AS") == 0; }

void XMLCALL on_start(void* data, const XML_Char* name, const XML_Char**) {
  auto& d = *static_cast<Depth*>(data);
  ++d.elements;
  if (is_zone(name)) ++d.zones;
  if (!d.error.empty()) return;
  const auto line = XML_GetCurrentLineNumber(d.parser);
  if (d.zones > kMaxZoneDepth)
    d.error = fmt::format("{}: zones nested more than {} deep; expected a platform of a few levels (cluster, node, "
                          "GPU)", line, kMaxZoneDepth);
  else if (d.elements > kMaxElementDepth)
    d.error = fmt::format("{}: elements nested more than {} deep; expected a platform of a few levels", line,
                          kMaxElementDepth);
  if (!d.error.empty()) XML_StopParser(d.parser, XML_FALSE);
}

void XMLCALL on_end(void* data, const XML_Char* name) {
  auto& d = *static_cast<Depth*>(data);
  --d.elements;
  if (is_zone(name)) --d.zones;
}

}  // namespace

void check_platform_xml(const std::string& path, const std::string& text) {
  const std::unique_ptr<XML_ParserStruct, void (*)(XML_Parser)> parser(XML_ParserCreate(nullptr), XML_ParserFree);
  if (!parser) throw std::bad_alloc();
  Depth d;
  d.parser = parser.get();
  XML_SetUserData(parser.get(), &d);
  XML_SetElementHandler(parser.get(), on_start, on_end);
  const bool ok = XML_Parse(parser.get(), text.data(), int(text.size()), XML_TRUE) == XML_STATUS_OK;
  if (!d.error.empty()) throw InputError(path + ":" + d.error);
  if (!ok)
    throw InputError(fmt::format("{}:{}: not well-formed XML ({}); expected a SimGrid platform file", path,
                                 XML_GetCurrentLineNumber(parser.get()), XML_ErrorString(XML_GetErrorCode(parser.get()))));
}

}  // namespace engine_layer
}  // namespace ddlsim
