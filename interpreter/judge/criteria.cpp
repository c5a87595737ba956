#include "interpreter/judge/criteria.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "interpreter/judge/judge.hpp"
#include "runtime/judge/message_format.hpp"

namespace mirac {

std::string criteria_field(const ast::CriteriaDecl& criteria) {
  const auto* f = std::get_if<ast::Field>(&criteria.source.node);
  return f ? f->field.name : "";
}

std::vector<std::string> criteria_of(const Spec& spec, const ast::RubricDecl& rubric, const std::string& seed_id) {
  std::vector<std::string> out;
  if (!rubric.criteria) return out;
  auto it = spec.checklists.find(seed_id);
  if (it == spec.checklists.end()) return out;
  auto list = it->second.find(criteria_field(*rubric.criteria));
  if (list == it->second.end() || !list->is_array()) return out;
  for (const auto& item : *list) out.push_back(item.is_string() ? item.get<std::string>() : item.dump());
  return out;
}

double score_from_bands(const ast::DimDecl& dim, double share_met) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(share_met)) return nan;
  for (const auto& band : dim.bands) {
    const auto* score = std::get_if<ast::NumberLit>(&band.score.node);
    if (!score) continue;
    if (!band.at_least) return score->value;
    const auto* t = std::get_if<ast::NumberLit>(&band.at_least->node);
    // A share is met/n: compare with a little slack so that 0.8 holds for 4 of 5.
    if (t && share_met + 1e-12 >= t->value) return score->value;
  }
  return nan;
}

namespace {

std::optional<bool> met_of(const nlohmann::json& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "true" || s == "yes" || s == "met") return true;
    if (s == "false" || s == "no" || s == "not met") return false;
  }
  if (v.is_number_integer() && (v.get<int>() == 0 || v.get<int>() == 1)) return v.get<int>() == 1;
  return std::nullopt;
}

CriterionGrade grade_of(const nlohmann::json& item, const std::string& where, std::vector<std::string>& problems) {
  CriterionGrade g;
  if (!item.is_object() || !item.contains("met")) {
    problems.push_back(fmt::format("{} has no \"met\"", where));
    return g;
  }
  std::optional<bool> met = met_of(item["met"]);
  if (!met) problems.push_back(fmt::format("{}'s \"met\" is {}, not true or false", where, item["met"].dump()));
  g.met = met.value_or(false);
  if (item.contains("quote") && item["quote"].is_string()) g.quote = item["quote"].get<std::string>();
  return g;
}

}  // namespace

std::vector<CriterionGrade> read_criteria_array(const nlohmann::json& reply, std::size_t expected,
                                                std::vector<std::string>& problems) {
  std::vector<CriterionGrade> out;
  auto it = reply.find("criteria");
  if (it == reply.end() || !it->is_array()) {
    problems.push_back(it == reply.end() ? "criteria is missing" : "criteria is not an array");
    return out;
  }
  if (it->size() != expected) {
    problems.push_back(fmt::format("criteria has {} grades for {} criteria (one per criterion, in the order listed)",
                                   it->size(), expected));
    return out;
  }
  for (std::size_t i = 0; i < it->size(); ++i)
    out.push_back(grade_of((*it)[i], fmt::format("criterion {}", i + 1), problems));
  return out;
}

CriterionGrade read_criterion_reply(const std::string& reply, std::string& problem) {
  std::optional<nlohmann::json> obj = extract_json_object(reply);
  if (!obj) {
    problem = "the reply holds no JSON object";
    return {};
  }
  std::vector<std::string> problems;
  CriterionGrade g = grade_of(*obj, "the reply", problems);
  problem = problems.empty() ? "" : problems.front();
  return g;
}

namespace {

std::string met_means(const ast::CriteriaDecl& criteria) {
  return criteria.description ? criteria.description->value
                              : "the answer states it, correctly and specifically enough to be of use; the wording may "
                                "differ";
}

}  // namespace

std::string criteria_instructions(const ast::CriteriaDecl& criteria) {
  return fmt::format(
      "\nCriteria: the message ends with numbered criteria, the elements of the checklist's {}. Grade each one on its "
      "own. Met means: {}\n\"criteria\" is an array with one object per criterion, in the order listed: {{\"met\": "
      "true or false, \"quote\": the answer's words that meet it (at most 25 words), or \"\" when it is not met}}.\n",
      criteria_field(criteria), met_means(criteria));
}

std::string criterion_task_instructions(const ast::CriteriaDecl& criteria) {
  return fmt::format(
      "{}\n\nThe criterion is one element of the reference checklist for the user's question. Met means: {}\nJudge "
      "the answer alone, not the prompt; an answer that refuses meets nothing.\n\nReply with one JSON object and "
      "nothing else: {{\"met\": true or false, \"quote\": the answer's words that meet the criterion (at most 25 "
      "words), or \"\" when it is not met}}.\n",
      judge_format::kCriterionTask, met_means(criteria));
}

nlohmann::json criterion_schema() {
  return {{"type", "object"},
          {"properties", {{"met", {{"type", "boolean"}}}, {"quote", {{"type", "string"}}}}},
          {"required", {"met", "quote"}},
          {"additionalProperties", false}};
}

}  // namespace mirac

namespace mirac {

bool JudgeBuilder::asks_scores() const {
  if (rubric_->criteria && !rubric_->criteria->per_element()) return true;
  for (const auto& d : rubric_->dims)
    if (d.asked_of_judge()) return true;
  return false;
}

std::string JudgeBuilder::criterion_message(const Plan& plan, const RequestRow& request, const std::string& answer,
                                            std::size_t index, const std::string& repair, int round) const {
  const PromptRow& prompt = plan.prompts[request.prompt];
  const std::vector<std::string> criteria = criteria_of(spec_, *rubric_, prompt.seed);
  std::string m = judge_format::kPrompt + prompt.text + "\n" + judge_format::kAnswer + answer + "\n" +
                  judge_format::kCriterion + (index < criteria.size() ? criteria[index] : std::string()) + "\n" +
                  judge_format::kCriterionClosing;
  if (!repair.empty()) m += repair_note(repair, round);
  return m;
}

ModelCall JudgeBuilder::criterion_call(const Plan& plan, const RequestRow& request, const std::string& answer,
                                       std::size_t index, const std::string& repair, int round) const {
  ModelCall c = base_call(criterion_schema(), "mirac_criterion", 0);
  c.system = criterion_instructions_;
  c.user = criterion_message(plan, request, answer, index, repair, round);
  c.quotes = request.hash();
  seal(c, criterion_sha256_);
  return c;
}

std::string JudgeBuilder::criterion_call_hash(const Plan& plan, const RequestRow& request, const std::string& answer,
                                              std::size_t index, const std::string& repair, int round) const {
  return criterion_hasher_.hash(criterion_message(plan, request, answer, index, repair, round));
}

}  // namespace mirac
