#include "engine/judge/judge_phase.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "engine/send/send.hpp"

namespace mirac {

std::vector<JudgeState> resolve_judging(const Spec& spec, const Plan& plan, const JudgeBuilder& judge, Store& store,
                                        const std::vector<std::size_t>& rows, int max_repairs) {
  ScoreReader reader(spec, judge);
  std::vector<JudgeState> out(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const RequestRow& row = plan.requests[rows[i]];
    JudgeState& state = out[i];
    std::optional<Store::Brief> answer = store.brief(row.call.hash);
    if (!answer || answer->status != "done") continue;  // no_answer
    std::string repair;
    long long limit = 0;  // the judge's own, until a reply is cut at it
    for (int round = 0;; ++round) {
      ModelCall call = judge.call(plan, row, answer->text, repair, round, limit);
      state.round = round;
      state.judge_hash = call.hash;
      std::optional<Store::Brief> reply = store.brief(call.hash);
      if (!reply) {
        state.kind = JudgeState::Kind::pending;
        state.next = std::move(call);
        break;
      }
      if (reply->status != "done") {
        // A failed judge call is retried by the next run, like any failed request.
        state.kind = JudgeState::Kind::failed;
        state.cause = reply->cause;
        state.next = std::move(call);
        break;
      }
      state.scores = reader.read(plan, row, reply->text);
      if (state.scores.ok()) {
        state.kind = JudgeState::Kind::scored;
        break;
      }
      state.kind = JudgeState::Kind::invalid;
      if (reply->truncated) {
        // Cut at its token limit: the same request would be cut again. The repair doubles
        // the limit and asks for shorter rationales.
        state.scores.problem = "the reply was cut off at its token limit (" + state.scores.problem + ")";
        limit = std::min<long long>(2 * (limit > 0 ? limit : judge.token_limit()), 32768);
      }
      if (round >= max_repairs) break;
      repair = reply->truncated ? state.scores.problem + "; keep each rationale under 15 words" : state.scores.problem;
    }
  }
  return out;
}

JudgePhaseSummary run_judge_phase(const Spec& spec, const Plan& plan, const JudgeBuilder& judge, Store& store,
                                  const std::vector<std::size_t>& rows,
                                  int max_repairs, const SchedulerOptions& options, const std::atomic<bool>& cancel,
                                  const RunHooks& hooks) {
  JudgePhaseSummary summary;
  std::vector<RunSummary> rounds;
  SchedulerOptions round_options = options;
  // Each round sends what is pending; replies the rubric rejects come back as repair
  // requests in the next round. One round more than repairs sends them all.
  for (int round = 0; round <= max_repairs + 1; ++round) {
    summary = JudgePhaseSummary{};  // counts of this round's resolution
    std::vector<JudgeState> states = resolve_judging(spec, plan, judge, store, rows, max_repairs);
    std::vector<ModelCall> calls;
    for (auto& s : states) {
      if (s.kind != JudgeState::Kind::no_answer) ++summary.answers;
      switch (s.kind) {
        case JudgeState::Kind::no_answer: break;
        case JudgeState::Kind::scored: ++summary.scored; break;
        case JudgeState::Kind::invalid:
          ++summary.invalid;
          if (summary.problems.size() < 5) summary.problems.push_back(s.scores.problem);
          break;
        case JudgeState::Kind::failed:
        case JudgeState::Kind::pending:
          (s.kind == JudgeState::Kind::failed ? summary.failed : summary.pending) += 1;
          if (s.next && (s.kind == JudgeState::Kind::pending || round == 0)) calls.push_back(std::move(*s.next));
          break;
      }
    }
    if (calls.empty() || round > max_repairs) break;
    RunSummary sent = run_plan(calls, store, round_options, cancel, hooks);
    if (round_options.budget_usd)  // the budget covers every round together
      *round_options.budget_usd = std::max(0.0, *round_options.budget_usd - sent.spend_usd);
    rounds.push_back(sent);
    if (sent.cancelled || !sent.fatal_error.empty()) {
      summary.stopped = true;
      break;
    }
  }
  summary.rounds = std::move(rounds);
  return summary;
}

double JudgePhaseSummary::spend_usd() const {
  double total = 0;
  for (const auto& r : rounds) total += r.spend_usd;
  return total;
}

JudgePhaseSummary judge_answers(const Audit& audit, Store& store, std::size_t judge, const Selection& selection,
                                double spent_usd, const std::atomic<bool>& cancel, const RunHooks& hooks) {
  SchedulerOptions options = scheduler_options(audit.spec(), audit.options);
  if (options.budget_usd) *options.budget_usd = std::max(0.0, *options.budget_usd - spent_usd);  // one budget per run
  JudgeBuilder builder(audit.spec(), audit.sources(), static_cast<int>(judge));
  return run_judge_phase(audit.spec(), audit.plan(), builder, store, selection.rows, audit.options.repairs, options,
                         cancel, hooks);
}

analyze::ScoreTable scores_from_store(const Spec& spec, const Plan& plan, const JudgeBuilder& judge, Store& store,
                                      int max_repairs) {
  analyze::ScoreTable table;
  table.path = store.path().string();
  table.dims = judge.dims();
  std::vector<std::size_t> rows(plan.requests.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  std::vector<JudgeState> states = resolve_judging(spec, plan, judge, store, rows, max_repairs);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (states[i].kind != JudgeState::Kind::scored) continue;
    analyze::ScoreRow row = analyze::score_row_of(spec, plan, plan.requests[i]);
    row.scores = states[i].scores.scores;
    row.line = table.rows.size() + 2;  // its line in scores_csv()
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string scores_csv(const Spec& spec, const analyze::ScoreTable& table) {
  // Several raters (for agreement analyses) are told apart by a first column `rater`.
  const bool by_rater = !table.others.empty();
  std::string out = by_rater ? "rater,seed,model,arm" : "seed,model,arm";
  for (const auto& f : spec.factors) out += "," + csv_field(f.name);
  for (const auto& d : table.dims) out += "," + csv_field(d);
  out += "\n";
  auto write = [&](const std::string& rater, const std::vector<analyze::ScoreRow>& rows) {
    for (const auto& row : rows) {
      if (by_rater) out += csv_field(rater) + ",";
      out += csv_field(spec.seeds[row.seed].id) + "," + csv_field(spec.models[row.model].name) + "," +
             csv_field(spec.arms[row.arm].name);
      for (std::size_t f = 0; f < spec.factors.size(); ++f)
        out += "," + csv_field(spec.factors[f].levels[row.levels[f]].name.name);
      for (double s : row.scores) out += "," + (analyze::is_na(s) ? std::string("N/A") : fmt::format("{}", s));
      out += "\n";
    }
  };
  write(table.rater, table.rows);
  for (const auto& o : table.others) write(o.rater, o.rows);
  return out;
}

}  // namespace mirac
