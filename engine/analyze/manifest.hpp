// manifest.hpp: what results.json's manifest records of the run beyond the scores (the
// models and judges as sent and as answered, the plan's digest, the random seeds, the
// dates, whether the answers were simulated), and the provenance lines that open every
// CSV file of the results directory (docs/results.md, "manifest" and "Provenance").
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/analyze/context.hpp"
#include "interpreter/plan/plan.hpp"
#include "runtime/store/store.hpp"

namespace mirac::analyze {

/// What the manifest reads of a run besides the scores.
/// What the manifest says of the plan's stored answers: per model, the model strings its
/// provider returned (with how many answers each), and the first and last answer's times.
struct AnswerFacts {
  std::vector<std::map<std::string, std::size_t>> returned;  ///< per model of the spec
  double first_started = 0, last_ended = 0;                  ///< Unix seconds; meaningless when `answers` is 0
  std::size_t answers = 0;                                   ///< done answers of the plan's requests
};

/// One scan of `store`'s done answers, matched to `plan`'s requests by hash: no map of
/// every answer (at ten times MIRA a stamp each was 170 MB).
AnswerFacts answer_facts(const Plan& plan, std::size_t models, Store& store);

struct RunFacts {
  const Plan& plan;
  const SourceManager& sources;  ///< the judges' instructions quote the rubric's source text
  bool offline = false;          ///< `--offline`: the built-in provider answered and judged everything
  double analyzed_at = 0;        ///< Unix seconds
  /// What the store's done answers say of the run when the scores come from the run store;
  /// null with `--scores FILE`, whose answers this run knows nothing of.
  const AnswerFacts* answers = nullptr;
  /// The scores file's own provenance lines say its answers were simulated.
  bool scores_simulated = false;
};

/// Names of the models (or judges) whose provider is the built-in offline one.
std::vector<std::string> simulated_models(const Spec& spec);
std::vector<std::string> simulated_judges(const Spec& spec);
/// Whether the answers analyzed were simulated: `--offline`, every model on the offline
/// provider, or a scores file that says so.
bool answers_simulated(const Spec& spec, const RunFacts& run);

/// Adds the files read since the spec was checked (the table an `against csv(...)` names,
/// which its analysis reads) to `manifest`'s `inputs`; those listed already stay as they are.
void add_late_inputs(nlohmann::ordered_json& manifest, const SourceManager& sources);

/// Adds to `manifest` (analyze::manifest()'s) the files read since the spec was checked to
/// `inputs`, and `simulated`, `simulated_models`, `simulated_judges`, `models`, `judges`,
/// `plan`, `random_seeds` and `dates`.
void add_run_facts(nlohmann::ordered_json& manifest, const Spec& spec, const RunFacts& run,
                   const AnalyzeOptions& options);

/// SHA-256 of the plan's request hashes joined by "\n", in plan order: one string that
/// changes when any request would be sent differently.
std::string request_digest(const Plan& plan);

/// Unix seconds as UTC ISO 8601 (`2026-01-01T12:00:00Z`).
std::string utc_iso8601(double unix_seconds);

/// Where a CSV file's numbers come from, as its opening `# ` lines say.
struct Provenance {
  std::string spec_name, spec_sha256;
  std::string scores_sha256;  ///< empty for scores.csv itself
  bool simulated = false;
  std::vector<std::string> simulated_models;  ///< named when only some models are simulated
};

/// The `# ` lines (each ending in "\n"); CSV readers skip them (mirac's own, pandas with
/// `comment="#"`, R's read.csv with `comment.char = "#"`).
std::string csv_provenance(const Provenance& provenance);
/// Whether a CSV text's provenance lines say its answers were simulated.
bool csv_says_simulated(const std::string& text);

}  // namespace mirac::analyze
