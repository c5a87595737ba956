// freshness.hpp: a rerun that changes nothing does not analyse again. An analysis is a
// function of its inputs: this build of mirac, the spec's files and data (by content), the
// options that reach the analysis, and what the store holds (its fingerprint,
// runtime/store/fingerprint.hpp). Each analysis `mirac run` writes records a digest of
// them beside its results (`analysis-inputs.json`); a later run whose digest is the same,
// and whose results are all still there as written, reports them as up to date instead of
// computing them again (at ten times MIRA that is most of a rerun). `mirac analyze` always
// computes.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "engine/analyze/analyze_step.hpp"

namespace mirac {

/// The file in a results directory that records what its analysis was computed from.
inline constexpr const char* kAnalysisInputsFile = "analysis-inputs.json";

/// The digest of everything `audit`'s analysis of its run store would read; empty when that
/// cannot be known (a program without a build id, a store without a change count, scores
/// from a file), and an empty digest is never up to date.
std::string analysis_inputs(const Audit& audit);

/// What an earlier analysis reported, for a run that reuses it.
struct RecordedAnalysis {
  std::size_t score_rows = 0;
  std::size_t tables = 0;
  std::string diagnostics;  ///< its warnings and errors as printed
  bool errors = false;
  double analyzed_at = 0;   ///< Unix seconds
};

/// The analysis recorded in `out_dir` when it was computed from `inputs` and every file it
/// wrote is there with the size it had; nullopt otherwise.
std::optional<RecordedAnalysis> up_to_date_analysis(const std::filesystem::path& out_dir, const std::string& inputs);

/// Records `audit`'s `analysis` (written into its out_dir) as computed from `inputs`, with
/// its diagnostics as printed (`printed`). Best effort: an unwritable record only means the
/// next run analyses again. With empty `inputs`, removes any record instead.
void record_analysis(const Audit& audit, const Analysis& analysis, const std::string& inputs, const std::string& printed);

/// Where `audit`'s analysis writes: --out, else results/ for a scores file, else the run's
/// results/.
std::filesystem::path analysis_out_dir(const Audit& audit);

}  // namespace mirac
