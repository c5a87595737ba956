// invariance.hpp: what an `invariance` analysis asks for (docs/judging.md, "Judge
// invariance"). A sample of the answers at two levels of a factor (zh and en) is judged
// again by the same judge under a change that should not move a score:
//   translate: each answer is translated into the other level by a declared translator
//     model and judged as the answer to the prompt of the other level. A judge that scores
//     content alike in both languages gives the translation the original's score, up to
//     what translation loses; what it adds to one language shows as opposite shifts.
//   rubric: each answer is judged again, as the answer to its own prompt, with another
//     rubric (the rubric in the other language, or reworded). A shift that differs between
//     the levels is a part of the level effect that depends on the rubric's wording.
// Pure: the requests are built from the plan and the stored answers' text; nothing is sent.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "interpreter/plan/plan.hpp"
#include "interpreter/model/spec.hpp"

namespace mirac {

/// An `invariance` analysis's options, resolved against the spec.
struct InvarianceCheck {
  const ast::AnalysisDecl* decl = nullptr;
  std::string name;   ///< the analysis's name: also the rater its re-judged scores go by
  int judge = -1;     ///< index into spec.judges
  int factor = -1;    ///< the factor whose levels the answers are translated between, or compared
  int level_a = -1, level_b = -1;  ///< an answer at one is translated into the other
  /// `rubric NAME`: the rubric the answers are judged again with; empty for a translation.
  std::string rubric;
  bool translates() const { return rubric.empty(); }
  /// Provider, model and parameters of the translator; each request sets the messages.
  ModelCall translator;
  /// How to translate into each level of `factor` (the system message), by level index.
  std::vector<std::string> instructions;
  /// Answers per level and per model and arm (0: every answer).
  std::size_t sample = 0;
  /// The analysis's `where`: which answers may be sampled (it reads no scores).
  const ast::Expr* where = nullptr;
};

/// Parameters of a translator: deterministic and with room for a long answer. Not taken from
/// the spec's `defaults`, which are the audited models' settings.
inline constexpr long long kTranslatorMaxTokens = 4096;

/// The spec's `invariance` analyses, in declaration order. The spec has been checked: an
/// analysis whose options did not resolve is left out.
std::vector<InvarianceCheck> invariance_checks(const Spec& spec);

/// The translation instruction `mirac` uses when the analysis gives none for `level`.
std::string default_translation_instruction(const Factor& factor, int level);

/// One sampled answer: the plan's request `row` (at level_a or level_b), and the request
/// whose prompt it is judged again as the answer to: for a translation, the request at the
/// other level with the same seed, other levels, model, arm and answer number; for a
/// rubric, `row` itself.
struct InvarianceItem {
  std::size_t row = 0;
  std::size_t counterpart = 0;
  int target_level = -1;  ///< the level the answer is translated into (its own, for a rubric)
};

/// The sample: for each model and arm, `check.sample` answers' pairs (both levels of one
/// seed and cell), chosen by a hash of the analysis's name and the pair, so the same spec
/// samples the same answers and a larger sample keeps the smaller one's. `where` is
/// evaluated per answer; a pair is kept when both of its answers pass. Problems
/// evaluating it go to `diags`.
std::vector<InvarianceItem> invariance_sample(const Spec& spec, const Plan& plan, const InvarianceCheck& check,
                                              Diagnostics& diags);

/// The translator's request for one answer: the instruction for `target_level` as the
/// system message and the answer as the user message, hashed as every request is.
ModelCall translation_call(const InvarianceCheck& check, int target_level, const std::string& answer);

}  // namespace mirac
