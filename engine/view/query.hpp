// query.hpp: the questions `mirac view` answers over an AnswerIndex: which answers match a
// filter (a page of them), and the matched pairs of a `factor: a vs b` pairing with their
// score differences, optionally only those on which a pair flag fires or whose difference
// on one dimension reaches a threshold. Parameters arrive as text (a URL's query) and are
// checked against the spec here, so a misspelt level is a message, not an empty page.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/view/index.hpp"

namespace mirac::view {

/// Which answers to show; every field unset means "any".
struct Filter {
  int model = -1, arm = -1;
  std::vector<int> levels;  ///< per factor of the spec; -1 = any
  std::string seed;         ///< part of the seed id (case-sensitive); empty = any
  std::optional<Judging> judging;
  std::optional<AnswerStatus> status;
  int flag = -1;            ///< index into spec.flags: only answers it marks
  /// Index into AnswerIndex::dims: only answers the scoring rater scored on it (not N/A),
  /// the answers a mean on that dimension averages (report.html links to them).
  int scored_on = -1;
};

/// The names of the answer list's and the pairs' own parameters; every other name is a
/// factor's. (A factor so named cannot be filtered by; the report links no answers by it.)
inline constexpr const char* kQueryParams[] = {"model", "arm",    "seed",   "judge", "status", "flag", "scored_on",
                                               "offset", "limit", "factor", "a",     "b",      "dim",  "min_diff"};

/// Query parameters by name, as a URL gives them.
using Params = std::map<std::string, std::string>;

/// The filter `params` ask for: model, arm, seed, judge (a judging state), status, flag,
/// scored_on (a dimension), and any factor by its name (`literacy=low`). An unknown name or value sets `error`.
Filter parse_filter(const AnswerIndex& index, const Params& params, std::string& error);

/// Indices into index.rows() of the answers `filter` keeps, in plan order.
std::vector<std::size_t> filter_rows(const AnswerIndex& index, const Filter& filter);

/// Whether `row` passes `filter`, the paired factor (-1: none) aside.
bool keeps(const AnswerIndex& index, const Filter& filter, const AnswerRow& row, int except_factor = -1);

/// A pairing query: `factor: a vs b`, the filter on the pairs' shared fields, and which
/// pairs to keep.
struct PairQuery {
  int factor = -1, a = -1, b = -1;
  Filter filter;      ///< its level of `factor` is ignored
  int flag = -1;      ///< a pair flag: only the pairs it fires on
  int dim = -1;       ///< with `min_diff`: only pairs where a - b on this dimension reaches it
  std::optional<double> min_diff;
};

/// The pairing `params` ask for: factor, a, b (or, with only `flag`, the flag's first
/// pairing), flag, dim and min_diff, and the filter's parameters. Problems set `error`.
PairQuery parse_pairs(const AnswerIndex& index, const Params& params, std::string& error);

struct PairsResult {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  ///< (side a, side b) rows kept
  std::size_t matched = 0;     ///< pairs before the flag and difference filters
  std::size_t unmatched = 0;   ///< answers with no partner on the other side
  std::size_t duplicates = 0;  ///< groups left out for more than one answer on a side
};

/// The pairs of `query`. Throws EvalError when the flag's condition cannot be evaluated.
PairsResult find_pairs(const AnswerIndex& index, const PairQuery& query);

/// a - b on every dimension (NaN where either is N/A or unscored).
std::vector<double> score_differences(const AnswerIndex& index, const AnswerRow& a, const AnswerRow& b);

}  // namespace mirac::view
