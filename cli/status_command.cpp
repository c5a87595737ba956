#include "cli/status_command.hpp"

#include <algorithm>
#include <memory>
#include <ostream>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "interpreter/driver.hpp"
#include "interpreter/judge.hpp"
#include "runtime/judge/judge_phase.hpp"
#include "runtime/scheduler/run_plan.hpp"
#include "runtime/store/store.hpp"

namespace mirac {

namespace {

constexpr int kOk = 0, kSpecError = 1, kUsageError = 2, kRunError = 4;

struct HashState {
  bool done = false;
  std::string cause;  ///< non-empty: failed, for this cause
};

// Counts over one group of requests. A hash counts once per group, as in Store::status:
// identical requests (two arms sending the same thing) share one answer.
struct Tally {
  StatusReport report;
  std::unordered_set<std::string> seen;
  void add(const std::string& hash, const HashState* s) {
    if (!seen.insert(hash).second) return;
    if (!s) ++report.pending;
    else if (s->done) ++report.done;
    else ++report.failed[s->cause];
  }
};

// Every selected hash's state, read with as few queries as the store allows: the done set
// at once, then one query per remaining hash only when some of them failed.
std::unordered_map<std::string, HashState> read_states(Store& store, const std::vector<const RequestRow*>& rows) {
  std::unordered_map<std::string, HashState> states;
  std::unordered_set<std::string> done = store.done_hashes();
  std::vector<std::string> rest;
  std::unordered_set<std::string> listed;
  for (const RequestRow* r : rows) {
    if (done.count(r->call.hash)) states[r->call.hash].done = true;
    else if (listed.insert(r->call.hash).second) rest.push_back(r->call.hash);
  }
  if (store.status(rest).failed_total() == 0) return states;
  for (const auto& h : rest) {
    StatusReport one = store.status({h});
    if (!one.failed.empty()) states[h].cause = one.failed.begin()->first;
  }
  return states;
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

struct Groups {
  Tally all;
  std::vector<std::pair<std::string, Tally>> model_arm;            // "model/arm", in spec order
  std::vector<std::vector<Tally>> levels;                          // [factor][level]
  std::vector<std::vector<std::size_t>> level_requests;            // selected requests per level
};

Groups tally(const Spec& spec, const Plan& plan, const std::vector<const RequestRow*>& rows,
             const std::unordered_map<std::string, HashState>& states) {
  Groups g;
  std::map<std::pair<int, int>, Tally> by_pair;
  g.levels.resize(spec.factors.size());
  g.level_requests.resize(spec.factors.size());
  for (std::size_t f = 0; f < spec.factors.size(); ++f) {
    g.levels[f].resize(spec.factors[f].levels.size());
    g.level_requests[f].resize(spec.factors[f].levels.size());
  }
  for (const RequestRow* r : rows) {
    auto it = states.find(r->call.hash);
    const HashState* s = it == states.end() ? nullptr : &it->second;
    g.all.add(r->call.hash, s);
    by_pair[{r->model, r->arm}].add(r->call.hash, s);
    const PromptRow& p = plan.prompts[r->prompt];
    for (std::size_t f = 0; f < spec.factors.size(); ++f) {
      auto l = static_cast<std::size_t>(p.levels[f]);
      g.levels[f][l].add(r->call.hash, s);
      ++g.level_requests[f][l];
    }
  }
  for (auto& [key, t] : by_pair)
    g.model_arm.emplace_back(spec.models[static_cast<std::size_t>(key.first)].name + "/" +
                                 spec.arms[static_cast<std::size_t>(key.second)].name,
                             std::move(t));
  return g;
}

void print_text(const Spec& spec, const Groups& g, std::ostream& out) {
  std::size_t width = 3;
  for (const auto& [name, t] : g.model_arm) width = std::max(width, name.size());
  out << fmt::format("{:<{}}  {}\n", "all", width, format_status(g.all.report));
  for (const auto& [name, t] : g.model_arm) out << fmt::format("{:<{}}  {}\n", name, width, format_status(t.report));
  // One compact table: a row per level of every factor (levels with no selected request left out).
  std::size_t fw = 6, lw = 5;
  for (const auto& f : spec.factors) {
    fw = std::max(fw, f.name.size());
    for (const auto& l : f.levels) lw = std::max(lw, l.name.name.size());
  }
  out << fmt::format("\n{:<{}}  {:<{}}  {:>8}  {:>8}  {:>8}\n", "factor", fw, "level", lw, "done", "failed", "pending");
  for (std::size_t f = 0; f < spec.factors.size(); ++f) {
    bool first = true;
    for (std::size_t l = 0; l < spec.factors[f].levels.size(); ++l) {
      if (g.level_requests[f][l] == 0) continue;
      const StatusReport& r = g.levels[f][l].report;
      out << fmt::format("{:<{}}  {:<{}}  {:>8}  {:>8}  {:>8}\n", first ? spec.factors[f].name : "", fw,
                         spec.factors[f].levels[l].name.name, lw, r.done, r.failed_total(), r.pending);
      first = false;
    }
  }
}

nlohmann::ordered_json status_json(const Spec& spec, const Groups& g) {
  nlohmann::ordered_json j;
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
  return j;
}

// Where the selected answers stand with one judge.
struct JudgingCounts {
  std::string judge, model;
  std::size_t answers = 0, scored = 0, invalid = 0, failed = 0, pending = 0;
};

// Every judge's counts over the selected requests that have a done answer, each distinct
// request once (as the counts above: identical requests share one answer, and so one judge
// request). Only done answers are resolved, since nothing else can be judged; the judge
// replies are read from the store as `mirac run` and `mirac analyze` read them.
std::vector<JudgingCounts> count_judging(const Compilation& c, Store* store, const std::vector<const RequestRow*>& rows,
                                         const std::unordered_map<std::string, HashState>& states, int repairs) {
  const Spec& spec = c.spec;
  std::vector<std::size_t> done;
  std::unordered_set<std::string> seen;
  for (const RequestRow* r : rows) {
    auto it = states.find(r->call.hash);
    if (it == states.end() || !it->second.done || !seen.insert(r->call.hash).second) continue;
    done.push_back(static_cast<std::size_t>(r - c.plan.requests.data()));
  }
  std::vector<JudgingCounts> out;
  for (std::size_t j = 0; j < spec.judges.size(); ++j) {
    JudgingCounts counts;
    counts.judge = spec.judges[j].name;
    counts.model = spec.judges[j].model;
    if (store && !done.empty()) {
      JudgeBuilder judge(spec, c.sources, static_cast<int>(j));
      for (const JudgeState& s : resolve_judging(spec, c.plan, judge, *store, done, repairs)) {
        switch (s.kind) {
          case JudgeState::Kind::no_answer: continue;  // the answer went away since it was listed
          case JudgeState::Kind::scored: ++counts.scored; break;
          case JudgeState::Kind::invalid: ++counts.invalid; break;
          case JudgeState::Kind::failed: ++counts.failed; break;
          case JudgeState::Kind::pending: ++counts.pending; break;
        }
        ++counts.answers;
      }
    }
    out.push_back(std::move(counts));
  }
  return out;
}

// The wording of `mirac run`'s judge summary, so the two read alike.
void print_judging(const std::vector<JudgingCounts>& judging, int repairs, std::ostream& out) {
  if (judging.empty()) return;
  out << fmt::format("\njudging (at most {} repair rounds):\n", repairs);
  for (const auto& j : judging)
    out << fmt::format("judge {}: {} answers, {} scored, {} unusable replies, {} failed, {} pending\n", j.judge,
                       j.answers, j.scored, j.invalid, j.failed, j.pending);
}

nlohmann::ordered_json judging_json(const std::vector<JudgingCounts>& judging) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& j : judging)
    list.push_back({{"judge", j.judge},
                    {"model", j.model},
                    {"answers", j.answers},
                    {"scored", j.scored},
                    {"invalid", j.invalid},
                    {"failed", j.failed},
                    {"pending", j.pending}});
  return list;
}

}  // namespace

