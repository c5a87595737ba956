// judge_phase.hpp: the judge phase of `mirac run` and the scores `mirac analyze` reads
// from a run store. Judge replies are stored like any answer (content-addressed, never
// paid twice); the scores are read from them against the rubric whenever needed, so the
// store holds the raw evidence and the rubric's rules are applied in one place.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/selection.hpp"
#include "interpreter/judge/judge.hpp"
#include "interpreter/scores/scores.hpp"
#include "runtime/scheduler/run_plan.hpp"
#include "runtime/store/store.hpp"

namespace mirac {

/// Where one answer stands with one judge.
struct JudgeState {
  enum class Kind {
    no_answer,  ///< the answer itself is not in the store (or failed)
    pending,    ///< the judge call `next` has not been answered yet
    scored,     ///< `scores` is valid
    invalid,    ///< every reply so far was unusable (last problem in `scores.problem`)
    failed,     ///< the judge call failed (its cause in `cause`)
  };
  Kind kind = Kind::no_answer;
  JudgedScores scores;
  /// What to send: the answer's judge call and, for criteria graded `per element`, the
  /// calls of criteria not graded yet. Failed calls are sent again by the next run.
  std::vector<ModelCall> pending_calls, failed_calls;
  /// The first call to send (pending before failed), or null.
  const ModelCall* next_call() const {
    return !pending_calls.empty() ? &pending_calls.front() : !failed_calls.empty() ? &failed_calls.front() : nullptr;
  }
  std::string cause;
  int round = 0;                  ///< 0 = first request, 1.. = repair requests
  std::string judge_hash;         ///< the judge request of `round` (whose reply this describes)
  int rounds = 0;                 ///< the last round of any of its chains (`per element`: one per criterion)
  /// Read from the judgments the store keeps (judgment_cache.hpp): scores and the criteria
  /// met, without rationales or quotes.
  bool from_cache = false;
};

/// What a reader of judgments needs: the scores (and the criteria met), which the store's
/// kept judgments give at once, or also the judges' rationales and quotes, read from
/// every reply.
enum class JudgmentDetail { scores, texts };

/// The state of the judgment of `text` as the answer to the plan's request `row`: a text
/// that is not the stored answer (an invariance check's translation of another answer),
/// with its repairs as for an answer. Not kept among the store's judgments.
JudgeState resolve_text_judging(const Spec& spec, const Plan& plan, const JudgeBuilder& judge, Store& store,
                                std::size_t row, const std::string& text, int max_repairs);

class JudgmentCache;

/// Resolves the judgments of requests with one judge, block by block if need be: what the
/// store keeps of scored judgments is loaded once, not once a block.
class JudgingResolver {
 public:
  /// Each answer and reply is read from the store when its request is resolved: a caller
  /// bounds the memory by resolving a block at a time (inside a Store::ReadTransaction when
  /// it only reads, so that the look-ups share one file lock).
  JudgingResolver(const Spec& spec, const Plan& plan, const JudgeBuilder& judge, Store& store, int max_repairs,
                  JudgmentDetail detail);
  ~JudgingResolver();
  /// The state of each request in `rows` (indices into plan.requests).
  std::vector<JudgeState> resolve(const std::vector<std::size_t>& rows);

