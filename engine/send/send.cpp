#include "engine/send/send.hpp"

#include <map>
#include <set>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runtime/providers/environment.hpp"
#include "runtime/scheduler/block_send.hpp"
#include "runtime/store/store.hpp"

namespace mirac {

SchedulerOptions scheduler_options(const Spec& spec, const AuditOptions& o) {
  SchedulerOptions s;
  for (const auto& [name, provider] : spec.providers) {
    ProviderLimits limits = s.default_limits;
    const auto& cfg = provider.settings;
    if (cfg.contains("concurrency") && cfg["concurrency"].is_number()) limits.max_in_flight = cfg["concurrency"].get<int>();
    if (cfg.contains("rpm") && cfg["rpm"].is_number()) limits.rpm = cfg["rpm"].get<double>();
    if (cfg.contains("tpm") && cfg["tpm"].is_number()) limits.tpm = cfg["tpm"].get<double>();
    if (o.concurrency > 0) limits.max_in_flight = o.concurrency;
    s.provider_limits[name] = limits;
    // Times in seconds; a setting that is not a positive number keeps the default.
    auto seconds = [&cfg](const char* key, double& into) {
      if (cfg.contains(key) && cfg[key].is_number() && cfg[key].get<double>() > 0) into = cfg[key].get<double>();
    };
    ProviderTimeouts timeouts = s.timeouts;
    seconds("connect_timeout", timeouts.connect_s);
    seconds("first_byte_timeout", timeouts.first_byte_s);
    seconds("timeout", timeouts.total_s);
    if (o.timeout_s > 0) timeouts.total_s = o.timeout_s;
    s.provider_timeouts[name] = timeouts;
    RetryPolicy retry = s.retry;
    seconds("max_retry_after", retry.max_retry_after_s);
    seconds("max_pause", retry.max_pause_s);
    if (cfg.contains("max_attempts") && cfg["max_attempts"].is_number_integer() && cfg["max_attempts"].get<int>() > 0)
      retry.max_attempts = cfg["max_attempts"].get<int>();
    s.provider_retry[name] = retry;
    if (provider.endpoints.size() > 1) s.provider_endpoints[name] = provider.endpoints;
    // A provider with a batch API says what its batches cost (`batch_price`).
    if (cfg.contains("batch_price") && cfg["batch_price"].is_number()) {
      BatchSettings batch = s.batch;
      batch.price_factor = cfg["batch_price"].get<double>();
      seconds("batch_poll", batch.poll_s);
      if (cfg.contains("batch_size") && cfg["batch_size"].is_number_integer() && cfg["batch_size"].get<long long>() > 0)
        batch.max_requests = cfg["batch_size"].get<std::size_t>();
      s.provider_batch[name] = batch;
    }
  }
  s.batch_all = o.batch;
  // Providers a plan reaches without a declaration (none today) still honour --timeout.
  if (o.timeout_s > 0) s.timeouts.total_s = o.timeout_s;
  // Prices as check resolved them (a model's own `price`, else its provider's `prices`
  // table), keyed by model string as the scheduler bills. Judges are paid calls too. One
  // model string priced twice (check warns) keeps the higher of each part, so that a
  // budget errs towards stopping early.
  auto add_price = [&](const std::string& model, const std::optional<Price>& p) {
    if (!p) return;
    auto [it, fresh] = s.prices.try_emplace(model, ModelPrice{p->input, p->output});
    if (fresh) return;
    if (p->input > it->second.input_per_mtok) it->second.input_per_mtok = p->input;
    if (p->output > it->second.output_per_mtok) it->second.output_per_mtok = p->output;
  };
  for (const auto& m : spec.models) add_price(m.model, m.price);
  for (const auto& j : spec.judges) add_price(j.model, j.price);
  // Rewriters (`mirac rewrite`) are priced from their provider's table.
  for (const auto& v : spec.variants) {
    if (!v.rewriter) continue;
    auto provider = spec.providers.find(v.rewriter->preset.name);
    if (provider == spec.providers.end()) continue;
    auto price = provider->second.prices.find(v.rewriter->model.value);
    if (price != provider->second.prices.end()) add_price(v.rewriter->model.value, price->second);
  }
  s.budget_usd = o.budget_usd;
  s.transport = o.http;
  s.environment = o.env;
  return s;
}

Outcome check_ready_to_send(const Audit& audit, const Selection& selection, bool judging) {
  const Spec& spec = audit.spec();
  std::vector<ModelCall> probes;  // one call per judge, as far as keys and prices go
  for (const auto& j : spec.judges) {
    auto provider = spec.providers.find(j.provider);
    ModelCall probe;
    if (provider != spec.providers.end()) {
      probe.provider = provider->second.name;
      probe.key_env = provider->second.key_env;
    }
    probe.model = j.model;
    probes.push_back(std::move(probe));
  }
  std::vector<ModelCall> keyed;
  for (std::size_t j = 0; j < probes.size() && judging; ++j)
    if (spec.providers.count(spec.judges[j].provider)) keyed.push_back(probes[j]);
  // The answers still to buy: a resumed run needs no key for what its store already holds.
  // Reading what it holds is a pass over the store, so only when some key is missing at all.
  // Each request counts as its model's call (its target): a key is the model's, not the prompt's.
  const Plan& plan = audit.plan();
  auto targets_of = [&plan, &selection](const HashSet* done) {
    CallRefs out;
    out.reserve(selection.rows.size());
    for (std::size_t row : selection.rows) {
      const RequestRow& r = plan.requests[row];
      if (r.target && !(done && done->count(r.digest))) out.push_back(r.target.get());
    }
    return out;
  };
  const Environment& env = environment(audit.options);
  std::vector<MissingKey> answers = missing_keys(targets_of(nullptr), env);
  if (!answers.empty() && audit.has_store()) {
    std::string error;
    if (auto store = Store::open(audit.run_dir, error)) {
      const HashSet done = store->done_hashes();
      answers = missing_keys(targets_of(&done), env);
    }
  }
  const std::vector<MissingKey> judges = missing_keys(keyed, env);
  if (!answers.empty() || !judges.empty()) {
    // Every missing key at once, answers' and judges' together, so that one fix is enough.
    std::map<std::string, std::pair<std::string, std::string>> needs;  // key_env -> (answers, judges)
    for (const auto& m : answers)
      needs[m.key_env].first = fmt::format("{} for {} request{}", fmt::join(m.providers, ", "), m.calls,
                                           m.calls == 1 ? "" : "s");
    for (const auto& m : judges) needs[m.key_env].second = fmt::format("the judge on {}", fmt::join(m.providers, ", "));
    std::string message = fmt::format("mirac: {} API key{} missing; nothing was sent:\n", needs.size(),
                                      needs.size() == 1 ? " is" : "s are");
    for (const auto& [key, by] : needs)
      message += fmt::format("  {} (needed by {}{}{})\n", shown_key_env(key), by.first,
                             !by.first.empty() && !by.second.empty() ? ", and by " : "", by.second);
    message += judges.empty() ? "set them and run again" : "set them, or collect the answers alone with --answers-only";
    return Outcome::fail(kRunError, message);
  }
  if (!audit.options.budget_usd || !judging) return {};  // the answers' prices: the scheduler's check
  const SchedulerOptions options = scheduler_options(spec, audit.options);
  if (std::string why = unpriced_message("a budget needs a price for every judge too", probes, options.prices); !why.empty())
    return Outcome::fail(kRunError, "mirac: " + why);
  return {};
}

RunSummary send_answers(const Audit& audit, Store& store, const Selection& selection, const std::atomic<bool>& cancel,
                        const RunHooks& hooks) {
  const Plan& plan = audit.plan();
  SchedulerOptions options = scheduler_options(audit.spec(), audit.options);
  // A spec that declares its truth gets answers that claim nothing: its scores come from
  // the declaration (the judge phase), not from anything in the text.
  if (audit.spec().simulate)
    options.offline_replies = [](const OfflineRequest& r) {
      return placeholder_answer(r.model, r.system, r.user, r.answer);
    };
  // What the store holds is found once, in one pass; the calls are built from the plan's
  // compact rows a block at a time (BlockSend), so that the phase holds a block's calls
  // rather than one per request. A request the plan makes twice is sent and counted once.
  const HashSet done = store.done_hashes();
  HashSet seen;
  seen.reserve(selection.rows.size());
  std::vector<const RequestRow*> pending;  // a pointer each: 3.5 MB at ten times MIRA
  std::size_t answered = 0;
  for (std::size_t row : selection.rows) {
    const RequestRow& r = plan.requests[row];
    if (!seen.insert(r.digest)) continue;
    if (done.count(r.digest)) ++answered;
    else pending.push_back(&r);
  }
  seen = HashSet{};
  // A budget needs every model still to be asked priced before anything is sent, not
  // block by block once some were.
  if (options.budget_usd) {
    std::set<const ModelCall*> targets;
    for (const RequestRow* r : pending)
      if (r->target) targets.insert(r->target.get());
    if (std::string why = unpriced_message("a budget needs a price for every model", CallRefs(targets.begin(), targets.end()),
                                           options.prices);
        !why.empty()) {
      RunSummary refused;
      refused.fatal_error = why;
      return refused;
    }
  }
  options.calls_not_answered = true;  // found above: a block's scheduler need not look again
  BlockSend sender(store, options, cancel, hooks, "answers");
  sender.expect(answered + pending.size());
  sender.skip(answered);
  for (const RequestRow* r : pending) sender.add(r->call());
  return sender.finish();
}

}  // namespace mirac
