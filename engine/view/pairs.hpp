// pairs.hpp: matched pairs for `mirac view`: the two answers that differ in one factor
// only (same seed, model, arm and every other factor), as the spec's pair flags and paired
// analyses match them (engine/analyze/flags.cpp); and whether a pair flag fires on a pair,
// evaluated by the same condition code (interpreter/scores/row_scope) the analyses use.
#pragma once

#include <string>
#include <vector>

#include "engine/view/index.hpp"

namespace mirac::view {

struct MatchedRows {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  ///< (side a, side b) indices into rows()
  std::size_t unmatched = 0;   ///< keys with an answer on one side only
  std::size_t duplicates = 0;  ///< keys with more than one answer on a side: left out, as flags.cpp does
};

/// Pairs the rows among `candidates` (indices into index.rows(), in order) whose level of
/// `factor` is `a` with those where it is `b` and everything else is equal, in the order
/// of each pair's first row among the candidates.
MatchedRows match_rows(const AnswerIndex& index, const std::vector<std::size_t>& candidates, int factor, int a, int b);

/// Evaluates the spec's flags on the index's rows, by the same condition code the analyses
/// use, on score rows it fills from the index (AnswerIndex::score_row) and reuses: a flag is
/// evaluated on up to every row or pair of a store.
class FlagEvaluator {
 public:
  explicit FlagEvaluator(const AnswerIndex& index) : index_(index) {}
  /// Whether the unit flag `flag` (an index into spec.flags) holds on `row`: false unless it
  /// is scored. Throws EvalError when its condition cannot be evaluated.
  bool unit_holds(std::size_t flag, const AnswerRow& row);
  /// Whether the pair flag `flag` fires on rows `a` and `b`: false unless both are scored.
  /// Throws EvalError.
  bool pair_fires(std::size_t flag, const AnswerRow& a, const AnswerRow& b);

 private:
  const AnswerIndex& index_;
  analyze::ScoreRow a_, b_;
};

}  // namespace mirac::view
