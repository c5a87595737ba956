// invariance_phase.hpp: the invariance step of `mirac run` and the re-judged scores
// `mirac analyze` reads (docs/judging.md, "Judge invariance"). After the judges, each
// `invariance` analysis has its sampled answers translated into the other level of its
// factor, then judged again as answers to the other level's prompt, or judged again with
// its other rubric. Translations and
// judgments are stored like every request: content-addressed, never paid twice, resumed by
// the next run.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "engine/judge/judge_phase.hpp"
#include "interpreter/judge/invariance.hpp"

namespace mirac {

/// What one invariance check sent and where its sample stands.
struct InvarianceSummary {
  std::string name;
  std::string rubric;          ///< the check's other rubric; empty for a translation
  std::size_t sampled = 0;     ///< answers in the sample that this run selected
  std::size_t answered = 0;    ///< of them, with a stored answer
  std::size_t translated = 0;  ///< with a usable translation (for a rubric: = answered)
  std::size_t cut = 0;         ///< translations cut at their token limit: left out
  std::size_t scored = 0;      ///< translations judged with a usable reply
  std::size_t invalid = 0, failed = 0, pending = 0;  ///< as JudgePhaseSummary counts them
  std::vector<RunSummary> rounds;  ///< the translation round, then the judge's
  bool stopped = false;            ///< cancelled or a fatal error
  bool complete() const { return pending == 0 && failed == 0 && invalid == 0 && translated + cut == answered; }
  double spend_usd() const;
  /// One line for people, as `mirac run` and `mirac status` print it: "invariance NAME: 480
  /// sampled answers, 480 translated, 480 judged again, 0 unusable replies, ...".
  std::string describe() const;
};

/// The invariance step of `mirac run` over the selected answers, within what the budget
/// has left after `spent_usd`: one summary per `invariance` analysis.
std::vector<InvarianceSummary> check_invariance(const Audit& audit, Store& store, const Selection& selection,
                                                double spent_usd, const std::atomic<bool>& cancel, const RunHooks& hooks);

/// Where each check's sample stands in `store` (null: nothing stored), sending nothing:
/// `mirac status`. The counts are those `mirac run` prints after the check.
std::vector<InvarianceSummary> invariance_status(const Audit& audit, Store* store, const Selection& selection);

/// The scores the check's judge gave the translations, each as a row of the answer that was
/// translated (its seed, model, arm and levels): the rater `check.name` of the analyses.
analyze::ScoreTable invariance_scores(const Spec& spec, const Plan& plan, const SourceManager& sources, Store& store,
                                      const InvarianceCheck& check, int max_repairs);

}  // namespace mirac
