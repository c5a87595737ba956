#include "engine/judge/raters.hpp"
#include "engine/judge/invariance_phase.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "engine/judge/judge_phase.hpp"
#include "runtime/store/annotations.hpp"
#include "interpreter/eval/eval.hpp"
#include "interpreter/scores/row_scope.hpp"

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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// People's scores from the store's annotations (`mirac annotate import`).
analyze::ScoreTable human_scores(const Spec& spec, const Plan& plan, const std::filesystem::path& run_dir,
                                 const std::string& rater) {
  analyze::ScoreTable table;
  table.rater = rater;
  table.dims = analyze::score_dimensions(spec);
  table.path = (run_dir / "store.sqlite").string();
  std::string error;
  auto store = AnnotationStore::open(run_dir, error);
  if (!store) return table;
  const std::string person = rater == "human" ? "" : rater.substr(6);
  // answer -> dimension -> values by annotator
  std::unordered_map<std::string, std::map<std::string, std::map<std::string, double>>> given;
  for (const auto& a : store->all()) {
    if (!person.empty() && a.annotator != person) continue;
    given[a.answer_hash][a.dimension][a.annotator] = a.value ? *a.value : std::numeric_limits<double>::quiet_NaN();
  }
  for (const auto& r : plan.requests) {
    auto it = given.find(r.hash());
    if (it == given.end()) continue;
    analyze::ScoreRow row = analyze::score_row_of(spec, plan, r);
    for (const auto& d : table.dims) {
      double value = std::numeric_limits<double>::quiet_NaN();
      if (auto v = it->second.find(d); v != it->second.end()) {
        // The adjudicated value decides; else the annotators' median (N/A only when all say so).
        if (auto adjudicated = v->second.find("adjudicated"); adjudicated != v->second.end()) {
          value = adjudicated->second;
        } else {
          std::vector<double> numbers;
          for (const auto& [who, x] : v->second)
            if (!std::isnan(x)) numbers.push_back(x);
          if (!numbers.empty()) value = median(numbers);
        }
      }
      row.scores.push_back(value);
    }
    if (row.seed >= 0) table.rows.push_back(std::move(row));
  }
  return table;
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
  if (is_human_rater(rater)) return human_scores(spec, plan, store.path().parent_path(), rater);
  // An invariance analysis's name: its judge's scores of the translated answers.
  for (const InvarianceCheck& check : invariance_checks(spec))
    if (check.name == rater) return invariance_scores(spec, plan, sources, store, check, max_repairs);
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
    states.push_back(resolve_judging(spec, plan, judge, store, rows, max_repairs, JudgmentDetail::scores));
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::vector<std::vector<double>> members;
    for (const auto& s : states)
      if (s[i].kind == JudgeState::Kind::scored) members.push_back(s[i].scores.scores);
    if (members.size() != states.size()) continue;  // not yet scored by every judge
    analyze::ScoreRow row = analyze::score_row_of(spec, plan, plan.requests[i]);
    combine_panel(spec, *panel, table, members, row);
    // A criterion is met for the panel when more than half of its judges found it met.
    const std::size_t criteria = states.front()[i].scores.criteria.size();
    for (std::size_t c = 0; c < criteria; ++c) {
      std::size_t met = 0;
      for (const auto& s : states) met += c < s[i].scores.criteria.size() && s[i].scores.criteria[c].met ? 1 : 0;
      row.criteria.push_back(2 * met > states.size() ? 1 : 0);
    }
    row.line = table.rows.size() + 2;  // its line in scores_csv()
    table.rows.push_back(std::move(row));
  }
  return table;
}

void fill_human_dimensions(const Spec& spec, analyze::ScoreTable& table, const analyze::ScoreTable& human) {
  const ast::RubricDecl* rubric = spec.scored_rubric();
  if (!rubric) return;
  std::vector<std::pair<int, int>> columns;  // (table's, human's) index of each human-only dimension
  for (const auto& d : rubric->dims)
    if (d.human_only()) columns.emplace_back(table.dim_index(d.name.name), human.dim_index(d.name.name));
  if (columns.empty()) return;
  auto key = [](const analyze::ScoreRow& r) { return analyze::answer_key(r); };
  std::unordered_map<std::string, const analyze::ScoreRow*> by_answer;
  for (const auto& r : human.rows) by_answer.emplace(key(r), &r);
  for (auto& r : table.rows) {
    auto it = by_answer.find(key(r));
    for (const auto& [t, h] : columns)
      if (t >= 0) r.scores[static_cast<std::size_t>(t)] = it != by_answer.end() && h >= 0
                                                               ? it->second->scores[static_cast<std::size_t>(h)]
                                                               : std::numeric_limits<double>::quiet_NaN();
  }
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
