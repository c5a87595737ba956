// figure_data.hpp: a figure's data (its spec's `data.values`) as the CSV file written
// beside it and as the table report.md shows in its place; and the figure's anchor in
// report.html, which report.md links to.
#pragma once

#include <string>

#include "runtime/report/document.hpp"

namespace mirac::report {

/// Header and one row per datum; numbers as JSON prints them, null as "".
std::string figure_csv(const Figure& figure);
/// The same data as a report table (null as "—"), numeric columns right-aligned.
Table figure_table(const Figure& figure);
/// The id of the figure's container in report.html: its file name ("extra-bars-D3"), or
/// "figure-N" (N from 1, in document order) when the files are not named.
std::string figure_id(const Figure& figure, std::size_t index);

}  // namespace mirac::report
