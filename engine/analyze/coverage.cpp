#include "engine/analyze/coverage.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "engine/analyze/context.hpp"

namespace mirac::analyze {

namespace {

struct Count {
  std::size_t answers = 0, unscored = 0;
  double share() const { return answers ? static_cast<double>(unscored) / static_cast<double>(answers) : 0.0; }
};

nlohmann::ordered_json count_json(const Count& c) {
  return {{"answers", c.answers}, {"unscored", c.unscored}, {"share", c.share()}};
}

}  // namespace

nlohmann::ordered_json score_coverage(const Spec& spec, const Plan& plan, const HashSet& done,
                                      const ScoreTable& table, Diagnostics& diags) {
  std::unordered_set<std::string> scored;
  for (const auto& r : table.rows) scored.insert(answer_key(r));
  Count all;
  std::vector<Count> by_model(spec.models.size());
  std::vector<std::vector<Count>> by_level(spec.factors.size());
  for (std::size_t f = 0; f < spec.factors.size(); ++f) by_level[f].resize(spec.factors[f].levels.size());
  for (const auto& r : plan.requests) {
    if (!done.count(r.digest)) continue;  // no answer, nothing to score
    const PromptRow& p = plan.prompts[r.prompt];
    const Seed* seed = spec.find_seed(p.seed);
    const bool unscored = !seed || !scored.count(answer_key(static_cast<int>(seed - spec.seeds.data()), r.model, r.arm, p.levels, r.answer));
    auto add = [&](Count& c) { ++c.answers, c.unscored += unscored; };
    add(all);
    add(by_model[static_cast<std::size_t>(r.model)]);
    for (std::size_t f = 0; f < spec.factors.size(); ++f) add(by_level[f][static_cast<std::size_t>(p.levels[f])]);
  }
  nlohmann::ordered_json j{{"rater", table.rater}, {"answers", all.answers}, {"scored", all.answers - all.unscored},
                           {"unscored", all.unscored}};
  // Where the rater is declared: the warning's place.
  SourceRange at;
  if (int k = spec.judge_index(table.rater); k >= 0) at = spec.judges[static_cast<std::size_t>(k)].range;
  else if (const Panel* p = spec.find_panel(table.rater)) at = p->range;
  auto skew = [&](const std::string& what, const std::vector<std::pair<std::string, Count>>& groups) {
    const auto [lo, hi] = std::minmax_element(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
      return a.second.share() < b.second.share();
    });
    if (groups.size() < 2 || hi->second.share() - lo->second.share() <= kUnscoredSkew) return;
    diags.warning(at, fmt::format("{} left {:.1f}% of the answers unscored at {} but {:.1f}% at {}; unscored answers are "
                                  "left out of every analysis, so comparisons over {} are skewed by it (mirac status "
                                  "shows the judge states)",
                                  table.rater, 100 * hi->second.share(), hi->first, 100 * lo->second.share(), lo->first,
                                  what));
  };
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  std::vector<std::pair<std::string, Count>> model_groups;
  for (std::size_t m = 0; m < spec.models.size(); ++m) {
    if (by_model[m].answers == 0) continue;
    nlohmann::ordered_json row{{"model", spec.models[m].name}};
    row.update(count_json(by_model[m]));
    models.push_back(std::move(row));
    model_groups.emplace_back("model=" + spec.models[m].name, by_model[m]);
  }
  if (all.unscored > 0) skew("model", model_groups);
  j["by_model"] = std::move(models);
  nlohmann::ordered_json factors = nlohmann::ordered_json::array();
  for (std::size_t f = 0; f < spec.factors.size(); ++f) {
    nlohmann::ordered_json levels = nlohmann::ordered_json::array();
    std::vector<std::pair<std::string, Count>> level_groups;
    for (std::size_t l = 0; l < spec.factors[f].levels.size(); ++l) {
      if (by_level[f][l].answers == 0) continue;
      nlohmann::ordered_json row{{"level", spec.factors[f].levels[l].name.name}};
      row.update(count_json(by_level[f][l]));
      levels.push_back(std::move(row));
      level_groups.emplace_back(spec.factors[f].name + "=" + spec.factors[f].levels[l].name.name, by_level[f][l]);
    }
    if (all.unscored > 0) skew(spec.factors[f].name, level_groups);
    factors.push_back({{"factor", spec.factors[f].name}, {"levels", std::move(levels)}});
  }
  j["by_factor"] = std::move(factors);
  return j;
}

}  // namespace mirac::analyze

namespace mirac::analyze {

namespace {

// The dimensions an analysis reads: its response, or its arguments that name dimensions.
std::vector<std::string> dimensions_read(const ast::AnalysisDecl& a, const ScoreTable& table) {
  std::vector<std::string> out;
  if (a.formula) out.push_back(a.formula->response.name);
  for (const auto& arg : a.args)
    if (const auto* n = std::get_if<ast::Name>(&arg.node); n && table.dim_index(n->name) >= 0) out.push_back(n->name);
  return out;
}

}  // namespace

void add_unused_answers(const Spec& spec, const Plan& plan, const HashSet& done,
                        const ScoreTable& table, SourceManager& sources, nlohmann::ordered_json& analyses) {
  if (!analyses.is_array()) return;
  // The stored answers the rater left unscored, as rows without scores, for `where` to select.
  std::unordered_set<std::string> scored;
  for (const auto& r : table.rows) scored.insert(answer_key(r));
  ScoreTable unscored{table.path, table.dims, {}, table.rater, {}};
  for (const auto& r : plan.requests) {
    if (!done.count(r.digest)) continue;
    ScoreRow row = score_row_of(spec, plan, r);
    if (row.seed < 0 || scored.count(answer_key(row))) continue;
    row.scores.assign(table.dims.size(), std::numeric_limits<double>::quiet_NaN());
    unscored.rows.push_back(std::move(row));
  }
  for (std::size_t i = 0; i < spec.analyses.size() && i < analyses.size(); ++i) {
    const ast::AnalysisDecl& a = spec.analyses[i];
    // The analysis reported its own problems with `where`; these passes stay quiet.
    Diagnostics quiet;
    Context scored_ctx{spec, table, {}, sources, quiet};
    Context unscored_ctx{spec, unscored, {}, sources, quiet};
    nlohmann::ordered_json na = nlohmann::ordered_json::object();
    const std::vector<std::size_t> rows = filter_rows(scored_ctx, a.options);
    for (const std::string& d : dimensions_read(a, table)) {
      const int k = table.dim_index(d);
      std::size_t n = 0;
      for (std::size_t r : rows) n += is_na(table.rows[r].scores[static_cast<std::size_t>(k)]) ? 1 : 0;
      na[d] = n;
    }
    analyses[i]["unused"] = {{"unscored", filter_rows(unscored_ctx, a.options).size()}, {"not_applicable", na}};
  }
}

}  // namespace mirac::analyze
