#include "engine/view/json.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace mirac::view {

namespace {

Json number(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::floor(v) == v && std::fabs(v) < 1e15) return static_cast<long long>(v);
  return v;
}

// The first characters of an answer for the table, cut at a UTF-8 character boundary.
std::string snippet(const std::string& text, std::size_t max = 160) {
  if (text.size() <= max) return text;
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "…";
}

Json levels_json(const AnswerIndex& index, const AnswerRow& row) {
  const Spec& spec = index.spec();
  const std::vector<int>& of_row = index.levels(row);
  Json levels = Json::object();
  for (std::size_t f = 0; f < spec.factors.size(); ++f)
    levels[spec.factors[f].name] = spec.factors[f].levels[static_cast<std::size_t>(of_row[f])].name.name;
  return levels;
}

Json scores_json(const AnswerIndex& index, const std::vector<double>& scores) {
  Json out = Json::object();
  for (std::size_t d = 0; d < index.dims().size(); ++d) out[index.dims()[d]] = d < scores.size() ? number(scores[d]) : nullptr;
  return out;
}

Json summary_json(const AnswerIndex& index, const AnswerRow& row) {
  const Spec& spec = index.spec();
  Json j;
  j["id"] = row.request;
  j["prompt_id"] = index.plan().prompts[row.prompt].id;
  j["seed"] = row.seed >= 0 ? Json(spec.seeds[static_cast<std::size_t>(row.seed)].id) : Json(nullptr);
  j["model"] = spec.models[static_cast<std::size_t>(row.model)].name;
  j["arm"] = spec.arms[static_cast<std::size_t>(row.arm)].name;
  j["levels"] = levels_json(index, row);
  j["status"] = status_name(row.status);
  j["judge"] = judging_name(row.judging);
  j["scores"] = scores_json(index, index.scores(row));
  Json flags = Json::array();
  for (std::size_t f = 0; f < spec.flags.size(); ++f)
    if (index.flagged(row, f)) flags.push_back(spec.flags[f].name.name);
  j["flags"] = std::move(flags);
  return j;
}

// One answer in full, its texts read from the store (AnswerIndex::texts).
Json full_answer_json(const AnswerIndex& index, const AnswerRow& row, AnswerTexts texts) {
  const Spec& spec = index.spec();
  const Arm& arm = spec.arms[static_cast<std::size_t>(row.arm)];
  Json j = summary_json(index, row);
  j["model_string"] = index.plan().requests[row.request].target->model;
  j["hash"] = index.plan().requests[row.request].hash();
  j["prompt"] = index.plan().prompts[row.prompt].text;
  j["system"] = arm.system ? Json(*arm.system) : Json(nullptr);
  j["text"] = std::move(texts.text);
  j["cause"] = std::move(texts.cause);
  j["problem"] = std::move(texts.problem);
  Json rationales = Json::object();
  for (std::size_t d = 0; d < index.dims().size(); ++d)
    rationales[index.dims()[d]] = d < texts.rationales.size() ? texts.rationales[d] : "";
  j["rationales"] = std::move(rationales);
  Json criteria = Json::array();
  if (!texts.criteria.empty()) {
    const std::vector<std::string> named = index.criteria_texts(row);
    for (std::size_t c = 0; c < texts.criteria.size(); ++c)
      criteria.push_back({{"criterion", c < named.size() ? named[c] : fmt::format("criterion {}", c + 1)},
                          {"met", texts.criteria[c].met},
                          {"quote", texts.criteria[c].quote}});
  }
  j["criteria"] = std::move(criteria);
  return j;
}

}  // namespace

