// analyze.hpp: `mirac analyze`: means, flags, contrasts and analyses of a spec, computed
// from a table of scores, written as results.json plus CSV tables (docs/results.md).
#pragma once

#include <filesystem>
#include <optional>

#include "engine/analyze/context.hpp"

namespace mirac::analyze {

/// Everything computed from the scores: `json` is results.json, `tables` the CSV files.
/// Problems (evaluation errors, fits that fail) go to `diags`; the output holds what
/// could be computed.
Output analyze_scores(const Spec& spec, const ScoreTable& scores, const AnalyzeOptions& options, SourceManager& sources,
                      Diagnostics& diags);

/// SHA-256 of the spec's text as it was compiled (its entry in `spec.inputs`), not of the
/// file as it is now: a spec edited since, or one compiled from text, is hashed as it ran.
std::string spec_sha256(const Spec& spec);

/// The reproducibility manifest's part that the scores and the spec give: spec and scores
/// paths and SHA-256, data inputs, mirac version, bootstrap seed and resamples (what the
/// run adds: manifest.hpp).
nlohmann::ordered_json manifest(const Spec& spec, const std::filesystem::path& scores_path, const std::string& scores_sha256,
                                const ScoreTable& scores, const AnalyzeOptions& options);

/// Writes DIR/results.json and DIR/<table>.csv, each CSV opening with `out.csv_preamble`.
/// Returns an error message, or "" on success.
std::string write_output(const Output& out, const std::filesystem::path& dir);

/// A table as CSV text (RFC 4180 quoting where needed, LF line ends).
std::string to_csv(const Table& table);

}  // namespace mirac::analyze
