// libraries.hpp: the chart libraries report.html inlines (vega, vega-lite, vega-embed, in
// that order, each after its license comment), linked into the binary at build time from
// web/package-lock.json (cmake/report_libraries.cmake), so a report opens offline.
#pragma once

#include <string_view>

namespace mirac::report {

/// One script defining the globals `vega`, `vegaLite` and `vegaEmbed`; never contains
/// "</script".
std::string_view chart_libraries();

}  // namespace mirac::report
