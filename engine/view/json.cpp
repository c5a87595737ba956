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

Json levels_json(const Spec& spec, const AnswerRow& row) {
  Json levels = Json::object();
  for (std::size_t f = 0; f < spec.factors.size(); ++f)
    levels[spec.factors[f].name] = spec.factors[f].levels[static_cast<std::size_t>(row.levels[f])].name.name;
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
  j["levels"] = levels_json(spec, row);
  j["status"] = row.status;
  j["judge"] = judging_name(row.judging);
  j["scores"] = scores_json(index, row.scores);
  Json flags = Json::array();
  for (std::size_t f = 0; f < row.flags.size(); ++f)
    if (row.flags[f]) flags.push_back(spec.flags[f].name.name);
  j["flags"] = std::move(flags);
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
  for (const auto& r : index.rows()) done += r.status == "done", scored += r.judging == Judging::scored;
  j["requests"] = index.rows().size();
  j["answers"] = done;
  j["scored"] = scored;
  j["warnings"] = index.warnings();
  j["has_report"] = has_report;
  return j;
}

Json answers_json(const AnswerIndex& index, const std::vector<std::size_t>& matches, std::size_t offset,
                  std::size_t limit) {
  Json rows = Json::array();
  for (std::size_t i = offset; i < matches.size() && i < offset + limit; ++i) {
    const AnswerRow& row = index.rows()[matches[i]];
    Json j = summary_json(index, row);
    j["snippet"] = snippet(row.text.empty() ? row.cause : row.text);
    rows.push_back(std::move(j));
  }
  return {{"total", matches.size()}, {"offset", offset}, {"limit", limit}, {"rows", std::move(rows)}};
}

Json answer_json(const AnswerIndex& index, const AnswerRow& row) {
  const Spec& spec = index.spec();
  const Arm& arm = spec.arms[static_cast<std::size_t>(row.arm)];
  Json j = summary_json(index, row);
  j["model_string"] = index.plan().requests[row.request].call.model;
  j["hash"] = index.plan().requests[row.request].call.hash;
  j["prompt"] = index.plan().prompts[row.prompt].text;
  j["system"] = arm.system ? Json(*arm.system) : Json(nullptr);
  j["text"] = row.text;
  j["cause"] = row.cause;
  j["problem"] = row.problem;
  Json rationales = Json::object();
  for (std::size_t d = 0; d < index.dims().size(); ++d)
    rationales[index.dims()[d]] = d < row.rationales.size() ? row.rationales[d] : "";
  j["rationales"] = std::move(rationales);
  Json criteria = Json::array();
  if (!row.criteria.empty()) {
    const std::vector<std::string> texts = index.criteria_texts(row);
    for (std::size_t c = 0; c < row.criteria.size(); ++c)
      criteria.push_back({{"criterion", c < texts.size() ? texts[c] : fmt::format("criterion {}", c + 1)},
                          {"met", row.criteria[c].met},
                          {"quote", row.criteria[c].quote}});
  }
  j["criteria"] = std::move(criteria);
  return j;
}

Json pairs_json(const AnswerIndex& index, const PairQuery& q, const PairsResult& result, std::size_t offset,
                std::size_t limit) {
  const Spec& spec = index.spec();
  const Factor& factor = spec.factors[static_cast<std::size_t>(q.factor)];
  Json pairs = Json::array();
  for (std::size_t i = offset; i < result.pairs.size() && i < offset + limit; ++i) {
    const AnswerRow& a = index.rows()[result.pairs[i].first];
    const AnswerRow& b = index.rows()[result.pairs[i].second];
    pairs.push_back({{"a", answer_json(index, a)}, {"b", answer_json(index, b)},
                     {"diff", scores_json(index, score_differences(a, b))}});
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
