// coverage.hpp: which stored answers the analyses' rater left unscored (a judge reply that
// stayed unusable, a failed or pending judge call), in all and per model and factor level.
// Unscored answers are left out of every analysis; when their share differs between the
// levels of a factor, every contrast over that factor is biased by it, so that is warned
// about at the rater's declaration.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "interpreter/plan/plan.hpp"
#include "interpreter/scores/scores.hpp"
#include "runtime/store/hash_set.hpp"

namespace mirac::analyze {

/// Share differences (between levels of one factor, or between models) above this are
/// warned about.
inline constexpr double kUnscoredSkew = 0.05;

/// results.json's `coverage`: `rater`, `answers`, `scored`, `unscored`, `by_model` and
/// `by_factor` (each level's answers, unscored and share). `done` holds the hashes of the
/// stored answers; `table` is what the analyses read.
nlohmann::ordered_json score_coverage(const Spec& spec, const Plan& plan, const HashSet& done,
                                      const ScoreTable& table, Diagnostics& diags);

/// Per request of the plan: not stored, stored but not scored in the table, or scored. Both
/// score_coverage and add_unused_answers read it; made once, it is one pass over the plan
/// and the table for both.
enum class AnswerState : std::uint8_t { not_stored, unscored, scored };
std::vector<AnswerState> answer_states(const Spec& spec, const Plan& plan, const HashSet& done, const ScoreTable& table);
nlohmann::ordered_json score_coverage(const Spec& spec, const Plan& plan, const std::vector<AnswerState>& states,
                                      const ScoreTable& table, Diagnostics& diags);

}  // namespace mirac::analyze

namespace mirac::analyze {

/// Adds `unused` to every entry of results.json's `analyses` (`analyses`, in spec order):
/// what the analysis could not use among the answers its `where` selects: `unscored`
/// (answers the rater left unscored; none when the scores come from a file, `done` empty),
/// and `not_applicable`, per dimension it reads, the scored rows where that score is N/A.
void add_unused_answers(const Spec& spec, const Plan& plan, const HashSet& done,
                        const ScoreTable& table, SourceManager& sources, nlohmann::ordered_json& analyses);
void add_unused_answers(const Spec& spec, const Plan& plan, const std::vector<AnswerState>& states,
                        const ScoreTable& table, SourceManager& sources, nlohmann::ordered_json& analyses);

}  // namespace mirac::analyze
