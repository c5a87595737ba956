// export.hpp: the stored answers of a spec's plan, or one judge's scores of them, out of
// the run store as JSON Lines or RFC 4180 CSV (docs/cli.md, `mirac export`). In CSV, text
// a spreadsheet would run as a formula is made inert unless asked otherwise.
#pragma once

#include <iosfwd>
#include <string>

#include "engine/session.hpp"
#include "runtime/text/csv_cells.hpp"

namespace mirac {

struct ExportOptions {
  std::string what = "responses";  ///< responses or scores
  std::string format = "jsonl";    ///< jsonl or csv
  std::string judge;               ///< scores: the judge (empty: the spec's first)
  std::string output;              ///< a file; empty or "-": the stream given
  /// CSV only: "neutralise" (the default when empty) or "keep" (text cells as they are,
  /// for programs; csv_cells.hpp).
  std::string csv_formulas;
};

/// One row per stored answer of the plan, in plan order; for `scores`, where that answer
/// stands with the judge and its scores (answers still unusable after `repairs` repairs are
/// `invalid`). `summary` says what was written (a line, for standard error).
Outcome export_table(const Audit& audit, const ExportOptions& options, std::ostream& out, std::string& summary);

}  // namespace mirac
