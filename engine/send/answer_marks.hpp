// answer_marks.hpp: how many stored answers the server did not treat as asked: cut at the
// token limit, past a limit it ignored, or answered from a prompt it shortened. In all, per
// model and arm, and per factor level, for `mirac run`'s summary, `mirac status` and the
// report (results.json `answers_marked`, docs/results.md).
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "interpreter/plan/plan.hpp"
#include "runtime/store/store.hpp"

namespace mirac {

struct MarkCounts {
  std::size_t answers = 0;           ///< done answers in the group
  std::size_t cut = 0;               ///< stopped at the token limit (finish reason length / max_tokens)
  std::size_t limit_ignored = 0;     ///< more output tokens than the limit sent
  std::size_t prompt_shortened = 0;  ///< far fewer prompt tokens reported than the prompt has
  bool any() const { return cut + limit_ignored + prompt_shortened > 0; }
};

struct AnswerMarks {
  MarkCounts all;
  std::vector<std::pair<std::string, MarkCounts>> model_arm;  ///< "model/arm", in spec order
  std::vector<std::vector<MarkCounts>> levels;                ///< [factor][level]
};

/// Counts over the done answers of `rows` (indices into plan.requests), each distinct
/// request once per group. `done` says, by position in `rows`, which are done (done_rows);
/// `marked` is Store::marked_answers().
AnswerMarks count_marks(const Spec& spec, const Plan& plan, const std::vector<std::size_t>& rows,
                        const std::vector<char>& done, const std::unordered_map<std::string, Store::Marks>& marked);

/// Which of `rows` have a done answer in `store`, by position, from one scan of it.
std::vector<char> done_rows(Store& store, const Plan& plan, const std::vector<std::size_t>& rows);
/// The same from the set of the store's done hashes (Store::done_hashes).
std::vector<char> done_rows(const HashSet& done, const Plan& plan,
                            const std::vector<std::size_t>& rows);

/// results.json's and `mirac status --json`'s `answers_marked`: `answers`, `cut`,
/// `limit_ignored`, `prompt_shortened`, and `by_model_arm` and `by_factor` with the same
/// counts for the groups that have any.
nlohmann::ordered_json marks_json(const Spec& spec, const AnswerMarks& marks);

/// What to tell the user, one line each: the counts, where they are, and what to do.
/// Empty when no answer is marked.
std::vector<std::string> marks_warnings(const Spec& spec, const AnswerMarks& marks);

}  // namespace mirac
