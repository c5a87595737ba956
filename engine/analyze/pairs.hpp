// pairs.hpp: matching answers into pairs for wilcoxon and paired analyses.
#pragma once

#include "engine/analyze/context.hpp"

namespace mirac::analyze {

struct Matched {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  ///< (treatment row, control row)
  std::size_t duplicate_keys = 0;  ///< keys with more than one answer on a side: left out
  std::size_t unmatched = 0;       ///< keys with an answer on one side only
};

/// Pairs the rows whose `variable` is `treatment` with those where it is `control` and the
/// `keys` variables are equal, in key order.
Matched match_pairs(const Spec& spec, const ScoreTable& scores, const std::vector<std::size_t>& rows,
                    const std::string& variable, const std::string& treatment, const std::string& control,
                    const std::vector<std::string>& keys);

/// Treatment and control scores of one dimension over the pairs where neither is N/A.
struct PairedScores {
  std::vector<double> treatment, control;
  std::size_t na = 0;  ///< pairs left out for an N/A score
};
PairedScores paired_scores(const ScoreTable& scores, const Matched& m, int dim);

/// One `compare F: x vs y` value.
struct Comparison {
  std::string variable, treatment, control;
  std::string label() const { return variable + ": " + treatment + " vs " + control; }
};
/// The comparisons of a `compare` option; a value without a label keeps the previous one.
std::vector<Comparison> comparisons_of(const ast::AnalysisOption* compare);

/// Variables named by an option such as `pairs` or `by`, in order.
std::vector<std::string> option_variables(const ast::AnalysisOption* option);

}  // namespace mirac::analyze

#include "runtime/stats/paired.hpp"

namespace mirac::analyze {

/// The default pairing keys: seed, model, arm and every factor, except `variable`.
std::vector<std::string> default_keys(const Spec& spec, const std::string& variable);

/// n, means, mean delta, d_z, counts and the Wilcoxon test of a paired summary.
nlohmann::ordered_json summary_json(const stats::PairedSummary& s);
/// CSV cells for the same, after the caller's leading cells.
std::vector<std::string> summary_cells(const stats::PairedSummary& s);
extern const std::vector<std::string> kSummaryHeader;

}  // namespace mirac::analyze
