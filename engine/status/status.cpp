#include "engine/status/status.hpp"

#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "engine/judge/judge_phase.hpp"
#include "runtime/store/journal.hpp"

namespace mirac {

void Tally::add(const HashOccurrences& hashes, std::size_t position, const HashState* s) {
  if (!counted.first_time(hashes, position)) return;
  if (!s) ++report.pending;
  else if (s->done) ++report.done;
  else ++report.failed[s->cause];
}

namespace {

/// Each selected row's state, by its position in the selection; empty: not in the store.
using States = std::vector<std::optional<HashState>>;

// Every selected row's state, from one scan of the store: its answers are matched to the
// selection's hashes as they are read, not collected into a set first. The same scan sums
// what was spent and collects the marked answers.
States read_states(Store& store, const Plan& plan, const std::vector<std::size_t>& rows, const HashOccurrences& hashes,
                   double& spend_usd, std::unordered_map<std::string, Store::Marks>& marked) {
  States states(rows.size());
  HashMap<std::size_t> position;
  position.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (hashes.first(i) == i) position.emplace(plan.requests[rows[i]].digest, i);
  spend_usd = 0;
  store.scan_states([&](const Store::ScannedAnswer& a) {
    spend_usd += a.cost_usd;
    if (a.done && (a.truncated || !a.warnings.empty()))
      marked.emplace(std::string(a.hash), Store::Marks{a.truncated, std::string(a.warnings)});
    if (const std::size_t* at = position.find(a.hash))
      states[*at] = HashState{a.done, a.done ? std::string() : std::string(a.cause)};
  });
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (hashes.first(i) != i) states[i] = states[hashes.first(i)];
  return states;
}

void tally(const Spec& spec, const Plan& plan, const std::vector<std::size_t>& rows, const HashOccurrences& hashes,
           const States& states, RunStatus& g) {
  std::map<std::pair<int, int>, Tally> by_pair;
  g.levels.resize(spec.factors.size());
  g.level_requests.resize(spec.factors.size());
  for (std::size_t f = 0; f < spec.factors.size(); ++f) {
    g.levels[f].resize(spec.factors[f].levels.size());
    g.level_requests[f].resize(spec.factors[f].levels.size());
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const RequestRow& r = plan.requests[rows[i]];
    const HashState* s = i < states.size() && states[i] ? &*states[i] : nullptr;
    g.all.add(hashes, i, s);
    by_pair[{r.model, r.arm}].add(hashes, i, s);
    const PromptRow& p = plan.prompts[r.prompt];
    for (std::size_t f = 0; f < spec.factors.size(); ++f) {
      auto l = static_cast<std::size_t>(p.levels[f]);
      g.levels[f][l].add(hashes, i, s);
      ++g.level_requests[f][l];
    }
  }
  for (auto& [key, t] : by_pair)
    g.model_arm.emplace_back(spec.models[static_cast<std::size_t>(key.first)].name + "/" +
                                 spec.arms[static_cast<std::size_t>(key.second)].name,
                             std::move(t));
}

// Every judge's counts over the selected requests that have a done answer, each distinct
// request once (as the counts above: identical requests share one answer, and so one judge
// request). Only done answers are resolved, since nothing else can be judged; the judge
// replies are read from the store as `mirac run` and `mirac analyze` read them.
std::vector<JudgingCounts> count_judging(const Audit& audit, Store* store, const std::vector<std::size_t>& rows,
                                         const HashOccurrences& hashes, const States& states) {
  const Spec& spec = audit.spec();
  std::vector<std::size_t> done;
  for (std::size_t i = 0; i < rows.size() && i < states.size(); ++i)
    if (states[i] && states[i]->done && hashes.first(i) == i) done.push_back(rows[i]);
  std::vector<JudgingCounts> out;
  for (std::size_t j = 0; j < spec.judges.size(); ++j) {
    JudgingCounts counts;
    counts.judge = spec.judges[j].name;
    counts.model = spec.judges[j].model;
    std::vector<JudgeState> states;
    if (store && !done.empty()) {
      JudgeBuilder judge(spec, audit.sources(), static_cast<int>(j));
      states = resolve_judging(spec, audit.plan(), judge, *store, done, audit.options.repairs, JudgmentDetail::scores);
      // An answer that went away since it was listed is no_answer, and not counted.
      for (const JudgeState& s : states) counts.add(s.kind);
    }
    counts.by_level = states_by_level(spec, audit.plan(), done, states);
    out.push_back(std::move(counts));
  }
  return out;
}

// Selected requests whose answer is not in the store but waits in the journal.
std::size_t count_journaled(const Audit& audit, const std::vector<std::size_t>& rows, const HashOccurrences& hashes,
                            const States& states) {
  const auto journal = journal_path(audit.run_dir);
  std::error_code ec;
  if (!std::filesystem::exists(journal, ec)) return 0;
  std::size_t unreadable = 0;
  std::unordered_set<std::string> waiting;
  for (const auto& e : read_journal(journal, unreadable))
    if (e.answer.status == "done") waiting.insert(e.answer.hash);
  std::size_t counted = 0;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (hashes.first(i) == i && !(states[i] && states[i]->done) && waiting.count(audit.plan().requests[rows[i]].hash()))
      ++counted;
  return counted;
}

nlohmann::ordered_json counts_json(const StatusReport& r) {
  nlohmann::ordered_json j;
  j["done"] = r.done;
  j["failed"] = r.failed_total();
  j["failed_by_cause"] = nlohmann::ordered_json::object();
  for (const auto& [cause, n] : r.failed) j["failed_by_cause"][cause] = n;
  j["pending"] = r.pending;
  return j;
}

}  // namespace

Outcome audit_status(const Audit& audit, RunStatus& status) {
  Selection selection;
  if (Outcome selected = select_requests(audit, selection); !selected.ok()) return selected;
  status.plan_requests = audit.plan().requests.size();
  status.requests = selection.rows.size();
  status.store_exists = audit.has_store();
  const HashOccurrences hashes(audit.plan(), selection.rows);
  States states(selection.rows.size());
  std::unique_ptr<Store> store;
  if (status.store_exists) {
    Outcome opened;
    store = open_store(audit, opened);
    if (!store) return opened;
    std::unordered_map<std::string, Store::Marks> marked;
    states = read_states(*store, audit.plan(), selection.rows, hashes, status.spend_usd, marked);
    std::vector<char> done(states.size());
    for (std::size_t i = 0; i < states.size(); ++i) done[i] = states[i] && states[i]->done;
    status.marks = count_marks(audit.spec(), audit.plan(), selection.rows, done, marked);
    status.journaled = count_journaled(audit, selection.rows, hashes, states);
    std::string error;
    if (auto batches = BatchStore::open_to_read(audit.run_dir, error)) status.batches = batches->batches(false);
  }
  status.judging = count_judging(audit, store.get(), selection.rows, hashes, states);
  status.invariance = invariance_status(audit, store.get(), selection);
  tally(audit.spec(), audit.plan(), selection.rows, hashes, states, status);
  return {};
}

nlohmann::ordered_json status_json(const Audit& audit, const RunStatus& g) {
  const Spec& spec = audit.spec();
  nlohmann::ordered_json j;
  j["spec"] = spec.name;
  j["store"] = audit.run_dir.string();
  j["store_exists"] = g.store_exists;
  const std::string& only = audit.options.only;
  j["only"] = only.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(only);
  j["plan_requests"] = g.plan_requests;
  j["requests"] = g.requests;
  j["all"] = counts_json(g.all.report);
  j["by_model_arm"] = nlohmann::ordered_json::array();
  for (const auto& [name, t] : g.model_arm) {
    nlohmann::ordered_json row;
    auto slash = name.find('/');
    row["model"] = name.substr(0, slash);
    row["arm"] = name.substr(slash + 1);
    row.update(counts_json(t.report));
    j["by_model_arm"].push_back(row);
  }
  j["by_factor"] = nlohmann::ordered_json::array();
  for (std::size_t f = 0; f < spec.factors.size(); ++f) {
    nlohmann::ordered_json levels = nlohmann::ordered_json::array();
    for (std::size_t l = 0; l < spec.factors[f].levels.size(); ++l) {
      if (g.level_requests[f][l] == 0) continue;
      nlohmann::ordered_json row;
      row["level"] = spec.factors[f].levels[l].name.name;
      row.update(counts_json(g.levels[f][l].report));
      levels.push_back(row);
    }
    j["by_factor"].push_back({{"factor", spec.factors[f].name}, {"levels", levels}});
  }
  j["repairs"] = audit.options.repairs;
  auto states_json = [](const JudgeStates& c) {
    return nlohmann::ordered_json{{"answers", c.answers}, {"scored", c.scored}, {"invalid", c.invalid},
                                  {"failed", c.failed},   {"pending", c.pending}};
  };
  nlohmann::ordered_json judging = nlohmann::ordered_json::array();
  for (const auto& c : g.judging) {
    nlohmann::ordered_json row{{"judge", c.judge}, {"model", c.model}};
    row.update(states_json(c));
    nlohmann::ordered_json factors = nlohmann::ordered_json::array();
    for (std::size_t f = 0; f < c.by_level.size(); ++f) {
      nlohmann::ordered_json levels = nlohmann::ordered_json::array();
      for (std::size_t l = 0; l < c.by_level[f].size(); ++l) {
        if (c.by_level[f][l].answers == 0) continue;
        nlohmann::ordered_json level{{"level", spec.factors[f].levels[l].name.name}};
        level.update(states_json(c.by_level[f][l]));
        levels.push_back(std::move(level));
      }
      factors.push_back({{"factor", spec.factors[f].name}, {"levels", std::move(levels)}});
    }
    row["by_factor"] = std::move(factors);
    judging.push_back(std::move(row));
  }
  j["judging"] = judging;
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const auto& c : g.invariance) {
    nlohmann::ordered_json row{{"analysis", c.name}};
    if (c.rubric.empty()) row["translated"] = c.translated, row["cut"] = c.cut;
    else row["rubric"] = c.rubric;
    row.update({{"sampled", c.sampled}, {"answered", c.answered}, {"scored", c.scored}, {"invalid", c.invalid},
                {"failed", c.failed}, {"pending", c.pending}});
    checks.push_back(std::move(row));
  }
  j["invariance"] = checks;
  j["answers_marked"] = marks_json(spec, g.marks);
  j["journaled"] = g.journaled;
  j["batches"] = nlohmann::ordered_json::array();
  for (const auto& b : g.batches)
    j["batches"].push_back({{"id", b.local_id},
                            {"provider", b.provider},
                            {"model", b.model},
                            {"state", b.state},
                            {"remote_id", b.remote_id},
                            {"remote_status", b.remote_status},
                            {"requests", b.requests},
                            {"finished", b.finished},
                            {"created_at", b.created_at},
                            {"updated_at", b.updated_at},
                            {"message", b.message}});
  j["spend_usd"] = g.spend_usd;
  return j;
}

}  // namespace mirac
