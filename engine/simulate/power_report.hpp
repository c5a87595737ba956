// power_report.hpp: a power study (power.hpp) as the files `mirac simulate` writes.
#pragma once

#include "engine/report/report.hpp"
#include "engine/simulate/power.hpp"

namespace mirac {

/// power.json (PowerStudy::to_json), power.csv (one row per quantity and design), power.md
/// and power.html (the table, and the power curve when there are several designs), and the
/// curve's figures/power-curve.vl.json and .csv. Write them with report::write_reports.
report::ReportFiles power_files(const Spec& spec, const PowerStudy& study);

}  // namespace mirac
