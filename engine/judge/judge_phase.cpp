#include "engine/judge/judge_phase.hpp"
#include "engine/judge/judgment_cache.hpp"
#include "engine/judge/simulated_judge.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <optional>

#include <fmt/format.h>

#include "interpreter/judge/criteria.hpp"

#include "engine/send/send.hpp"
#include "runtime/scheduler/block_send.hpp"
#include "runtime/text/csv_cells.hpp"

namespace mirac {

namespace {

// Where one chain of judge calls stands: a first request and its repairs, each asked when
// the reply before it was unusable (`problem_of` says why).
struct Chain {
  JudgeState::Kind kind = JudgeState::Kind::pending;
  std::string reply;     ///< the last usable reply (scored) or the last reply read
  std::string problem;   ///< why the last reply was unusable (invalid)
  std::string cause;     ///< failed: the call's error
  std::optional<ModelCall> next;
  int round = 0;
  std::string hash;
};

// How a chain's calls are made: `hash` alone finds a stored reply (most are stored), and
// `call` builds the request in full only when it is to be sent.
struct ChainCalls {
  std::function<std::string(const std::string& repair, int round, long long limit)> hash;
  std::function<ModelCall(const std::string& repair, int round, long long limit)> call;
};

Chain resolve_chain(Store& store, int max_repairs, long long own_limit, const ChainCalls& calls,
                    const std::function<std::string(const std::string& reply)>& problem_of) {
  Chain chain;
  std::string repair;
  long long limit = 0;  // the judge's own, until a reply is cut at it
  for (int round = 0;; ++round) {
    chain.round = round;
    chain.hash = calls.hash(repair, round, limit);
    std::shared_ptr<const Store::Brief> reply = store.brief(chain.hash);
    if (!reply) {
      chain.kind = JudgeState::Kind::pending;
      chain.next = calls.call(repair, round, limit);
      return chain;
    }
    if (reply->status != "done") {
      // A failed judge call is retried by the next run, like any failed request.
      chain.kind = JudgeState::Kind::failed;
      chain.cause = reply->cause;
      chain.next = calls.call(repair, round, limit);
      return chain;
    }
    chain.reply = reply->text;
    chain.problem = problem_of(reply->text);
    if (chain.problem.empty()) {
      chain.kind = JudgeState::Kind::scored;
      return chain;
    }
    chain.kind = JudgeState::Kind::invalid;
    if (reply->truncated) {
      // Cut at its token limit: the same request would be cut again. The repair doubles
      // the limit and asks for shorter rationales.
      chain.problem = "the reply was cut off at its token limit (" + chain.problem + ")";
      limit = std::min<long long>(2 * (limit > 0 ? limit : own_limit), 32768);
    }
    if (round >= max_repairs) return chain;
    repair = reply->truncated ? chain.problem + "; keep each rationale under 15 words" : chain.problem;
  }
}

// Adds a chain's call to what the state sends, and its standing to the state's.
void merge(JudgeState& state, Chain& chain, const std::string& label) {
  using Kind = JudgeState::Kind;
  if (chain.next) (chain.kind == Kind::failed ? state.failed_calls : state.pending_calls).push_back(std::move(*chain.next));
  auto rank = [](Kind k) { return k == Kind::failed ? 3 : k == Kind::pending ? 2 : k == Kind::invalid ? 1 : 0; };
  if (rank(chain.kind) > rank(state.kind)) {
    state.kind = chain.kind;
    state.cause = chain.cause;
    // A pending repair keeps the problem of the reply it repairs.
    state.scores.problem = chain.problem.empty() ? "" : label + chain.problem;
  }
}

using SharedHashing = std::optional<std::pair<std::size_t, JudgeBuilder::PromptHashing>>;  // (prompt, its part)

// Resolves the judgment of `text` as the answer to `row` into `state` (which starts
// scored; a chain that is not lowers it). `shared`, when given, keeps what the first calls
// of the current prompt's answers share, hashed once.
void resolve_text(const Spec& spec, const Plan& plan, const JudgeBuilder& judge, const ScoreReader& reader, Store& store,
                  const RequestRow& row, const std::string& text, int max_repairs, SharedHashing* shared,
                  JudgeState& state) {
  state.kind = JudgeState::Kind::scored;  // until a chain says otherwise
  // `per element`: one chain per criterion of the seed, each graded on its own.
  std::vector<CriterionGrade> grades;
  if (judge.grades_per_element()) {
    const std::size_t n = criteria_of(spec, judge.rubric(), plan.prompts[row.prompt].seed).size();
    for (std::size_t c = 0; c < n; ++c) {
      CriterionGrade grade;
      const ChainCalls calls{[&](const std::string& repair, int round, long long) {
                               return judge.criterion_call_hash(plan, row, text, c, repair, round);
                             },
                             [&](const std::string& repair, int round, long long) {
                               return judge.criterion_call(plan, row, text, c, repair, round);
                             }};
      Chain chain = resolve_chain(
          store, max_repairs, judge.token_limit(), calls,
          [&](const std::string& reply) {
            std::string problem;
            grade = read_criterion_reply(reply, problem);
            return problem;
          });
      grades.push_back(grade);
      state.rounds = std::max(state.rounds, chain.round);
      if (state.judge_hash.empty()) state.judge_hash = chain.hash;
      merge(state, chain, fmt::format("criterion {}: ", c + 1));
    }
  }
  const std::vector<CriterionGrade>* given = judge.grades_per_element() ? &grades : nullptr;
  if (!judge.asks_scores()) {
    if (state.kind == JudgeState::Kind::scored) state.scores = reader.read(plan, row, "", given);
    return;
  }
  const ChainCalls calls{[&](const std::string& repair, int round, long long limit) {
                           if (!shared || !repair.empty() || limit > 0)
                             return judge.call_hash(plan, row, text, repair, round, limit);
                           if (!*shared || (*shared)->first != row.prompt)
                             shared->emplace(row.prompt, judge.prompt_hashing(plan, row));
                           return judge.first_call_hash((*shared)->second, text);
                         },
                         [&](const std::string& repair, int round, long long limit) {
                           return judge.call(plan, row, text, repair, round, limit);
                         }};
  JudgedScores last_read;  // a scored chain ends on the reply read last: read once, not twice
  Chain chain = resolve_chain(
      store, max_repairs, judge.token_limit(), calls,
      [&](const std::string& reply) {
        last_read = reader.read(plan, row, reply, given);
        return last_read.problem;
      });
  state.round = chain.round;
  state.rounds = std::max(state.rounds, chain.round);
  state.judge_hash = chain.hash;
  const JudgeState::Kind before = state.kind;
  merge(state, chain, "");
  if (before == JudgeState::Kind::scored && chain.kind == JudgeState::Kind::scored) state.scores = std::move(last_read);
}

// Resolves the rows `todo` (positions in `rows`) into `out`. What a prompt's answers' first
// judge calls share is hashed once per prompt: they are taken prompt by prompt, and only the
// current prompt's shared part is kept.
void resolve_rows(const Spec& spec, const Plan& plan, const JudgeBuilder& judge, Store& store,
                  const std::vector<std::size_t>& rows, const std::vector<std::size_t>& todo, int max_repairs,
                  std::vector<JudgeState>& out) {
  ScoreReader reader(spec, judge);
  std::vector<std::size_t> mine = todo;
  std::stable_sort(mine.begin(), mine.end(), [&](std::size_t a, std::size_t b) {
    return plan.requests[rows[a]].prompt < plan.requests[rows[b]].prompt;
  });
  SharedHashing shared;
  for (std::size_t i : mine) {
    const RequestRow& row = plan.requests[rows[i]];
    std::shared_ptr<const Store::Brief> answer = store.brief(row.hash());
    if (!answer || answer->status != "done") continue;  // no_answer
    resolve_text(spec, plan, judge, reader, store, row, answer->text, max_repairs, &shared, out[i]);
  }
}

}  // namespace

JudgeState resolve_text_judging(const Spec& spec, const Plan& plan, const JudgeBuilder& judge, Store& store,
                                std::size_t row, const std::string& text, int max_repairs) {
  JudgeState state;
  ScoreReader reader(spec, judge);
  resolve_text(spec, plan, judge, reader, store, plan.requests[row], text, max_repairs, nullptr, state);
  return state;
}

JudgingResolver::JudgingResolver(const Spec& spec, const Plan& plan, const JudgeBuilder& judge, Store& store,
                                 int max_repairs, JudgmentDetail detail)
    : spec_(spec), plan_(plan), judge_(judge), store_(store), max_repairs_(max_repairs) {
  if (detail == JudgmentDetail::scores) kept_ = std::make_unique<JudgmentCache>(judge, plan, store);
}

JudgingResolver::~JudgingResolver() = default;

std::vector<JudgeState> JudgingResolver::resolve(const std::vector<std::size_t>& rows) {
  std::vector<JudgeState> out(rows.size());
  std::vector<std::size_t> todo;  // positions in `rows` the store keeps no judgment of
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (!kept_ || !kept_->fill(rows[i], max_repairs_, out[i])) todo.push_back(i);
  resolve_rows(spec_, plan_, judge_, store_, rows, todo, max_repairs_, out);
  if (kept_) kept_->save(rows, out);
  return out;
}

std::vector<JudgeState> resolve_judging(const Spec& spec, const Plan& plan, const JudgeBuilder& judge, Store& store,
                                        const std::vector<std::size_t>& rows, int max_repairs, JudgmentDetail detail) {
  // A block at a time, each answer and reply read when its block comes, all in one read
  // transaction (one file lock for every look-up): memory holds a block's texts, where a
  // copy of every answer and reply in the store was 1.2 GB at ten times MIRA the first
  // time a new build of mirac kept its judgments.
  constexpr std::size_t kResolveBlock = 16384;
  JudgingResolver resolver(spec, plan, judge, store, max_repairs, detail);
  const Store::ReadTransaction reading(store);
  std::vector<JudgeState> out;
  out.reserve(rows.size());
  std::vector<std::size_t> block;
  for (std::size_t start = 0; start < rows.size(); start += kResolveBlock) {
    block.assign(rows.begin() + static_cast<std::ptrdiff_t>(start),
                 rows.begin() + static_cast<std::ptrdiff_t>(std::min(rows.size(), start + kResolveBlock)));
    std::vector<JudgeState> states = resolver.resolve(block);
    std::move(states.begin(), states.end(), std::back_inserter(out));
  }
  return out;
}

void JudgeStates::add(JudgeState::Kind kind) {
  using Kind = JudgeState::Kind;
  if (kind == Kind::no_answer) return;
  ++answers;
  scored += kind == Kind::scored;
  invalid += kind == Kind::invalid;
  failed += kind == Kind::failed;
  pending += kind == Kind::pending;
}

std::vector<std::vector<JudgeStates>> states_by_level(const Spec& spec, const Plan& plan,
                                                      const std::vector<std::size_t>& rows,
                                                      const std::vector<JudgeState>& states) {
  std::vector<std::vector<JudgeStates>> out;
  add_states_by_level(spec, plan, rows, states, out);
  return out;
}

void add_states_by_level(const Spec& spec, const Plan& plan, const std::vector<std::size_t>& rows,
                         const std::vector<JudgeState>& states, std::vector<std::vector<JudgeStates>>& into) {
  into.resize(spec.factors.size());
  for (std::size_t f = 0; f < spec.factors.size(); ++f) into[f].resize(spec.factors[f].levels.size());
  for (std::size_t i = 0; i < rows.size() && i < states.size(); ++i) {
    const PromptRow& p = plan.prompts[plan.requests[rows[i]].prompt];
    for (std::size_t f = 0; f < spec.factors.size(); ++f) into[f][static_cast<std::size_t>(p.levels[f])].add(states[i].kind);
  }
}

std::vector<std::string> unscored_skews(const Spec& spec, const std::vector<std::vector<JudgeStates>>& by_level) {
  std::vector<std::string> out;
  for (std::size_t f = 0; f < by_level.size() && f < spec.factors.size(); ++f) {
    double lo = 1, hi = 0;
    std::string lo_level, hi_level;
    for (std::size_t l = 0; l < by_level[f].size(); ++l) {
      const JudgeStates& s = by_level[f][l];
      if (s.answers == 0) continue;
      const double share = static_cast<double>(s.unscored()) / static_cast<double>(s.answers);
      if (share < lo) lo = share, lo_level = spec.factors[f].levels[l].name.name;
      if (share > hi) hi = share, hi_level = spec.factors[f].levels[l].name.name;
    }
    if (hi - lo > 0.05)
      out.push_back(fmt::format("{:.1f}% unscored at {}={} but {:.1f}% at {}={}: the analyses leave them out", 100 * hi,
                                spec.factors[f].name, hi_level, 100 * lo, spec.factors[f].name, lo_level));
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
  // Offline, a spec's declared truth scores the answers (simulated_judge.hpp).
  std::unique_ptr<SimulatedJudge> simulated = SimulatedJudge::make(spec, plan, judge);
  round_options.offline_replies = simulated ? simulated->replies() : OfflineReplies{};
  // The answers in prompt order, so that a block holds whole prompts: their first judge
  // calls share what they hash.
  std::vector<std::size_t> order = rows;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return plan.requests[a].prompt < plan.requests[b].prompt;
  });
  // Each round sends what is pending; replies the rubric rejects come back as repair
  // requests in the next round. One round more than repairs sends them all. A round takes
  // the answers a block at a time (resolved, then their calls handed to the sender), so
  // that the judge requests held at once are a block's, not the round's.
  for (int round = 0; round <= max_repairs + 1; ++round) {
    summary = JudgePhaseSummary{};  // counts of this round's resolution
    add_states_by_level(spec, plan, {}, {}, summary.by_level);  // every level counted, even with no rows
    const bool sends = round <= max_repairs;
    BlockSend sender(store, round_options, cancel, hooks,
                     round == 0 ? "judge " + judge.judge().name : fmt::format("judge {} repair {}", judge.judge().name, round));
    JudgingResolver resolver(spec, plan, judge, store, max_repairs, JudgmentDetail::scores);
    std::vector<std::size_t> block;
    for (std::size_t from = 0; from < order.size() && !cancel.load(); from += kJudgeBlockAnswers) {
      block.assign(order.begin() + static_cast<std::ptrdiff_t>(from),
                   order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), from + kJudgeBlockAnswers)));
      std::vector<JudgeState> states = resolver.resolve(block);
      add_states_by_level(spec, plan, block, states, summary.by_level);
      for (std::size_t k = 0; k < states.size(); ++k) {
        JudgeState& s = states[k];
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
            break;
        }
        if (!sends) continue;
        // Failed calls are sent once per run (in its first round); what is pending, always.
        auto send = [&](ModelCall& c) {
          if (simulated) simulated->expect(c.hash, block[k]);
          sender.add(std::move(c));
        };
        for (auto& c : s.pending_calls) send(c);
        if (round == 0)
          for (auto& c : s.failed_calls) send(c);
      }
      // Calls so far, scaled to the whole round: the progress line's total until the last block.
      const std::size_t resolved = from + block.size();
      sender.expect(static_cast<std::size_t>(static_cast<double>(sender.added()) * static_cast<double>(order.size()) /
                                             static_cast<double>(resolved)));
    }
    if (!sends || sender.added() == 0) break;
    sender.expect(sender.added());
    RunSummary sent = sender.finish();
    if (round_options.budget_usd)  // the budget covers every round together
      *round_options.budget_usd = std::max(0.0, *round_options.budget_usd - sent.spend_usd);
    const bool stop = sent.cancelled || !sent.fatal_error.empty() || cancel.load();
    rounds.push_back(std::move(sent));
    if (stop) {
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
  std::vector<JudgeState> states = resolve_judging(spec, plan, judge, store, rows, max_repairs, JudgmentDetail::scores);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (states[i].kind != JudgeState::Kind::scored) continue;
    analyze::ScoreRow row = analyze::score_row_of(spec, plan, plan.requests[i]);
    row.scores = states[i].scores.scores;
    for (const auto& g : states[i].scores.criteria) row.criteria.push_back(g.met ? 1 : 0);
    row.line = table.rows.size() + 2;  // its line in scores_csv()
    table.rows.push_back(std::move(row));
  }
  return table;
}

