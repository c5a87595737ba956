#include "engine/selection.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "interpreter/model/diagnostics.hpp"
#include "interpreter/scores/plan_analyses.hpp"
#include "runtime/store/hash_key.hpp"
#include "runtime/store/hash_set.hpp"

namespace mirac {

bool OnlyFilter::keeps(const std::string& key, const std::string& value) const {
  auto it = values.find(key);
  return it == values.end() || it->second.count(value) > 0;
}

bool split_only(const std::string& text, std::vector<std::pair<std::string, std::string>>& items, std::string& error) {
  for (std::size_t start = 0; start < text.size();) {
    std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() : comma + 1;
    std::size_t eq = item.find('=');
    if (eq == std::string::npos) {
      // `seed=1,2,3`: a bare value after a key=value item is another value of that key.
      if (!items.empty() && !item.empty()) {
        items.emplace_back(items.back().first, item);
        continue;
      }
      error = fmt::format("--only expects key=value items, got '{}'", item);
      return false;
    }
    items.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return true;
}

bool parse_only(const std::string& text, const Spec& spec, bool with_model_arm, OnlyFilter& filter,
                std::string& error) {
  std::vector<std::string> models, arms;
  for (const auto& m : spec.models) models.push_back(m.name);
  for (const auto& a : spec.arms) arms.push_back(a.name);
  std::vector<std::pair<std::string, std::string>> items;
  if (!split_only(text, items, error)) return false;
  for (const auto& [key, value] : items) {
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

namespace {

// What a stratum key reads from a request: a factor's level, the model, the arm, the seed
// or a seed field. Empty `error` when `key` names one of them.
std::function<std::string(const RequestRow&)> stratum_reader(const Spec& spec, const Plan& plan, const std::string& key,
                                                             std::string& error) {
  auto prompt = [&plan](const RequestRow& r) -> const PromptRow& { return plan.prompts[r.prompt]; };
  if (int f = spec.factor_index(key); f >= 0)
    return [&spec, prompt, f](const RequestRow& r) {
      const auto& factor = spec.factors[static_cast<std::size_t>(f)];
      return factor.levels[static_cast<std::size_t>(prompt(r).levels[static_cast<std::size_t>(f)])].name.name;
    };
  if (key == "model") return [&spec](const RequestRow& r) { return spec.models[static_cast<std::size_t>(r.model)].name; };
  if (key == "arm") return [&spec](const RequestRow& r) { return spec.arms[static_cast<std::size_t>(r.arm)].name; };
  if (key == "seed") return [prompt](const RequestRow& r) { return prompt(r).seed; };
  if (key.rfind("seed.", 0) == 0) {
    const std::string field = key.substr(5);
    for (const auto& f : spec.seed_fields)
      if (f.name == field && f.index_factor < 0)
        return [&spec, prompt, field](const RequestRow& r) {
          const Seed* seed = spec.find_seed(prompt(r).seed);
          if (!seed) return std::string();
          auto v = seed->fields.find(field);
          return v == seed->fields.end() ? std::string() : v->second;
        };
  }
  std::vector<std::string> keys = {"model", "arm", "seed"};
  for (const auto& f : spec.factors) keys.push_back(f.name);
  for (const auto& f : spec.seed_fields)
    if (f.index_factor < 0) keys.push_back("seed." + f.name);
  error = with_suggestion(fmt::format("--stratify: '{}' is neither a factor nor model, arm, seed or a seed field", key),
                          key, keys);
  return {};
}

// A uniform index below n from a 64-bit generator whose output the C++ standard fixes
// (std::shuffle's algorithm is the library's own), so a pilot is the same everywhere.
std::size_t below(std::mt19937_64& rng, std::size_t n) { return static_cast<std::size_t>(rng() % n); }

template <typename T>
void seeded_shuffle(std::vector<T>& v, std::mt19937_64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(rng, i)]);
}

}  // namespace

Outcome sample_strata(const Audit& audit, std::vector<std::size_t>& rows) {
  const Spec& spec = audit.spec();
  const Plan& plan = audit.plan();
  std::vector<std::string> keys;
  for (std::size_t start = 0; start < audit.options.stratify.size();) {
    std::size_t comma = audit.options.stratify.find(',', start);
    std::string key = audit.options.stratify.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? audit.options.stratify.size() : comma + 1;
    if (!key.empty()) keys.push_back(key);
  }
  if (keys.empty()) {
    for (const auto& f : spec.factors) keys.push_back(f.name);
    keys.insert(keys.end(), {"model", "arm"});
  }
  std::vector<std::function<std::string(const RequestRow&)>> readers;
  for (const auto& key : keys) {
    std::string error;
    readers.push_back(stratum_reader(spec, plan, key, error));
    if (!error.empty()) return Outcome::fail(kUsageError, "mirac: " + error);
  }
  if (audit.options.sample >= rows.size()) return {};
  // The strata, in the order of their keys' values; each one's rows in a seeded order.
  std::map<std::vector<std::string>, std::vector<std::size_t>> strata;
  for (std::size_t row : rows) {
    std::vector<std::string> values;
    for (const auto& read : readers) values.push_back(read(plan.requests[row]));
    strata[values].push_back(row);
  }
  std::mt19937_64 rng(audit.options.sample_seed);
  std::vector<std::vector<std::size_t>*> order;
  for (auto& [values, members] : strata) {
    seeded_shuffle(members, rng);
    order.push_back(&members);
  }
  seeded_shuffle(order, rng);  // which strata get one more when the sample does not divide evenly
  // Deal one request per stratum per round until the sample is full: as even as the strata's
  // sizes allow, small strata giving all they have.
  std::vector<std::size_t> picked;
  for (std::size_t round = 0; picked.size() < audit.options.sample; ++round)
    for (auto* members : order)
      if (round < members->size() && picked.size() < audit.options.sample) picked.push_back((*members)[round]);
  std::sort(picked.begin(), picked.end());
  rows = std::move(picked);
  return {};
}

Outcome select_requests(const Audit& audit, Selection& selection) {
  const Spec& spec = audit.spec();
  const Plan& plan = audit.plan();
  OnlyFilter only;
  std::string error;
  if (!parse_only(audit.options.only, spec, true, only, error)) return Outcome::fail(kUsageError, "mirac: " + error);
  for (std::size_t i = 0; i < plan.requests.size(); ++i) {
    const RequestRow& r = plan.requests[i];
    const PromptRow& p = plan.prompts[r.prompt];
    bool keep = only.keeps("model", spec.models[static_cast<std::size_t>(r.model)].name) &&
                only.keeps("arm", spec.arms[static_cast<std::size_t>(r.arm)].name) && only.keeps("seed", p.seed);
    for (std::size_t f = 0; keep && f < spec.factors.size(); ++f)
      keep = only.keeps(spec.factors[f].name, spec.factors[f].levels[static_cast<std::size_t>(p.levels[f])].name.name);
    if (!keep) continue;
    selection.rows.push_back(i);
  }
  if (audit.options.sample > 0) {
    if (Outcome o = sample_strata(audit, selection.rows); !o.ok()) return o;
  }
  if (audit.options.limit > 0 && selection.rows.size() > audit.options.limit) selection.rows.resize(audit.options.limit);
  return {};
}

std::string selection_said(const AuditOptions& options) {
  std::vector<std::string> parts;
  if (!options.only.empty()) parts.push_back("--only " + options.only);
  if (options.sample > 0) parts.push_back(fmt::format("--sample {}", options.sample));
  if (options.limit > 0) parts.push_back(fmt::format("--limit {}", options.limit));
  return fmt::format("{}", fmt::join(parts, " "));
}

namespace {

// A pilot may be too narrow for an analysis: a warning, as the pilot runs on and its report
// lacks that result (the whole audit, checked without a selection, reports it as an error).
void add_as_warnings(const Diagnostics& found, Diagnostics& diags) {
  for (const Diagnostic& d : found.all()) {
    diags.warning(d.range, d.message);
    for (const auto& note : d.notes) diags.note(note);
    if (d.severity == Severity::error) diags.note("a pilot: it runs, and its report lacks this result");
  }
}

}  // namespace

Audit open_selected_audit(const AuditOptions& options, bool check_selected) {
  const std::string said = selection_said(options);
  if (said.empty()) return open_audit(options);
  CheckOptions check = check_options(options);
  check.analyses_on_selection = true;
  std::vector<std::pair<std::string, std::string>> items;
  std::string error;
  if (split_only(options.only, items, error)) {
    for (const auto& [key, value] : items)
      if (key == "seed") {
        if (!check.seeds) check.seeds.emplace();
        check.seeds->insert(value);
      }
    if (check.seeds) check.seeds_said = fmt::format("--only seed={}", fmt::join(*check.seeds, ","));
  }
  Audit audit = adopt_compilation(options, compile(options.spec, check));
  if (!audit.ok()) return audit;
  Diagnostics& diags = audit.compilation->diags;
  // The plan is the whole audit's, and what it cannot feed is an error; or, when `--only
  // seed=` left out the seeds without data, it holds the pilot's seeds alone: warnings, as for
  // any selection.
  Diagnostics found;
  if (check.seeds && audit.spec().seeds.size() <= check.seeds->size()) {  // a pilot's seeds alone
    const std::size_t n = audit.spec().seeds.size();
    PlanSelection seeds{std::nullopt, fmt::format("the requests of the {} seed{} selected by {}", n, n == 1 ? "" : "s",
                                                  check.seeds_said)};
    check_plan_analyses(audit.spec(), audit.plan(), found, &seeds);
    add_as_warnings(found, diags);
  } else {
    check_plan_analyses(audit.spec(), audit.plan(), diags);
  }
  Selection selection;
  if (!check_selected || diags.has_errors() || !found.all().empty() || !select_requests(audit, selection).ok())
    return audit;
  if (selection.rows.size() == audit.plan().requests.size()) return audit;
  const std::size_t n = selection.rows.size();
  PlanSelection selected{std::move(selection.rows), fmt::format("the {} request{} selected by {}", n, n == 1 ? "" : "s", said)};
  check_plan_analyses(audit.spec(), audit.plan(), found, &selected);
  add_as_warnings(found, diags);
  return audit;
}

Plan selected_plan(const Plan& plan, const std::vector<std::size_t>& rows) {
  Plan out;
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::size_t> new_prompt(plan.prompts.size(), kNone), new_request(plan.requests.size(), kNone);
  out.requests.reserve(rows.size());
  for (std::size_t row : rows) {
    RequestRow r = plan.requests[row];
    std::size_t& prompt = new_prompt[r.prompt];
    if (prompt == kNone) {
      prompt = out.prompts.size();
      out.prompts.push_back(plan.prompts[r.prompt]);
    }
    r.prompt = prompt;
    new_request[row] = out.requests.size();
    out.requests.push_back(std::move(r));
  }
  for (const JudgeTask& t : plan.judge_tasks)
    if (new_request[t.request] != kNone) out.judge_tasks.push_back({new_request[t.request], t.judge});
  return out;
}

Audit open_narrowed_audit(const AuditOptions& options, Outcome& outcome) {
  Audit audit = open_selected_audit(options, options.check_analyses);
  if (!audit.ok() || selection_said(options).empty()) return audit;
  Selection selection;
  outcome = select_requests(audit, selection);
  if (outcome.ok()) audit.compilation->plan = selected_plan(audit.plan(), selection.rows);
  return audit;
}

HashOccurrences::HashOccurrences(const Plan& plan, const std::vector<std::size_t>& rows)
    : first_(rows.size()), repeated_(rows.size(), 0) {
  DigestTable<std::size_t> seen;  // flat: a node per request was most of this at ten times MIRA
  seen.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto [first, fresh] = seen.emplace(plan.requests[rows[i]].digest, i);
    first_[i] = *first;
    if (!fresh) repeated_[i] = repeated_[*first] = 1;
  }
}

}  // namespace mirac
