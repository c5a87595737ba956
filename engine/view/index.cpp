#include "engine/view/index.hpp"

#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "engine/judge/judge_phase.hpp"
#include "engine/judge/raters.hpp"
#include "engine/view/pairs.hpp"
#include "interpreter/judge/criteria.hpp"
#include "interpreter/eval/eval.hpp"

namespace mirac::view {

const char* judging_name(Judging j) { return kJudgingNames[static_cast<std::size_t>(j)]; }

std::optional<Judging> judging_of(const std::string& name) {
  for (std::size_t i = 0; i < std::size(kJudgingNames); ++i)
    if (name == kJudgingNames[i]) return static_cast<Judging>(i);
  return std::nullopt;
}

namespace {

Judging judging_from(JudgeState::Kind kind) {
  switch (kind) {
    case JudgeState::Kind::no_answer: return Judging::no_answer;
    case JudgeState::Kind::pending: return Judging::pending;
    case JudgeState::Kind::scored: return Judging::scored;
    case JudgeState::Kind::invalid: return Judging::invalid;
    case JudgeState::Kind::failed: return Judging::failed;
  }
  return Judging::none;
}

// A judge's verdicts with their rationales and criteria; the score table built from them
// as scores_from_store builds it (same rows, so flags see what the analyses see).
void read_judge(const Audit& audit, Store& store, int judge, std::vector<AnswerRow>& rows, analyze::ScoreTable& table) {
  const Spec& spec = audit.spec();
  const Plan& plan = audit.plan();
  const JudgeBuilder builder(spec, audit.sources(), judge);
  table.dims = builder.dims();
  std::vector<std::size_t> all(plan.requests.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const std::vector<JudgeState> states = resolve_judging(spec, plan, builder, store, all, audit.options.repairs);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const JudgeState& s = states[i];
    AnswerRow& row = rows[i];
    row.judging = judging_from(s.kind);
    if (s.kind == JudgeState::Kind::failed) row.problem = s.cause;
    if (s.kind == JudgeState::Kind::invalid || s.kind == JudgeState::Kind::pending) row.problem = s.scores.problem;
    if (s.kind != JudgeState::Kind::scored) continue;
    row.scores = s.scores.scores;
    row.rationales = s.scores.rationale;
    row.criteria = s.scores.criteria;
    analyze::ScoreRow score = analyze::score_row_of(spec, plan, plan.requests[i]);
    score.scores = s.scores.scores;
    for (const auto& g : s.scores.criteria) score.criteria.push_back(g.met ? 1 : 0);
    score.line = table.rows.size() + 2;
    row.score_row = static_cast<int>(table.rows.size());
    table.rows.push_back(std::move(score));
  }
}

// A panel's (or people's) scores: what rater_scores gives the analyses. There is no reply
// behind them, so an answer is scored or, while some member has not scored it, pending.
void read_rater(const Audit& audit, Store& store, const std::string& rater, std::vector<AnswerRow>& rows,
                analyze::ScoreTable& table) {
  const Spec& spec = audit.spec();
  const Plan& plan = audit.plan();
  table = rater_scores(spec, plan, audit.sources(), store, rater, audit.options.repairs);
  std::unordered_map<std::string, std::size_t> scored;
  for (std::size_t i = 0; i < table.rows.size(); ++i) scored.emplace(analyze::answer_key(table.rows[i]), i);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    AnswerRow& row = rows[i];
    row.judging = row.status == "done" ? Judging::pending : Judging::no_answer;
    auto it = scored.find(analyze::answer_key(analyze::score_row_of(spec, plan, plan.requests[i])));
    if (it == scored.end()) continue;
    row.judging = Judging::scored;
    row.scores = table.rows[it->second].scores;
    row.score_row = static_cast<int>(it->second);
  }
}

}  // namespace

std::unique_ptr<AnswerIndex> AnswerIndex::build(const Audit& audit, Outcome& outcome) {
  if (!audit.has_store()) {
    outcome = Outcome::fail(kUsageError, "mirac view: " + missing_store_advice(audit));
    return nullptr;
  }
  std::string error;
  auto store = Store::open(audit.run_dir, error);
  if (!store) {
    outcome = Outcome::fail(kRunError, "mirac view: " + error);
    return nullptr;
  }
  store->preload_briefs();  // every answer and judgment is looked up: one scan, not 86,400 reads
  std::unique_ptr<AnswerIndex> index(new AnswerIndex(audit));
  const Spec& spec = audit.spec();
  const Plan& plan = audit.plan();
  index->rows_.resize(plan.requests.size());
  for (std::size_t i = 0; i < plan.requests.size(); ++i) {
    const RequestRow& r = plan.requests[i];
    AnswerRow& row = index->rows_[i];
    row.request = i;
    row.prompt = r.prompt;
    const analyze::ScoreRow key = analyze::score_row_of(spec, plan, r);
    row.seed = key.seed;
    row.model = r.model;
    row.arm = r.arm;
    row.levels = plan.prompts[r.prompt].levels;
    row.status = "missing";
    if (std::shared_ptr<const Store::Brief> b = store->brief(r.call.hash)) {
      row.status = b->status;
      row.text = b->text;
      if (b->status != "done") row.cause = b->cause;
    }
  }
  analyze::ScoreTable& table = index->scores_;
  table.path = store->path().string();
  if (int judge = spec.judge_index(spec.scores_rater); judge >= 0) read_judge(audit, *store, judge, index->rows_, table);
  else if (!spec.scores_rater.empty()) read_rater(audit, *store, spec.scores_rater, index->rows_, table);
  table.rater = spec.scores_rater;
  // Unscored rows carry N/A on every dimension, so a row's scores always line up with dims().
  for (auto& row : index->rows_)
    if (row.scores.size() != table.dims.size())
      row.scores.resize(table.dims.size(), std::numeric_limits<double>::quiet_NaN());
  index->mark_flags();
  return index;
}

void AnswerIndex::mark_flags() {
  const Spec& spec = this->spec();
  for (auto& row : rows_) row.flags.assign(spec.flags.size(), 0);
  std::vector<std::size_t> all(rows_.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  for (std::size_t f = 0; f < spec.flags.size(); ++f) {
    const ast::FlagDecl& flag = spec.flags[f];
    try {
      if (flag.pairings.empty()) {
        for (auto& row : rows_) row.flags[f] = unit_flag_holds(*this, f, row) ? 1 : 0;
        continue;
      }
      for (const auto& p : flag.pairings) {
        const int factor = spec.factor_index(p.factor.name);
        if (factor < 0) continue;
        const Factor& fac = spec.factors[static_cast<std::size_t>(factor)];
        const MatchedRows m = match_rows(*this, all, factor, fac.level_index(p.a.name), fac.level_index(p.b.name));
        for (const auto& [a, b] : m.pairs)
          if (pair_flag_fires(*this, f, rows_[a], rows_[b])) rows_[a].flags[f] = rows_[b].flags[f] = 1;
      }
    } catch (const EvalError& e) {
      // The analysis reports the same error at the flag; here the flag marks nothing.
      warnings_.push_back(fmt::format("flag {}: {}", flag.name.name, e.what()));
      for (auto& row : rows_) row.flags[f] = 0;
    }
  }
}

std::vector<std::string> AnswerIndex::criteria_texts(const AnswerRow& row) const {
  const ast::RubricDecl* rubric = spec().scored_rubric();
  if (!rubric || row.seed < 0) return {};
  return criteria_of(spec(), *rubric, spec().seeds[static_cast<std::size_t>(row.seed)].id);
}

}  // namespace mirac::view
