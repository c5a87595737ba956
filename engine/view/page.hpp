// page.hpp: the one page of `mirac view`: self-contained HTML with inline CSS and vanilla
// JavaScript (no external assets, so it works offline), reading the server's /api. Its
// files are web/view/, compiled in (runtime/report/web_files.hpp).
#pragma once

#include <string>
#include <string_view>

namespace mirac::view {

/// The HTML of `/`. The page reads its state from the URL's query (`?view=pairs&factor=...`),
/// so a filtered view or a pair view can be bookmarked and shared.
std::string_view page_html();

/// A report page (report.html) as the view serves it at /report: with a script that makes
/// each table cell naming its answers (`data-answers="model=mini&arm=baseline"`, written by
/// the report) a link to `/?` and those answers. The file on disk has no such script, so
/// opened from there it links nowhere (there is no view to link to).
std::string with_answer_links(std::string report_html);

}  // namespace mirac::view
