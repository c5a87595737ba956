// page.hpp: the one page of `mirac view`: self-contained HTML with inline CSS and vanilla
// JavaScript (no external assets, so it works offline), reading the server's /api.
#pragma once

#include <string_view>

namespace mirac::view {

/// The HTML of `/`. The page reads its state from the URL's query (`?view=pairs&factor=...`),
/// so a filtered view or a pair view can be bookmarked and shared.
std::string_view page_html();

}  // namespace mirac::view
