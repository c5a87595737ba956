#include "engine/analyze/coverage.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>

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

namespace {

// An answer's key (answer_key's parts, in its order) packed into one number.
class PackedKeys {
 public:
  explicit PackedKeys(const Spec& spec) : radix_(radix_of(spec)) {}
  std::optional<std::uint64_t> key(int seed, int model, int arm, const std::vector<int>& levels, int answer) const {
    MixedRadix::Number n = radix_.number();
    n.digit(seed).digit(model).digit(arm);
    for (int l : levels) n.digit(l);
    return n.digit(answer).value();
  }

 private:
  static std::vector<std::size_t> radix_of(const Spec& spec) {
    std::vector<std::size_t> radix = {spec.seeds.size(), spec.models.size(), spec.arms.size()};
    for (const auto& f : spec.factors) radix.push_back(f.levels.size());
    radix.push_back(static_cast<std::size_t>(std::max(spec.answers, 1)));
    return radix;
  }
  MixedRadix radix_;
};

}  // namespace

std::vector<AnswerState> answer_states(const Spec& spec, const Plan& plan, const HashSet& done, const ScoreTable& table) {
  // The scored answers as packed keys, sorted; any row that does not pack (a scores file's
  // row out of the spec's ranges) sends every look-up to the strings instead.
  const PackedKeys packer(spec);
  std::vector<std::uint64_t> packed;
  packed.reserve(table.rows.size());
  bool all_packed = true;
  for (const auto& r : table.rows) {
    const std::optional<std::uint64_t> k = packer.key(r.seed, r.model, r.arm, r.levels, r.answer);
    if (!k) {
      all_packed = false;
      break;
    }
    packed.push_back(*k);
  }
  std::unordered_set<std::string> scored;
  if (all_packed) {
    std::sort(packed.begin(), packed.end());
  } else {
    packed = {};
    scored.reserve(table.rows.size());
    for (const auto& r : table.rows) scored.insert(answer_key(r));
  }
  std::vector<int> seed_of(plan.prompts.size());  // each prompt's seed index, found once
  for (std::size_t p = 0; p < plan.prompts.size(); ++p) {
    const Seed* seed = spec.find_seed(plan.prompts[p].seed);
    seed_of[p] = seed ? static_cast<int>(seed - spec.seeds.data()) : -1;
  }
  std::vector<AnswerState> out(plan.requests.size(), AnswerState::not_stored);
  for (std::size_t i = 0; i < plan.requests.size(); ++i) {
    const RequestRow& r = plan.requests[i];
    if (!done.count(r.digest)) continue;  // no answer, nothing to score
    const int seed = seed_of[r.prompt];
    const std::vector<int>& levels = plan.prompts[r.prompt].levels;
    bool is_scored = false;
    if (seed < 0) {
      is_scored = false;
    } else if (all_packed) {
      const std::optional<std::uint64_t> k = packer.key(seed, r.model, r.arm, levels, r.answer);
      is_scored = k && std::binary_search(packed.begin(), packed.end(), *k);
    } else {
      is_scored = scored.count(answer_key(seed, r.model, r.arm, levels, r.answer)) > 0;
    }
    out[i] = is_scored ? AnswerState::scored : AnswerState::unscored;
  }
  return out;
}

nlohmann::ordered_json score_coverage(const Spec& spec, const Plan& plan, const HashSet& done,
                                      const ScoreTable& table, Diagnostics& diags) {
  return score_coverage(spec, plan, answer_states(spec, plan, done, table), table, diags);
}

nlohmann::ordered_json score_coverage(const Spec& spec, const Plan& plan, const std::vector<AnswerState>& states,
                                      const ScoreTable& table, Diagnostics& diags) {
  Count all;
  std::vector<Count> by_model(spec.models.size());
  std::vector<std::vector<Count>> by_level(spec.factors.size());
  for (std::size_t f = 0; f < spec.factors.size(); ++f) by_level[f].resize(spec.factors[f].levels.size());
  for (std::size_t i = 0; i < plan.requests.size() && i < states.size(); ++i) {
    if (states[i] == AnswerState::not_stored) continue;  // no answer, nothing to score
    const RequestRow& r = plan.requests[i];
    const PromptRow& p = plan.prompts[r.prompt];
    const bool unscored = states[i] == AnswerState::unscored;
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
  add_unused_answers(spec, plan, answer_states(spec, plan, done, table), table, sources, analyses);
}

void add_unused_answers(const Spec& spec, const Plan& plan, const std::vector<AnswerState>& states,
                        const ScoreTable& table, SourceManager& sources, nlohmann::ordered_json& analyses) {
  if (!analyses.is_array()) return;
  // The stored answers the rater left unscored, as rows without scores, for `where` to select.
  ScoreTable unscored{table.path, table.dims, {}, table.rater, {}};
  for (std::size_t i = 0; i < plan.requests.size() && i < states.size(); ++i) {
    if (states[i] != AnswerState::unscored) continue;
    ScoreRow row = score_row_of(spec, plan, plan.requests[i]);
    if (row.seed < 0) continue;
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
