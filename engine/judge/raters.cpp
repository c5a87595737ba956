#include "engine/judge/raters.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/judge/judge_phase.hpp"
#include "interpreter/eval.hpp"
#include "interpreter/row_scope.hpp"

namespace mirac {

namespace {

double aggregate(const std::string& how, std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  if (how == "mean") {
    double sum = 0;
    for (double v : values) sum += v;
    return sum / static_cast<double>(values.size());
  }
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

void combine_panel(const Spec& spec, const Panel& panel, const analyze::ScoreTable& shape,
                   const std::vector<std::vector<double>>& member_scores, analyze::ScoreRow& row) {
  row.scores.assign(shape.dims.size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t d = 0; d < shape.dims.size(); ++d) {
    std::vector<double> given;
    for (const auto& scores : member_scores)
      if (d < scores.size() && !analyze::is_na(scores[d])) given.push_back(scores[d]);
    row.scores[d] = aggregate(panel.aggregate, std::move(given));
  }
  const ast::RubricDecl* rubric = spec.find_rubric(panel.rubric);
  if (!rubric || row.seed < 0) return;
  for (std::size_t d = 0; d < shape.dims.size() && d < rubric->dims.size(); ++d) {
    if (!rubric->dims[d].na_when) continue;
    try {
      if (analyze::holds(*rubric->dims[d].na_when, spec, shape, row)) row.scores[d] = std::numeric_limits<double>::quiet_NaN();
    } catch (const EvalError&) {
      // The judges' replies met the same rule; one that cannot be applied left them unusable.
    }
  }
}

analyze::ScoreTable rater_scores(const Spec& spec, const Plan& plan, const SourceManager& sources, Store& store,
                                 const std::string& rater, int max_repairs) {
  if (int j = spec.judge_index(rater); j >= 0) {
    analyze::ScoreTable table = scores_from_store(spec, plan, JudgeBuilder(spec, sources, j), store, max_repairs);
    table.rater = rater;
    return table;
  }
  analyze::ScoreTable table;
  table.path = store.path().string();
  table.rater = rater;
  const Panel* panel = spec.find_panel(rater);
  if (!panel) return table;
  std::vector<std::size_t> rows(plan.requests.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  std::vector<std::vector<JudgeState>> states;
  for (int j : panel->judges) {
    JudgeBuilder judge(spec, sources, j);
    if (table.dims.empty()) table.dims = judge.dims();
    states.push_back(resolve_judging(spec, plan, judge, store, rows, max_repairs));
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::vector<std::vector<double>> members;
    for (const auto& s : states)
      if (s[i].kind == JudgeState::Kind::scored) members.push_back(s[i].scores.scores);
    if (members.size() != states.size()) continue;  // not yet scored by every judge
    const RequestRow& r = plan.requests[i];
    const PromptRow& p = plan.prompts[r.prompt];
    const Seed* seed = spec.find_seed(p.seed);
    analyze::ScoreRow row;
    row.seed = seed ? static_cast<int>(seed - spec.seeds.data()) : -1;
    row.model = r.model;
    row.arm = r.arm;
    row.levels = p.levels;
    combine_panel(spec, *panel, table, members, row);
    row.line = table.rows.size() + 2;  // its line in scores_csv()
    table.rows.push_back(std::move(row));
  }
  return table;
}

void add_other_rater(analyze::ScoreTable& table, const analyze::ScoreTable& other) {
  analyze::RaterRows rows{other.rater, {}};
  rows.rows.reserve(other.rows.size());
  for (const auto& r : other.rows) {
    analyze::ScoreRow aligned = r;
    aligned.scores.assign(table.dims.size(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t d = 0; d < table.dims.size(); ++d)
      if (int o = other.dim_index(table.dims[d]); o >= 0) aligned.scores[d] = r.scores[static_cast<std::size_t>(o)];
    rows.rows.push_back(std::move(aligned));
  }
  table.others.push_back(std::move(rows));
}

}  // namespace mirac