Json meta_json(const AnswerIndex& index, bool has_report) {
  const Spec& spec = index.spec();
  Json j;
  j["spec"] = spec.name;
  j["title"] = spec.title;
  j["rater"] = index.rater();
  // Answers from the built-in offline provider are simulated: the page says so above all else.
  bool simulated = false;
  for (const auto& m : spec.models) simulated = simulated || m.provider == "offline";
  j["simulated"] = simulated;
  j["dims"] = index.dims();
  Json models = Json::array(), arms = Json::array(), factors = Json::array(), flags = Json::array();
  for (const auto& m : spec.models) models.push_back(m.name);
  for (const auto& a : spec.arms) arms.push_back(a.name);
  for (const auto& f : spec.factors) factors.push_back({{"name", f.name}, {"levels", f.level_names()}});
  for (const auto& f : spec.flags) {
    Json pairings = Json::array();
    for (const auto& p : f.pairings) pairings.push_back({{"factor", p.factor.name}, {"a", p.a.name}, {"b", p.b.name}});
    flags.push_back({{"name", f.name.name}, {"kind", f.pairings.empty() ? "unit" : "pair"}, {"pairings", pairings}});
  }
  j["models"] = std::move(models);
  j["arms"] = std::move(arms);
  j["factors"] = std::move(factors);
  j["flags"] = std::move(flags);
  j["judge_states"] = std::vector<std::string>(std::begin(kJudgingNames), std::end(kJudgingNames));
  std::size_t done = 0, scored = 0;
  for (const auto& r : index.rows()) done += r.status == AnswerStatus::done, scored += r.judging == Judging::scored;
  j["requests"] = index.rows().size();
  j["answers"] = done;
  j["scored"] = scored;
  j["warnings"] = index.warnings();
  j["has_report"] = has_report;
  return j;
}

Json answers_json(const AnswerIndex& index, const std::vector<std::size_t>& matches, std::size_t offset,
                  std::size_t limit) {
  std::vector<std::size_t> page;
  for (std::size_t i = offset; i < matches.size() && i < offset + limit; ++i) page.push_back(matches[i]);
  const std::vector<AnswerTexts> texts = index.texts(page, false);
  Json rows = Json::array();
  for (std::size_t i = 0; i < page.size(); ++i) {
    Json j = summary_json(index, index.rows()[page[i]]);
    j["snippet"] = snippet(texts[i].text.empty() ? texts[i].cause : texts[i].text);
    rows.push_back(std::move(j));
  }
  return {{"total", matches.size()}, {"offset", offset}, {"limit", limit}, {"rows", std::move(rows)}};
}

Json answer_json(const AnswerIndex& index, const AnswerRow& row) {
  return full_answer_json(index, row, std::move(index.texts({row.request}, true).front()));
}

Json pairs_json(const AnswerIndex& index, const PairQuery& q, const PairsResult& result, std::size_t offset,
                std::size_t limit) {
  const Spec& spec = index.spec();
  const Factor& factor = spec.factors[static_cast<std::size_t>(q.factor)];
  // Both sides of the page's pairs, their texts read from the store together.
  std::vector<std::size_t> sides;
  for (std::size_t i = offset; i < result.pairs.size() && i < offset + limit; ++i)
    sides.push_back(result.pairs[i].first), sides.push_back(result.pairs[i].second);
  std::vector<AnswerTexts> texts = index.texts(sides, true);
  Json pairs = Json::array();
  for (std::size_t k = 0; k + 1 < sides.size(); k += 2) {
    const AnswerRow& a = index.rows()[sides[k]];
    const AnswerRow& b = index.rows()[sides[k + 1]];
    pairs.push_back({{"a", full_answer_json(index, a, std::move(texts[k]))},
                     {"b", full_answer_json(index, b, std::move(texts[k + 1]))},
                     {"diff", scores_json(index, score_differences(index, a, b))}});
  }
  Json j;
  j["factor"] = factor.name;
  j["a"] = factor.levels[static_cast<std::size_t>(q.a)].name.name;
  j["b"] = factor.levels[static_cast<std::size_t>(q.b)].name.name;
  j["flag"] = q.flag >= 0 ? Json(spec.flags[static_cast<std::size_t>(q.flag)].name.name) : Json(nullptr);
  j["matched"] = result.matched;
  j["total"] = result.pairs.size();
  j["unmatched"] = result.unmatched;
  j["duplicates"] = result.duplicates;
  j["offset"] = offset;
  j["limit"] = limit;
  j["pairs"] = std::move(pairs);
  return j;
}

std::size_t page_param(const Params& params, const std::string& name, std::size_t fallback, std::size_t max,
                       std::string& error) {
  auto it = params.find(name);
  if (it == params.end() || it->second.empty()) return fallback;
  std::size_t value = 0;
  for (char c : it->second) {
    if (c < '0' || c > '9') {
      error = fmt::format("{} '{}' is not a whole number", name, it->second);
      return fallback;
    }
    if (value <= max) value = value * 10 + static_cast<std::size_t>(c - '0');  // past max: max
  }
  return std::min(value, max);
}

}  // namespace mirac::view
