// judge.hpp: the judge phase's compile-time half. From a rubric, the judge's instructions
// (system prompt) and reply schema; from a stored answer, the judge's request; from the
// judge's reply, the scores, checked against the rubric's scale and `na when` rules.
// Pure: no I/O, so the same answer always gives the same request and the same hash.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "interpreter/plan/plan.hpp"
#include "interpreter/model/source.hpp"
#include "interpreter/model/spec.hpp"

namespace mirac {

/// Everything needed to judge the answers of one plan with one judge.
class JudgeBuilder {
 public:
  /// `sources` gives the text of the rubric's `na when` and `against` expressions, which
  /// the instructions quote.
  /// `rubric`, when not empty, replaces the judge's own rubric (an invariance check that
  /// judges the same answers with another rubric): its requests are the judge's in every
  /// other respect.
  JudgeBuilder(const Spec& spec, const SourceManager& sources, int judge, const std::string& rubric = "");

  const Judge& judge() const { return spec_.judges[judge_]; }
  const ast::RubricDecl& rubric() const { return *rubric_; }
  /// The rubric's dimension names, in rubric order.
  const std::vector<std::string>& dims() const { return dims_; }
  /// The system prompt: the rubric in prose and the reply format.
  const std::string& instructions() const { return *instructions_; }
  /// JSON schema of a valid reply (OpenAI structured outputs).
  const nlohmann::json& reply_schema() const { return reply_schema_; }

  /// The user message for one answer: context (seed fields and the cell's levels; never
  /// the model or arm, so the judge is blind to them), the prompt, the answer and the
  /// seed's checklist.
  std::string message(const Plan& plan, const RequestRow& request, const std::string& answer) const;
  /// The message before the answer, and after it: they depend on the prompt alone.
  std::string message_start(const Plan& plan, const RequestRow& request) const;
  std::string message_end(const Plan& plan, const RequestRow& request) const;

  /// The judge's request for one answer. `repair` (empty for the first attempt) is what was
  /// wrong with the reply of round `round - 1`; a repair request restates it with its round,
  /// so it has its own hash even when a judge repeats a mistake.
  /// `max_tokens` (when > 0) replaces the judge's token limit: the repair of a reply cut at
  /// its limit asks again with room to finish.
  ModelCall call(const Plan& plan, const RequestRow& request, const std::string& answer,
                 const std::string& repair = "", int round = 1, long long max_tokens = 0) const;
  /// `call(...).hash` without building the call: what finding a stored judgment needs.
  std::string call_hash(const Plan& plan, const RequestRow& request, const std::string& answer,
                        const std::string& repair = "", int round = 1, long long max_tokens = 0) const;
  /// What the first calls for one prompt's answers share (every model and arm), hashed
  /// once: `first_call_hash(prompt_hashing(plan, r), answer)` is `call_hash(plan, r, answer)`
  /// for one escape and SHA-256 of the answer alone.
  struct PromptHashing {
    Sha256 before_answer;      ///< the state after the message's start
    std::string after_answer;  ///< the message's end, as hashed
  };
  PromptHashing prompt_hashing(const Plan& plan, const RequestRow& request) const;
  std::string first_call_hash(const PromptHashing& shared, const std::string& answer) const;
  /// What every request of this judge shares apart from its message (provider, model,
  /// parameters, reply schema, the instructions' hash), for its own and its criteria's calls.
  std::string request_identity() const { return hasher_.head() + '\n' + criterion_hasher_.head(); }
  /// The spec's sources and data, as the judge's instructions quote them.
  const SourceManager& sources() const { return sources_; }
  /// The judge's own token limit (`max_tokens`, else 1024, the scheduler's default).
  long long token_limit() const;

  /// Whether this judge's answers need a call of their own per criterion (`per element`).
  bool grades_per_element() const { return criterion_instructions_ != nullptr; }
  /// Whether the judge is asked for any score or the criteria in the answer's own call (a
  /// rubric of only derived dimensions graded per element needs none).
  bool asks_scores() const;
  /// The call that grades criterion `index` of the answer's seed (`per element`).
  ModelCall criterion_call(const Plan& plan, const RequestRow& request, const std::string& answer, std::size_t index,
                           const std::string& repair = "", int round = 0) const;
  /// `criterion_call(...).hash` without building the call.
  std::string criterion_call_hash(const Plan& plan, const RequestRow& request, const std::string& answer,
                                  std::size_t index, const std::string& repair = "", int round = 0) const;

 private:
  std::string criterion_message(const Plan& plan, const RequestRow& request, const std::string& answer,
                                std::size_t index, const std::string& repair, int round) const;
  ModelCall base_call(const nlohmann::json& schema, const char* schema_name, long long max_tokens) const;
  static void seal(ModelCall& c, const std::string& system_sha256);
  const Spec& spec_;
  const SourceManager& sources_;
  int judge_;
  const ast::RubricDecl* rubric_ = nullptr;
  std::vector<std::string> dims_;
  std::shared_ptr<const std::string> instructions_;
  std::string system_sha256_;
  std::shared_ptr<const std::string> criterion_instructions_;  ///< `per element` only
  /// Built once: every judge request carries it, and building it per request took a
  /// tenth of the time `mirac view` and `mirac status` spend finding 43,200 judgments.
  nlohmann::json reply_schema_;
  nlohmann::json build_reply_schema() const;
  std::string criterion_sha256_;
  UserMessageHasher hasher_;            ///< call() at the judge's own token limit
  UserMessageHasher criterion_hasher_;  ///< criterion_call()
  double lo_ = 1, hi_ = 5;
  friend class ScoreReader;
};

/// A criterion's grade: met or not, and the answer's words that meet it.
struct CriterionGrade {
  bool met = false;
  std::string quote;
};

/// A judge reply read against the rubric.
struct JudgedScores {
  std::vector<double> scores;            ///< per dimension, NaN = N/A
  std::vector<std::string> rationale;    ///< per dimension, may be empty
  std::vector<CriterionGrade> criteria;  ///< per criterion of the seed (rubrics with `criteria`)
  std::string problem;                   ///< empty when the reply is valid
  bool ok() const { return problem.empty(); }
};

/// Reads judge replies: tolerant of Markdown fences and text around the JSON object,
/// strict about the scores. A dimension whose `na when` holds is N/A whatever the judge
/// said; elsewhere a missing, non-integer, out-of-scale or N/A score is a problem.
class ScoreReader {
 public:
  ScoreReader(const Spec& spec, const JudgeBuilder& builder) : spec_(spec), builder_(builder) {}
  /// `grades` are the criteria graded by calls of their own (`per element`); otherwise the
  /// reply grades them. `reply` is empty when the judge was asked for nothing but those.
  JudgedScores read(const Plan& plan, const RequestRow& request, const std::string& reply,
                    const std::vector<CriterionGrade>* grades = nullptr) const;

 private:
  const Spec& spec_;
  const JudgeBuilder& builder_;
};

/// What a repair request adds to the message it repairs: the round and the problems.
std::string repair_note(const std::string& repair, int round);

/// The first JSON object in `text` (after stripping ``` fences), or nullopt.
std::optional<nlohmann::json> extract_json_object(const std::string& text);

}  // namespace mirac