bool OnlyFilter::keeps(const std::string& key, const std::string& value) const {
  auto it = values.find(key);
  return it == values.end() || it->second.count(value) > 0;
}

bool parse_only(const std::string& text, const Spec& spec, bool with_model_arm, OnlyFilter& filter,
                std::string& error) {
  std::vector<std::string> models, arms;
  for (const auto& m : spec.models) models.push_back(m.name);
  for (const auto& a : spec.arms) arms.push_back(a.name);
  for (std::size_t start = 0; start < text.size();) {
    std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() : comma + 1;
    std::size_t eq = item.find('=');
    if (eq == std::string::npos) {
      error = fmt::format("--only expects key=value items, got '{}'", item);
      return false;
    }
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    int f = spec.factor_index(key);
    const bool model_arm = with_model_arm && (key == "model" || key == "arm");
    if (f < 0 && key != "seed" && !model_arm) {
      error = fmt::format("--only: '{}' is neither a factor nor {}", key, with_model_arm ? "model, arm or seed" : "seed");
      return false;
    }
    // A misspelt value would silently select nothing; name the valid ones instead.
    const std::vector<std::string> valid = f >= 0 ? spec.factors[static_cast<std::size_t>(f)].level_names()
                                           : key == "model" ? models
                                           : key == "arm"   ? arms
                                                            : std::vector<std::string>{};
    if (key != "seed" && std::find(valid.begin(), valid.end(), value) == valid.end()) {
      error = fmt::format("--only: '{}' is not a {} of the spec ({})", value, f >= 0 ? "level of factor '" + key + "'" : key,
                          fmt::join(valid, ", "));
      return false;
    }
    filter.values[key].insert(value);
  }
  return true;
}

