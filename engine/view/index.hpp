// index.hpp: what `mirac view` serves, built once from the audit and its run store: a row
// per request of the plan with its answer, the scoring rater's scores, rationales and
// criteria, and which of the spec's flags it sets. Queries (query.hpp) then run over plain
// vectors in memory, so filtering a full store takes microseconds, not a store read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/session.hpp"
#include "interpreter/judge/judge.hpp"
#include "interpreter/scores/scores.hpp"

namespace mirac::view {

/// Where an answer stands with the scoring rater (JudgeState's kinds, plus `none` for a
/// spec without judges).
enum class Judging : std::uint8_t { none, no_answer, pending, scored, invalid, failed };
const char* judging_name(Judging j);
std::optional<Judging> judging_of(const std::string& name);
inline constexpr const char* kJudgingNames[] = {"none", "no_answer", "pending", "scored", "invalid", "failed"};

/// One request of the plan and what the store holds for it.
struct AnswerRow {
  std::size_t request = 0;  ///< index into plan.requests (the row's id in the API)
  std::size_t prompt = 0;   ///< index into plan.prompts
  int seed = -1;            ///< index into spec.seeds (-1: a prompt whose seed is unknown)
  int model = 0, arm = 0;
  std::vector<int> levels;  ///< per factor of the spec
  std::string status;       ///< done, failed, or missing (nothing stored yet)
  std::string text;         ///< the answer (done) or empty
  std::string cause;        ///< failed: why
  Judging judging = Judging::none;
  std::vector<double> scores;           ///< per dimension of AnswerIndex::dims; NaN = N/A or unscored
  std::vector<std::string> rationales;  ///< per dimension; empty when the rater gives none
  std::vector<CriterionGrade> criteria;  ///< per criterion of the seed, when the rubric grades them
  std::string problem;                   ///< invalid or failed judging: what went wrong
  /// Per flag of the spec (spec.flags order): a unit flag that holds on this answer, or a
  /// pair flag that fires on a pair this answer is a side of.
  std::vector<std::uint8_t> flags;
  int score_row = -1;  ///< index into AnswerIndex::scores().rows, when scored
};

class AnswerIndex {
 public:
  /// Reads every answer and the scoring rater's (`spec.scores_rater`) verdicts from the
  /// store. Null with the reason in `outcome` when there is no store or it cannot be read.
  static std::unique_ptr<AnswerIndex> build(const Audit& audit, Outcome& outcome);

  const Audit& audit() const { return audit_; }
  const Spec& spec() const { return audit_.spec(); }
  const Plan& plan() const { return audit_.plan(); }
  const std::vector<AnswerRow>& rows() const { return rows_; }
  /// The scoring rater's name and dimensions ("" and none without judges).
  const std::string& rater() const { return scores_.rater; }
  const std::vector<std::string>& dims() const { return scores_.dims; }
  /// The scored answers as the analyses see them: what flag conditions are evaluated on.
  const analyze::ScoreTable& scores() const { return scores_; }
  /// Problems met while evaluating the flags (a condition that cannot be evaluated): the
  /// page shows them, since the flag then marks nothing.
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// The criteria texts of a seed under the scoring rubric (empty when none are graded).
  std::vector<std::string> criteria_texts(const AnswerRow& row) const;

 private:
  explicit AnswerIndex(const Audit& audit) : audit_(audit) {}
  void mark_flags();
  const Audit& audit_;
  std::vector<AnswerRow> rows_;
  analyze::ScoreTable scores_;
  std::vector<std::string> warnings_;
};

}  // namespace mirac::view
