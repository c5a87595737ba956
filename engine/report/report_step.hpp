// report_step.hpp: the last step of an audit: an analysis written out as results.json, the
// CSV tables, and the spec's reports (Markdown, self-contained HTML, SVG figures).
#pragma once

#include "engine/analyze/analyze_step.hpp"

namespace mirac {

/// Writes everything into `analysis.out_dir`. kUsageError with a message when a file cannot
/// be written.
Outcome write_report(const Audit& audit, const Analysis& analysis);

}  // namespace mirac
