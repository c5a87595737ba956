// invariance_phase.cpp: translations and the judgments of them, or the judgments with
// another rubric, for `invariance` analyses (invariance_phase.hpp).
#include "engine/judge/invariance_phase.hpp"

#include <algorithm>
#include <set>
#include <unordered_set>

#include <fmt/format.h>

#include "engine/judge/simulated_judge.hpp"
#include "engine/send/send.hpp"

namespace mirac {

namespace {

// A sampled answer's stored answer and, for a translation check, its translation, as far
// as they go: the text the judge is to score again.
struct Transformed {
  std::shared_ptr<const Store::Brief> answer, translation;
  ModelCall call;  ///< the translation's request (built once the answer is stored)
  bool translates = true;
  bool answered() const { return answer && answer->status == "done"; }
  bool cut() const { return translates && translation && translation->status == "done" && translation->truncated; }
  bool usable() const {
    return translates ? translation && translation->status == "done" && !translation->truncated : answered();
  }
  const std::string& text() const { return translates ? translation->text : answer->text; }
};

Transformed transformed(Store& store, const Plan& plan, const InvarianceCheck& check, const InvarianceItem& item) {
  Transformed t;
  t.translates = check.translates();
  t.answer = store.brief(plan.requests[item.row].hash());
  if (!t.answered() || !t.translates) return t;
  t.call = translation_call(check, item.target_level, t.answer->text);
  t.translation = store.brief(t.call.hash);
  return t;
}

// Where the sample's judgments stand. With `calls`, collects the requests still to send:
// the pending ones, and the failed ones when `with_failed`, each once.
InvarianceSummary count_sample(const Spec& spec, const Plan& plan, const JudgeBuilder& judge, Store& store,
                               const InvarianceCheck& check, const std::vector<InvarianceItem>& items, int repairs,
                               std::vector<ModelCall>* calls, bool with_failed, SimulatedJudge* simulated) {
  InvarianceSummary counts;
  std::set<std::string> asked;
  for (const InvarianceItem& item : items) {
    Transformed t = transformed(store, plan, check, item);
    if (!t.answered()) continue;
    ++counts.answered;
    counts.cut += t.cut();
    if (!t.usable()) continue;
    ++counts.translated;
    JudgeState state = resolve_text_judging(spec, plan, judge, store, item.counterpart, t.text(), repairs);
    using Kind = JudgeState::Kind;
    counts.scored += state.kind == Kind::scored;
    counts.invalid += state.kind == Kind::invalid;
    counts.failed += state.kind == Kind::failed;
    counts.pending += state.kind == Kind::pending;
    if (!calls) continue;
    auto take = [&](std::vector<ModelCall>& list) {
      for (auto& c : list) {
        if (!asked.insert(c.hash).second) continue;
        if (simulated) simulated->expect(c.hash, item.row, plan.prompts[plan.requests[item.counterpart].prompt].levels);
        calls->push_back(std::move(c));
      }
    };
    take(state.pending_calls);
    if (with_failed) take(state.failed_calls);
  }
  return counts;
}

std::vector<InvarianceItem> selected_items(const Spec& spec, const Plan& plan, const InvarianceCheck& check,
                                           const std::unordered_set<std::size_t>& selected) {
  Diagnostics ignored;  // a `where` that cannot be evaluated is reported by mirac analyze
  std::vector<InvarianceItem> items;
  for (const InvarianceItem& item : invariance_sample(spec, plan, check, ignored))
    if (selected.count(item.row)) items.push_back(item);
  return items;
}

void reduce_budget(SchedulerOptions& options, const RunSummary& sent) {
  if (options.budget_usd) *options.budget_usd = std::max(0.0, *options.budget_usd - sent.spend_usd);
}

InvarianceSummary check_one(const Audit& audit, Store& store, const InvarianceCheck& check,
                            const std::unordered_set<std::size_t>& selected, SchedulerOptions options,
                            const std::atomic<bool>& cancel, const RunHooks& hooks) {
  const Spec& spec = audit.spec();
  const Plan& plan = audit.plan();
  InvarianceSummary summary;
  summary.name = check.name;
  summary.rubric = check.rubric;
  const std::vector<InvarianceItem> items = selected_items(spec, plan, check, selected);
  summary.sampled = items.size();

  // Translations: the sampled answers that are stored, translated once each.
  std::vector<ModelCall> calls;
  std::set<std::string> asked;
  for (const InvarianceItem& item : items) {
    if (!check.translates()) break;
    Transformed t = transformed(store, plan, check, item);
    if (!t.answered()) continue;
    if (!t.translation || t.translation->status != "done")
      if (asked.insert(t.call.hash).second) calls.push_back(std::move(t.call));
  }
  if (!calls.empty()) {
    if (hooks.on_phase) hooks.on_phase("translate for " + check.name);
    RunSummary sent = run_plan(calls, store, options, cancel, hooks);
    reduce_budget(options, sent);
    summary.rounds.push_back(sent);
    if (sent.cancelled || !sent.fatal_error.empty()) {
      summary.stopped = true;
      return summary;
    }
  }

  // The translations judged as answers to the other level's prompt (or the answers judged
  // with the other rubric), with repairs in rounds as the judge phase makes them.
  const JudgeBuilder judge(spec, audit.sources(), check.judge, check.rubric);
  std::unique_ptr<SimulatedJudge> simulated = SimulatedJudge::make(spec, plan, judge);
  options.offline_replies = simulated ? simulated->replies() : OfflineReplies{};
  const int repairs = audit.options.repairs;
  for (int round = 0; round <= repairs + 1; ++round) {
    calls.clear();
    // Failed calls are sent once per run.
    InvarianceSummary counts = count_sample(spec, plan, judge, store, check, items, repairs, &calls, round == 0,
                                            simulated.get());
    counts.name = summary.name, counts.rubric = summary.rubric, counts.sampled = summary.sampled;
    counts.rounds = std::move(summary.rounds);
    summary = std::move(counts);
    if (calls.empty() || round > repairs) break;
    if (hooks.on_phase) hooks.on_phase(round == 0 ? "judge " + check.name : "judge " + check.name + " repair " + std::to_string(round));
    RunSummary sent = run_plan(calls, store, options, cancel, hooks);
    reduce_budget(options, sent);
    summary.rounds.push_back(sent);
    if (sent.cancelled || !sent.fatal_error.empty()) {
      summary.stopped = true;
      break;
    }
  }
  return summary;
}

}  // namespace

std::string InvarianceSummary::describe() const {
  const std::string of_sample = answered == sampled ? "" : fmt::format(" ({} answered)", answered);
  if (!rubric.empty())
    return fmt::format("invariance {}: {} sampled answers{}, {} judged again with rubric {}, {} unusable replies, {} "
                       "failed, {} pending",
                       name, sampled, of_sample, scored, rubric, invalid, failed, pending);
  return fmt::format("invariance {}: {} sampled answers{}, {} translated{}, {} judged again, {} unusable replies, {} "
                     "failed, {} pending",
                     name, sampled, of_sample, translated,
                     cut ? fmt::format(" ({} cut at the token limit, left out)", cut) : "", scored, invalid, failed,
                     pending);
}

double InvarianceSummary::spend_usd() const {
  double total = 0;
  for (const auto& r : rounds) total += r.spend_usd;
  return total;
}

std::vector<InvarianceSummary> check_invariance(const Audit& audit, Store& store, const Selection& selection,
                                                double spent_usd, const std::atomic<bool>& cancel, const RunHooks& hooks) {
  std::vector<InvarianceSummary> out;
  const std::vector<InvarianceCheck> checks = invariance_checks(audit.spec());
  if (checks.empty()) return out;
  const std::unordered_set<std::size_t> selected(selection.rows.begin(), selection.rows.end());
  SchedulerOptions options = scheduler_options(audit.spec(), audit.options);
  if (options.budget_usd) *options.budget_usd = std::max(0.0, *options.budget_usd - spent_usd);  // one budget per run
  for (const InvarianceCheck& check : checks) {
    out.push_back(check_one(audit, store, check, selected, options, cancel, hooks));
    if (options.budget_usd) *options.budget_usd = std::max(0.0, *options.budget_usd - out.back().spend_usd());
    if (out.back().stopped) break;
  }
  return out;
}

std::vector<InvarianceSummary> invariance_status(const Audit& audit, Store* store, const Selection& selection) {
  std::vector<InvarianceSummary> out;
  const std::unordered_set<std::size_t> selected(selection.rows.begin(), selection.rows.end());
  for (const InvarianceCheck& check : invariance_checks(audit.spec())) {
    const std::vector<InvarianceItem> items = selected_items(audit.spec(), audit.plan(), check, selected);
    InvarianceSummary summary;
    if (store) {
      const JudgeBuilder judge(audit.spec(), audit.sources(), check.judge, check.rubric);
      summary = count_sample(audit.spec(), audit.plan(), judge, *store, check, items, audit.options.repairs, nullptr,
                             false, nullptr);
    }
    summary.name = check.name, summary.rubric = check.rubric, summary.sampled = items.size();
    out.push_back(std::move(summary));
  }
  return out;
}

analyze::ScoreTable invariance_scores(const Spec& spec, const Plan& plan, const SourceManager& sources, Store& store,
                                      const InvarianceCheck& check, int max_repairs) {
  analyze::ScoreTable table;
  table.path = store.path().string();
  table.rater = check.name;
  const JudgeBuilder judge(spec, sources, check.judge, check.rubric);
  table.dims = judge.dims();
  Diagnostics ignored;  // reported by the analysis, which evaluates `where` itself
  for (const InvarianceItem& item : invariance_sample(spec, plan, check, ignored)) {
    Transformed t = transformed(store, plan, check, item);
    if (!t.usable()) continue;
    JudgeState state = resolve_text_judging(spec, plan, judge, store, item.counterpart, t.text(), max_repairs);
    if (state.kind != JudgeState::Kind::scored) continue;
    analyze::ScoreRow row = analyze::score_row_of(spec, plan, plan.requests[item.row]);
    row.scores = state.scores.scores;
    for (const auto& g : state.scores.criteria) row.criteria.push_back(g.met ? 1 : 0);
    row.line = table.rows.size() + 2;
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace mirac
