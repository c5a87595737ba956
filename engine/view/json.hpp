// json.hpp: the JSON `mirac view` serves (docs/cli.md, "mirac view"): what the page's
// selects are filled from, a page of answers, one answer in full, and a page of matched
// pairs with their score differences. Scores that are N/A or missing are null. The texts of
// a page's answers (and judgments) are read from the store as the page is made
// (AnswerIndex::texts), for its rows only.
#pragma once

#include <nlohmann/json.hpp>

#include "engine/view/query.hpp"

namespace mirac::view {

using Json = nlohmann::ordered_json;

/// The spec's models, arms, factors and levels, dimensions, flags and judging states, the
/// counts of answers, and the index's warnings. `has_report`: whether /report has a page.
Json meta_json(const AnswerIndex& index, bool has_report);

/// Rows [offset, offset + limit) of `matches`: a summary each (ids, levels, status,
/// judging, scores, flags, the start of the answer), and the total.
Json answers_json(const AnswerIndex& index, const std::vector<std::size_t>& matches, std::size_t offset,
                  std::size_t limit);

/// One answer in full: prompt and system prompt, answer, scores, rationales, criteria.
Json answer_json(const AnswerIndex& index, const AnswerRow& row);

/// Pairs [offset, offset + limit) of `result`, each side in full, with a - b per dimension.
Json pairs_json(const AnswerIndex& index, const PairQuery& query, const PairsResult& result, std::size_t offset,
                std::size_t limit);

/// A paging parameter: `params[name]` as a whole number, else `fallback`, at most `max`.
std::size_t page_param(const Params& params, const std::string& name, std::size_t fallback, std::size_t max,
                       std::string& error);

}  // namespace mirac::view