 private:
  const Spec& spec_;
  const Plan& plan_;
  const JudgeBuilder& judge_;
  Store& store_;
  int max_repairs_;
  std::unique_ptr<JudgmentCache> kept_;  /// null: JudgmentDetail::texts
};

/// Answers a judge round resolves at once: their pending judge requests (a few kilobytes
/// each) are what the round holds in memory until the sender takes them.
inline constexpr std::size_t kJudgeBlockAnswers = 4096;

/// Resolves the state of each request in `rows` (indices into plan.requests) with one
/// judge, reading answers and judge replies from `store`. A reply the rubric rejects
/// leads to a repair request (its problem restated) while `round < max_repairs`.
/// With JudgmentDetail::scores, scored judgments come from (and newly scored ones go to) the
/// judgments the store keeps.
std::vector<JudgeState> resolve_judging(const Spec& spec, const Plan& plan, const JudgeBuilder& judge, Store& store,
                                        const std::vector<std::size_t>& rows, int max_repairs,
                                        JudgmentDetail detail = JudgmentDetail::texts);

/// Where a group of answers stands with one judge.
struct JudgeStates {
  std::size_t answers = 0, scored = 0, invalid = 0, failed = 0, pending = 0;
  std::size_t unscored() const { return answers - scored; }
  void add(JudgeState::Kind kind);  ///< no_answer is not counted
};

/// The states of `rows` (with `states` their resolution) per level of every factor:
/// [factor][level].
std::vector<std::vector<JudgeStates>> states_by_level(const Spec& spec, const Plan& plan,
                                                      const std::vector<std::size_t>& rows,
                                                      const std::vector<JudgeState>& states);

/// The same, added to `into` (sized to the spec's factors and levels if it is not).
void add_states_by_level(const Spec& spec, const Plan& plan, const std::vector<std::size_t>& rows,
                         const std::vector<JudgeState>& states, std::vector<std::vector<JudgeStates>>& into);

/// One warning per factor whose levels' unscored shares differ by more than 5 points: the
/// analyses leave unscored answers out, so such a skew biases every contrast of the factor.
std::vector<std::string> unscored_skews(const Spec& spec, const std::vector<std::vector<JudgeStates>>& by_level);

struct JudgePhaseSummary {
  std::size_t answers = 0;   ///< requests with a stored answer
  std::size_t scored = 0;
  std::size_t invalid = 0;   ///< judged, but no usable reply within the repair rounds
  std::size_t failed = 0;    ///< the judge call failed
  std::size_t pending = 0;   ///< not judged (cancelled, budget, provider stopped)
  std::vector<RunSummary> rounds;  ///< one per send round
  std::vector<std::string> problems;  ///< a few examples of unusable replies
  std::vector<std::vector<JudgeStates>> by_level;  ///< [factor][level], as the counts above
  bool stopped = false;      ///< cancelled or a fatal error: later phases should not run
  /// Every selected answer has a usable score.
  bool complete() const { return pending == 0 && failed == 0 && invalid == 0; }
  double spend_usd() const;  ///< over every round
};

/// Sends the judge calls for `rows` (and repair calls for unusable replies, up to
/// `max_repairs` rounds) through the scheduler into `store`, whose run lock the caller may
/// hold across every round.
JudgePhaseSummary run_judge_phase(const Spec& spec, const Plan& plan, const JudgeBuilder& judge, Store& store,
                                  const std::vector<std::size_t>& rows,
                                  int max_repairs, const SchedulerOptions& options, const std::atomic<bool>& cancel,
                                  const RunHooks& hooks);

/// The judge step of `mirac run`: judge `judge` (an index into spec.judges) over the
/// selected answers, within what the budget has left after `spent_usd`.
JudgePhaseSummary judge_answers(const Audit& audit, Store& store, std::size_t judge, const Selection& selection,
                                double spent_usd, const std::atomic<bool>& cancel, const RunHooks& hooks);

/// The score table of every request in the plan that `judge` has scored, in plan order,
/// as `mirac analyze` reads it (`table.path` names the store).
analyze::ScoreTable scores_from_store(const Spec& spec, const Plan& plan, const JudgeBuilder& judge, Store& store,
                                      int max_repairs);

/// A score table as a scores CSV (docs/results.md, "Scores file"), which `mirac analyze
/// --scores` reads back to the same table.
std::string scores_csv(const Spec& spec, const analyze::ScoreTable& table);
/// The same, handed to `write_text` a line at a time: a run's analysis writes it to its
/// file and hashes it without holding the whole text (78 MB at ten times MIRA).
void write_scores_csv(const Spec& spec, const analyze::ScoreTable& table,
                      const std::function<void(std::string_view)>& write_text);

}  // namespace mirac
