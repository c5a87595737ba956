// escape.hpp: text made safe for the report's HTML pages (the report and the annotation
// page).
#pragma once

#include <string>
#include <string_view>

namespace mirac::report {

/// `s` with &, <, > and " escaped, for HTML text and attribute values.
std::string xml_escape(std::string_view s);

}  // namespace mirac::report
