// analyze_command.hpp: `mirac analyze SPEC [--scores FILE.csv] [--out DIR]`, and the
// analysis phase of `mirac run`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>

namespace mirac {

struct Compilation;

struct AnalyzeCommandOptions {
  std::string spec;
  std::string data;
  std::string scores;   ///< a scores CSV; empty: the scores of the run store
  std::string store;    ///< run directory (default runs/<spec name>, runs/<spec name>.offline)
  bool offline = false; ///< the store of an --offline run
  std::string out_dir;  ///< default: `results`, or `<run dir>/results` for a store
  int resamples = 2000;
  std::uint64_t seed = 20260101;
  int repairs = 2;      ///< judge repair rounds the run used (to find the replies)
};

/// Compiles the spec (data root `data` when not empty, else $MIRAC_DATA, else the spec's),
/// reads the scores (CSV, else the run store), computes means, contrasts, flags and
/// analyses, and writes results.json plus CSV tables. Prints diagnostics to `err` and a
/// summary to `out`. Returns 0, 1 (errors in the spec, its data or the scores), 2 (usage:
/// bad --resamples, unwritable output, no store, nothing scored).
int cmd_analyze(const AnalyzeCommandOptions& o, std::ostream& out, std::ostream& err);

/// The analysis of everything the spec's first judge scored in the store at `run_dir`:
/// writes `out_dir`/scores.csv (the scores it read), results.json and the tables.
int analyze_run_store(Compilation& c, const std::filesystem::path& run_dir, const std::filesystem::path& out_dir,
                      const AnalyzeCommandOptions& o, std::ostream& out, std::ostream& err);

}  // namespace mirac