int cmd_status(const RunCommandOptions& o, std::ostream& out, std::ostream& err) { return cmd_status(o, false, out, err); }

int cmd_status(const RunCommandOptions& o, bool json, std::ostream& out, std::ostream& err) {
  auto c = compile_spec(o, err);
  if (!c->ok()) return kSpecError;
  const Spec& spec = c->spec;
  OnlyFilter only;
  std::string error;
  if (!parse_only(o.only, spec, true, only, error)) {
    err << "mirac: " << error << '\n';
    return kUsageError;
  }
  std::vector<const RequestRow*> rows;
  for (const auto& r : c->plan.requests) {
    const PromptRow& p = c->plan.prompts[r.prompt];
    bool keep = only.keeps("model", spec.models[static_cast<std::size_t>(r.model)].name) &&
                only.keeps("arm", spec.arms[static_cast<std::size_t>(r.arm)].name) && only.keeps("seed", p.seed);
    for (std::size_t f = 0; keep && f < spec.factors.size(); ++f)
      keep = only.keeps(spec.factors[f].name, spec.factors[f].levels[static_cast<std::size_t>(p.levels[f])].name.name);
    if (keep) rows.push_back(&r);
  }

  // Without a store nothing has run: every request is pending (and no store is created).
  std::filesystem::path dir = run_dir(spec, o);
  const bool exists = std::filesystem::exists(dir / "store.sqlite");
  std::unordered_map<std::string, HashState> states;
  std::vector<JudgingCounts> judging;
  double spend = 0;
  std::unique_ptr<Store> store;
  if (exists) {
    store = Store::open(dir, error);
    if (!store) {
      err << "mirac: " << error << '\n';
      return kRunError;
    }
    states = read_states(*store, rows);
    spend = store->total_spend();
  }
  judging = count_judging(*c, store.get(), rows, states, o.repairs);
  Groups g = tally(spec, c->plan, rows, states);

  if (json) {
    nlohmann::ordered_json j;
    j["spec"] = spec.name;
    j["store"] = dir.string();
    j["store_exists"] = exists;
    j["only"] = o.only.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o.only);
    j["plan_requests"] = c->plan.requests.size();
    j["requests"] = rows.size();
    j.update(status_json(spec, g));
    j["repairs"] = o.repairs;
    j["judging"] = judging_json(judging);
    j["spend_usd"] = spend;
    out << j.dump(2) << '\n';
    return kOk;
  }
  std::string selection = o.only.empty() ? fmt::format("{} requests", rows.size())
                                         : fmt::format("{} of {} requests (--only {})", rows.size(),
                                                       c->plan.requests.size(), o.only);
  out << fmt::format("status {}: {}, store {}{}\n", spec.name, selection, dir.string(),
                     exists ? "" : " (nothing run yet)");
  print_text(spec, g, out);
  print_judging(judging, o.repairs, out);
  out << fmt::format("spend so far: ${:.2f}\n", spend);
  return kOk;
}

}  // namespace mirac
