// status.hpp: how much of a spec's plan is done, failed and pending in the run store: in
// all, per model and arm, per level of every factor; and where the stored answers stand
// with each judge. `mirac status` prints it; a viewer or an embedding program reads it.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/judge/invariance_phase.hpp"
#include "engine/judge/judge_phase.hpp"
#include "engine/selection.hpp"
#include "engine/send/answer_marks.hpp"
#include "runtime/store/batch_store.hpp"
#include "runtime/store/hash_key.hpp"

namespace mirac {

/// Where one request hash stands in the store.
struct HashState {
  bool done = false;
  std::string cause;  ///< non-empty: failed, for this cause
};

/// Counts over one group of requests. A hash counts once per group, as in Store::status:
/// identical requests (two arms sending the same thing) share one answer.
struct Tally {
  StatusReport report;
  OncePerGroup counted;  ///< the hashes counted, each once
  /// Counts the selected request at `position` of the selection `hashes` describes.
  void add(const HashOccurrences& hashes, std::size_t position, const HashState* state);  ///< null: pending
};

struct JudgingCounts : JudgeStates {
  std::string judge, model;
  std::vector<std::vector<JudgeStates>> by_level;  ///< [factor][level]
};

struct RunStatus {
  std::size_t plan_requests = 0;  ///< in the whole plan
  std::size_t requests = 0;       ///< selected
  bool store_exists = false;      ///< without a store every request is pending
  Tally all;
  std::vector<std::pair<std::string, Tally>> model_arm;  ///< "model/arm", in spec order
  std::vector<std::vector<Tally>> levels;                ///< [factor][level]
  std::vector<std::vector<std::size_t>> level_requests;  ///< selected requests per level
  std::vector<JudgingCounts> judging;                    ///< one per judge
  std::vector<InvarianceSummary> invariance;             ///< one per invariance analysis
  AnswerMarks marks;  ///< done answers cut, past an ignored limit, or from a shortened prompt
  double spend_usd = 0;                                  ///< everything the store has paid
  /// Selected requests not done in the store whose answer waits in the journal (a run
  /// whose store refused writes spilled them there; the next run stores them first).
  std::size_t journaled = 0;
  /// Every batch the store has sent (`batch true`, `--batch`), oldest first.
  std::vector<BatchRecord> batches;
};

/// The status of the requests `audit.options.only` selects. Reads the store without
/// creating one. Judge replies still unusable after `options.repairs` repairs are unusable.
Outcome audit_status(const Audit& audit, RunStatus& status);

/// `mirac status --json` (docs/cli.md).
nlohmann::ordered_json status_json(const Audit& audit, const RunStatus& status);

}  // namespace mirac
