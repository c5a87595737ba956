// analyze_command.hpp: `mirac analyze SPEC --scores FILE.csv [--out DIR]`.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

namespace mirac {

/// Compiles `spec` (data root `data` when not empty, else $MIRAC_DATA, else the spec's),
/// reads the scores CSV, computes means, contrasts, flags and analyses, and writes
/// `out_dir`/results.json plus CSV tables (`out_dir` empty: "results"). `resamples` and
/// `seed` drive the contrasts' cluster bootstrap. Prints diagnostics to `err` and a
/// summary to `out`. Returns 0, 1 (errors in the spec, its data or the scores), 2 (usage:
/// missing --scores, bad --resamples, unwritable output).
int cmd_analyze(const std::string& spec, const std::string& data, const std::string& scores, const std::string& out_dir,
                int resamples, std::uint64_t seed, std::ostream& out, std::ostream& err);

}  // namespace mirac
