// import.hpp: answers produced elsewhere into the run store (docs/cli.md, `mirac import`).
// Two record formats, told apart record by record: mirac's own (`arm`, what `mirac export`
// writes) and the MIRA authors' judge input (`mitigation`, `model_judged`, ...).
#pragma once

#include <string>

#include "engine/session.hpp"

namespace mirac {

struct ImportSummary {
  std::size_t stored = 0;     ///< answers stored now
  std::size_t already = 0;    ///< skipped: the store had an answer for the request
  std::size_t not_done = 0;   ///< rows whose status is not `done` (failures `mirac export` wrote)
  std::size_t mira_rows = 0;  ///< rows read as MIRA judge input
  Diagnostics diagnostics;    ///< every problem, at its row and field of the file
};

/// Checks every row of the JSONL `file` against the plan first and stores nothing if any
/// is invalid (kSpecError; the problems in `summary.diagnostics`, against audit's sources).
Outcome import_responses(Audit& audit, const std::string& file, ImportSummary& summary);

}  // namespace mirac
