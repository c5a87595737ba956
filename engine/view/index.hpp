// index.hpp: what `mirac view` serves, built once from the audit and its run store: a row
// per request of the plan with what filters, sorting, flags and pairs read (ids, the
// answer's status, where it stands with the scoring rater, the rater's scores and which of
// the spec's flags it sets), in a few bytes and plain arrays. Queries (query.hpp) run over
// them in memory, so filtering a full store takes milliseconds, not a store read.
//
// The texts a page shows (the answer, why it failed, the judge's rationales, criteria and
// problems) stay in the store: they are most of a store's size (1.5 GiB held at ten times
// MIRA), and a page shows a few dozen of them. texts() reads those of a page's rows when
// the page is served, from the store the index keeps open.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/session.hpp"
#include "interpreter/judge/judge.hpp"
#include "interpreter/scores/scores.hpp"
#include "runtime/store/store.hpp"

namespace mirac::view {

/// Where an answer stands with the scoring rater (JudgeState's kinds, plus `none` for a
/// spec without judges).
enum class Judging : std::uint8_t { none, no_answer, pending, scored, invalid, failed };
const char* judging_name(Judging j);
std::optional<Judging> judging_of(const std::string& name);
inline constexpr const char* kJudgingNames[] = {"none", "no_answer", "pending", "scored", "invalid", "failed"};

/// What the store holds of a request: nothing yet, an answer, or a failure.
enum class AnswerStatus : std::uint8_t { missing, done, failed };
const char* status_name(AnswerStatus s);
std::optional<AnswerStatus> status_of(const std::string& name);
inline constexpr const char* kStatusNames[] = {"missing", "done", "failed"};

/// One request of the plan and where it stands: 24 bytes, so that the index of ten times
/// MIRA (432,000 requests) is a few megabytes. Its levels are its prompt's
/// (AnswerIndex::levels), its scores and flags are in the index's arrays (score(), flagged()).
struct AnswerRow {
  std::uint32_t request = 0;  ///< index into plan.requests and into rows() (the row's id in the API)
  std::uint32_t prompt = 0;   ///< index into plan.prompts
  int seed = -1;              ///< index into spec.seeds (-1: a prompt whose seed is unknown)
  std::uint16_t model = 0, arm = 0;
  AnswerStatus status = AnswerStatus::missing;
  Judging judging = Judging::none;
  int score_row = -1;  ///< the row's place among the scored ones (the index's scores), when scored
};

/// What a page shows of an answer that the index does not hold, read from the store.
struct AnswerTexts {
  std::string text;                      ///< the answer (done) or empty
  std::string cause;                     ///< failed: why
  std::vector<std::string> rationales;   ///< per dimension; empty when the rater gives none
  std::vector<CriterionGrade> criteria;  ///< per criterion of the seed, when the rubric grades them
  std::string problem;                   ///< invalid, pending or failed judging: what went wrong
};

class AnswerIndex {
 public:
  /// Reads every answer's status and the scoring rater's (`spec.scores_rater`) scores from
  /// the store, and keeps the store open for texts(). Null with the reason in `outcome` when
  /// there is no store or it cannot be read.
  static std::unique_ptr<AnswerIndex> build(const Audit& audit, Outcome& outcome);
  ~AnswerIndex();

  const Audit& audit() const { return audit_; }
  const Spec& spec() const { return audit_.spec(); }
  const Plan& plan() const { return audit_.plan(); }
  const std::vector<AnswerRow>& rows() const { return rows_; }
  /// The row's level of each factor of the spec (its prompt's).
  const std::vector<int>& levels(const AnswerRow& row) const { return plan().prompts[row.prompt].levels; }
  /// The scoring rater's name and dimensions ("" and none without judges).
  const std::string& rater() const { return table_.rater; }
  const std::vector<std::string>& dims() const { return table_.dims; }
  /// The row's score on dimension `d` of dims(): NaN when N/A or not scored.
  double score(const AnswerRow& row, std::size_t d) const;
  /// Every dimension's score (NaN: N/A or not scored), in dims() order.
  std::vector<double> scores(const AnswerRow& row) const;
  /// Whether flag `f` (spec.flags order) marks the row: a unit flag that holds on this
  /// answer, or a pair flag that fires on a pair this answer is a side of.
  bool flagged(const AnswerRow& row, std::size_t f) const { return flags_[row.request * flag_count_ + f] != 0; }
  /// The scored row as the analyses see it (a ScoreTable's row: what flag conditions are
  /// evaluated on), into `out`, whose vectors are reused. False when the row is not scored.
  bool score_row(const AnswerRow& row, analyze::ScoreRow& out) const;
  /// The table flag conditions are evaluated against: the rater, its dimensions and no rows
  /// (score_row() gives them one at a time).
  const analyze::ScoreTable& table() const { return table_; }
  /// Problems met while evaluating the flags (a condition that cannot be evaluated): the
  /// page shows them, since the flag then marks nothing.
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// The criteria texts of a seed under the scoring rubric (empty when none are graded).
  std::vector<std::string> criteria_texts(const AnswerRow& row) const;

  /// The texts of `rows` (indices into rows()), as the store holds them now: the answers'
  /// and, with `judgments` and a judge as the scoring rater, the judgments' rationales,
  /// criteria and problems (their replies read and parsed). A page's worth at a time: each
  /// row is a few look-ups by hash. Safe from several threads at once (they take turns on
  /// the store).
  std::vector<AnswerTexts> texts(const std::vector<std::size_t>& rows, bool judgments) const;

 private:
  explicit AnswerIndex(const Audit& audit) : audit_(audit) {}
  void read_statuses();
  void read_judge(int judge);
  void read_rater(const std::string& rater);
  void add_scored(AnswerRow& row, const std::vector<double>& scores, const std::vector<std::uint8_t>& criteria);
  void mark_flags();
  const Audit& audit_;
  std::vector<AnswerRow> rows_;
  analyze::ScoreTable table_;  ///< dims and rater only
  /// The scored rows' scores, dims().size() each, by AnswerRow::score_row, and the
  /// criteria they met: those of scored row k are criteria_met_[criteria_start_[k] ..
  /// criteria_start_[k + 1]).
  std::vector<double> scores_;
  std::vector<std::uint8_t> criteria_met_;
  std::vector<std::uint32_t> criteria_start_{0};
  std::size_t flag_count_ = 0;
  std::vector<std::uint8_t> flags_;  ///< flag_count_ per row
  std::vector<std::string> warnings_;
  /// What texts() reads with. SQLite statements are not for two threads at once, and a
  /// page's reads take milliseconds, so the server's threads share one store in turns
  /// rather than each opening its own (and warming its own cache of the store's rows).
  mutable std::mutex store_mutex_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<JudgeBuilder> judge_;  ///< the scoring rater's, when it is a judge
};

}  // namespace mirac::view
