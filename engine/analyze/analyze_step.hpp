// analyze_step.hpp: the analysis step of an audit: the scores (a scores CSV, or what the
// analyses' rater, the spec's `scores`, scored in the run store) through every flag, contrast and analysis
// the spec declares.
#pragma once

#include <filesystem>

#include "engine/analyze/analyze.hpp"
#include "engine/session.hpp"

namespace mirac {

/// What the analysis computed, ready to be written.
struct Analysis {
  std::size_t score_rows = 0;
  analyze::Output output;     ///< results.json (manifest first) and the CSV tables
  Diagnostics diagnostics;    ///< the analysis's own warnings and errors (the compile's are apart)
  std::filesystem::path out_dir;
  double analyzed_at = 0;     ///< Unix seconds, as the manifest records it
};

/// Reads the scores and analyzes them. From the store, the scores read are written to
/// `<out dir>/scores.csv` first, so that `mirac analyze --scores` can repeat the analysis and
/// the manifest hashes them. Fails (kSpecError with `diagnostics`, kUsageError with a message)
/// when there is nothing to analyze; problems within the analysis are in `diagnostics`.
Outcome analyze_audit(Audit& audit, Analysis& analysis);

}  // namespace mirac