void write_scores_csv(const Spec& spec, const analyze::ScoreTable& table,
                      const std::function<void(std::string_view)>& write_text) {
  // Several raters (for agreement analyses) are told apart by a first column `rater`.
  const bool by_rater = !table.others.empty();
  std::string out = by_rater ? "rater,seed,model,arm" : "seed,model,arm";
  for (const auto& f : spec.factors) out += "," + csv_text(f.name);
  // Several answers per prompt: which one, from 1 (a spec with one answer keeps its columns).
  const bool answers = spec.answers > 1;
  if (answers) out += ",answer";
  for (const auto& d : table.dims) out += "," + csv_text(d);
  out += "\n";
  write_text(out);
  auto write = [&](const std::string& rater, const std::vector<analyze::ScoreRow>& rows) {
    for (const auto& row : rows) {
      // Names and seed ids are text (a seed id from a data file may be anything); scores
      // are numbers. load_scores() reads the names back with csv_text_read().
      out.clear();
      if (by_rater) out += csv_text(rater) + ",";
      out += csv_text(spec.seeds[row.seed].id) + "," + csv_text(spec.models[row.model].name) + "," +
             csv_text(spec.arms[row.arm].name);
      for (std::size_t f = 0; f < spec.factors.size(); ++f)
        out += "," + csv_text(spec.factors[f].levels[row.levels[f]].name.name);
      if (answers) out += "," + std::to_string(row.answer + 1);
      for (double s : row.scores) out += "," + (analyze::is_na(s) ? std::string("N/A") : fmt::format("{}", s));
      out += "\n";
      write_text(out);
    }
  };
  write(table.rater, table.rows);
  for (const auto& o : table.others) write(o.rater, o.rows);
}

std::string scores_csv(const Spec& spec, const analyze::ScoreTable& table) {
  std::string out;
  write_scores_csv(spec, table, [&out](std::string_view text) { out += text; });
  return out;
}

}  // namespace mirac
