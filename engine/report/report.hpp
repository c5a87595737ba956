// report.hpp: the `report` blocks of a spec rendered from results.json: Markdown, one
// self-contained HTML page per report, and each figure's Vega-Lite spec and data (docs/results.md, "Report").
// Pure: rendering reads nothing but its arguments, and writing is a separate step.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "interpreter/model/spec.hpp"

namespace mirac::report {

/// File name relative to the output directory ("report.md", "figures/bars-D3.csv") ->
/// contents. Ordered, so that writing and listing are deterministic.
using ReportFiles = std::map<std::string, std::string>;

/// Every report of the spec, or the default report when it declares none. The first (or
/// only) report is report.md and report.html, any other NAME is report-NAME.md and
/// report-NAME.html; figures go to figures/. Data missing from `results` (an analysis that
/// failed, a list that is absent) is rendered as a note in place, never an exception.
ReportFiles render_reports(const Spec& spec, const nlohmann::ordered_json& results);

/// Writes the files under `dir` (creating it and figures/). Returns an error message, or
/// "" on success.
std::string write_reports(const ReportFiles& files, const std::filesystem::path& dir);

}  // namespace mirac::report
