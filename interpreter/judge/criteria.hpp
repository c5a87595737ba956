// criteria.hpp: per-criterion grading (HealthBench-style). A rubric's `criteria` block names
// a list in each seed's checklist; the judge grades every element as met or not met, in the
// answer's own judge reply (`per answer`) or in one call per element (`per element`), and a
// dimension with `from criteria { ... }` bands is scored from the share met. Pure, like
// judge.hpp: the same answer and element always give the same request.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "interpreter/model/ast.hpp"
#include "interpreter/judge/judge.hpp"
#include "interpreter/model/spec.hpp"

namespace mirac {

/// The rubric's criteria for one seed: the texts of the checklist list its `criteria` names
/// (empty when the rubric grades none, or the seed's checklist lacks the list).
std::vector<std::string> criteria_of(const Spec& spec, const ast::RubricDecl& rubric, const std::string& seed_id);

/// The checklist field a `criteria` block grades (`required_elements`), or "".
std::string criteria_field(const ast::CriteriaDecl& criteria);

/// A derived dimension's score for a share met (0..1): the first band that holds. NaN when
/// there is nothing to share (no criteria) or no band holds.
double score_from_bands(const ast::DimDecl& dim, double share_met);

/// Reads the `criteria` array of a reply that grades `expected` criteria; every problem
/// (missing, wrong length, an element without a boolean `met`) is added to `problems`.
std::vector<CriterionGrade> read_criteria_array(const nlohmann::json& reply, std::size_t expected,
                                                std::vector<std::string>& problems);

/// Reads the reply of one criterion's own call: `{"met": true, "quote": "..."}`. A problem
/// is set when the reply is unusable.
CriterionGrade read_criterion_reply(const std::string& reply, std::string& problem);

/// The paragraph of a judge's instructions that asks for the criteria in its reply
/// (`per answer`).
std::string criteria_instructions(const ast::CriteriaDecl& criteria);
/// The instructions of a criterion's own call (`per element`).
std::string criterion_task_instructions(const ast::CriteriaDecl& criteria);

/// JSON schema of one grade (OpenAI structured outputs).
nlohmann::json criterion_schema();

}  // namespace mirac
