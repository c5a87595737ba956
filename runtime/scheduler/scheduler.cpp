// scheduler.cpp: one thread, one event loop. Admit requests per provider (pacing, budget),
// drive the HTTP client, and turn each completion into a stored answer, a retry, or a
// stop. Every answer is committed before the loop moves on.
#include "runtime/scheduler/scheduler.hpp"
#include "runtime/scheduler/answer_record.hpp"
#include "runtime/scheduler/run.hpp"

#include "runtime/providers/environment.hpp"
#include "runtime/scheduler/run_plan.hpp"

#include "runtime/providers/secrets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace mirac {

bool sends_in_batch(const ModelCall& call, const SchedulerOptions& options) {
  // The built-in offline provider answers at once: a batch would only add the polling.
  return (call.batch || (options.batch_all && options.provider_batch.count(call.provider))) &&
         call.base_url.rfind("offline:", 0) != 0;
}

namespace scheduling {
std::string Run::redact(std::string s) const {
  // Servers echo keys: in an error message, a request-id header, even inside an answer.
  // Nothing that came back is stored or logged before this has run over it.
  std::vector<std::string> keys;
  for (const auto& [var, key] : keys_) keys.push_back(key);
  return redact_keys(std::move(s), keys);
}

const std::string& Run::key(const std::string& key_env) {
  if (key_env.empty()) return no_key_;  // keyless servers
  auto [it, fresh] = keys_.try_emplace(key_env);
  if (fresh) it->second = ctx_.env.get(key_env).value_or("");
  return it->second;
}

bool Run::wants_batch(const ModelCall& call) const { return sends_in_batch(call, opt_); }

void Run::start_batches() {
  if (!batch_store_ || (batch_calls_.empty() && batch_store_->batches(true).empty())) return;
  batch_run_ = std::make_unique<BatchRun>(BatchRunContext{
      store_, *batch_store_, http_, opt_, ctx_, sum_, prog_, spent_,
      [this](std::string s) { return redact(std::move(s)); },
      [this](const std::string& key_env) { return key(key_env); },
      [this](bool final) { report(final); },
      [this](const std::string& s) { log(s); }});
  batch_run_->start(batch_calls_);
}

bool Run::prepare() {
  if (std::string error; !store_.lock_for_run(error)) {
    sum_.fatal_error = error;
    return false;
  }
  // What an earlier run could not write (its journal) goes in first, so it counts as
  // answered and is not sent again.
  const bool journal = std::filesystem::exists(journal_path(store_.path().parent_path()));
  if (journal && !store_.check_writable(sum_.fatal_error)) return false;
  if (std::size_t imported = 0; !store_.import_journal(imported, sum_.fatal_error)) {
    sum_.fatal_error += ". Nothing was sent";
    return false;
  } else if (imported > 0) {
    std::string m = fmt::format("stored {} answer(s) an earlier run had kept in its journal", imported);
    sum_.messages.push_back(m);
    log(m);
  }
  // Only what still has to be sent needs a key and a price: a resumed run whose
  // remaining requests are all for one provider must not demand the others' keys.
  HashSet done;
  if (!opt_.calls_not_answered || journal) {
    std::vector<std::string_view> hashes;
    hashes.reserve(calls_.size());
    for (const ModelCall* c : calls_) hashes.push_back(c->hash);
    done = store_.done_hashes(hashes);
  }
  auto to_send = [&done](const ModelCall& c) { return !done.count(c.hash); };
  if (auto missing = missing_keys(calls_, ctx_.env, to_send); !missing.empty()) {
    sum_.fatal_error = describe_missing_keys(missing);
    return false;
  }
  if (opt_.budget_usd) {
    if (std::string why = unpriced_message("a budget needs a price for every model", calls_, opt_.prices, to_send); !why.empty()) {
      sum_.fatal_error = why;
      return false;
    }
  }
  // Requests in a batch an earlier run left open are the batch's to collect, whatever
  // this run would do with them; a store without the batch tables gets them now.
  std::unordered_set<std::string> in_batch;
  std::string batch_error;
  batch_store_ = BatchStore::open(store_.path().parent_path(), batch_error);
  if (batch_store_) in_batch = batch_store_->hashes_in_open_batches();
  HashSet seen;  // 32 bytes a request, not a string each
  std::unordered_map<std::string, std::size_t> provider_index;
  items_.reserve(calls_.size());
  seen.reserve(calls_.size());
  for (const ModelCall* next : calls_) {
    const ModelCall& call = *next;
    if (!seen.insert(call.hash)) continue;  // same request twice in the plan: send once
    ++sum_.total;
    if (done.count(call.hash)) {
      ++sum_.skipped;
      continue;
    }
    if (in_batch.count(call.hash)) continue;
    if (wants_batch(call)) {
      if (!batch_store_) {
        sum_.fatal_error = "cannot record batches in the store: " + batch_error;
        return false;
      }
      batch_calls_.push_back(&call);
      continue;
    }
    auto [pit, fresh] = provider_index.try_emplace(call.provider, providers_.size());
    if (fresh) {
      ProviderState p;
      p.name = call.provider;
      auto lim = opt_.provider_limits.find(call.provider);
      p.pacer = Pacer(lim != opt_.provider_limits.end() ? lim->second : opt_.default_limits);
      auto retry = opt_.provider_retry.find(call.provider);
      p.retry_policy = retry != opt_.provider_retry.end() ? retry->second : opt_.retry;
      auto timeouts = opt_.provider_timeouts.find(call.provider);
      p.timeouts = timeouts != opt_.provider_timeouts.end() ? timeouts->second : opt_.timeouts;
      std::vector<std::string> urls = split_base_urls(ctx_.env.get(base_url_variable(call.provider)).value_or(""));
      if (auto e = opt_.provider_endpoints.find(call.provider); urls.empty() && e != opt_.provider_endpoints.end())
        urls = e->second;
      if (urls.size() > 1) p.endpoints = std::make_shared<Endpoints>(urls);
      providers_.push_back(std::move(p));
    }
    Item it;
    it.call = &call;
    it.provider = pit->second;
    it.base_url = ctx_.env.get(base_url_variable(call.provider)) ? SharedText(effective_base_url(call, ctx_.env)) : call.base_url;
    if (!call.key_env.empty()) it.key = &key(call.key_env);
    auto [in, out] = estimate_tokens(call, opt_.default_max_output_tokens);
    it.est_in = in;
    it.est_out = out;
    if (auto pr = opt_.prices.find(call.model); pr != opt_.prices.end()) it.price = pr->second;
    it.est_cost = (in * it.price.input_per_mtok + out * it.price.output_per_mtok) / 1e6;
    sum_.estimated_spend_usd += it.est_cost;
    providers_[it.provider].queue.push_back(items_.size());
    items_.push_back(std::move(it));
  }
  prog_.total = sum_.total;
  prog_.skipped = prog_.done = sum_.skipped;
  // Before anything is bought, the store must take a write: on a full disk a run would pay
  // for answers it cannot keep. A run with nothing to send needs no write.
  if ((!items_.empty() || !batch_calls_.empty()) && !journal && !store_.check_writable(sum_.fatal_error)) {
    sum_.not_sent["store_error"] = items_.size() + batch_calls_.size();
    return false;
  }
  return true;
}

double Run::dispatch(double now) {
  double wake = kInf;
  if (stopping_ || sum_.budget_exhausted) return wake;
  for (auto& p : providers_) {
    while (!p.stopped) {
      bool from_retry = !p.retry.empty() && p.retry.begin()->first <= now;
      if (!from_retry && p.queue.empty()) {
        if (!p.retry.empty()) wake = std::min(wake, p.retry.begin()->first);
        break;
      }
      std::size_t idx = from_retry ? p.retry.begin()->second : p.queue.front();
      Item& it = items_[idx];
      double w = now;
      if (!p.pacer.may_send(now, it.est_in + it.est_out, p.in_flight, w)) {
        // At the concurrency cap only a completion can help: waking for a retry that is
        // due would spin, polling with no wait until a slot frees (for minutes when the
        // requests in flight hang).
        if (p.in_flight >= p.pacer.limits().max_in_flight) break;
        wake = std::min(wake, w);
        if (!p.retry.empty()) wake = std::min(wake, std::max(w, p.retry.begin()->first));
        break;
      }
      if (opt_.budget_usd && spent_ + reserved_ + it.est_cost > *opt_.budget_usd) {
        // Requests in flight usually cost less than their worst-case estimate: wait for
        // them before concluding that the budget is spent.
        if (reserved_ > 1e-12) break;
        sum_.budget_exhausted = true;
        std::string m = fmt::format(
            "budget: stopped sending; spent ${:.4f} of ${:.2f}, the next request could cost up to ${:.4f}",
            spent_, *opt_.budget_usd, it.est_cost);
        sum_.messages.push_back(m);
        log(m);
        return kInf;
      }
      if (from_retry) p.retry.erase(p.retry.begin());
      else p.queue.pop_front();
      send(idx, now);
    }
  }
  return wake;
}

void Run::send(std::size_t idx, double now) {
  Item& it = items_[idx];
  ProviderState& p = providers_[it.provider];
  if (it.body.empty()) {
    ProviderRequest req = build_request(*it.call, it.base_url, "");
    it.url = std::move(req.url);
    it.body = std::move(req.body);
    for (const auto& n : req.notes)
      if (notes_seen_.insert(it.call->model + ": " + n).second) log(it.call->model + ": " + n);
  }
  // With several endpoints the URL is chosen per attempt; with one, it is the one built above.
  if (p.endpoints) it.endpoint = p.endpoints->take(now);
  // Headers are rebuilt per attempt so the key lives only in the request in flight.
  HttpRequest r{p.endpoints ? endpoint_url(it.call->protocol, p.endpoints->base_url(it.endpoint)) : it.url,
                request_headers(it.call->protocol, it.key ? *it.key : ""), it.body,
                p.timeouts.total_s, p.timeouts.connect_s, p.timeouts.first_byte_s, it.call->hash};
  r.answer = it.call->answer;
  if (++it.attempts == 1) {
    ++sum_.sent;
    it.first_sent = now;
    it.paused_before = p.paused_total_s;
  }
  ++sum_.attempts;
  it.started_mono = now;
  it.started_wall = ctx_.clock.wall();
  ++p.in_flight;
  p.pacer.on_send(now, it.est_in + it.est_out);
  reserved_ += it.est_cost;
  http_.submit(idx, std::move(r));
}

void Run::handle(const HttpCompletion& c) {
  if (c.tag >= items_.size()) return;
  Item& it = items_[c.tag];
  ProviderState& p = providers_[it.provider];
  --p.in_flight;
  reserved_ -= it.est_cost;
  const HttpResponse& r = c.response;
  double now = ctx_.clock.now(), wall = ctx_.clock.wall();
  if (p.endpoints) {
    const bool failed = (r.error != TransportError::none && r.error != TransportError::aborted) || r.status >= 500;
    if (double out = p.endpoints->done(it.endpoint, !failed, now); out > 0)
      log(fmt::format("{}: endpoint {} out of service for {:.0f} s ({}); the others take its requests", p.name,
                      p.endpoints->base_url(it.endpoint), out,
                      r.error != TransportError::none ? "no answer" : fmt::format("HTTP {}", r.status)));
  }
  AttemptRecord a;
  a.hash = it.call->hash;
  a.attempt = it.attempts;
  a.started_at = it.started_wall;
  a.ended_at = wall;
  a.http_status = r.status;
  if (r.error == TransportError::aborted) {
    // Cancelled by us: no answer, the request stays pending for the next run.
    a.outcome = "aborted";
    a.cause = "cancelled";
    a.message = "aborted at cancellation";
    if (!record_attempt(a)) store_failed(store_.last_error());
    ++sum_.not_sent["cancelled"];
    return;
  }
  Interpretation in = interpret(it.call->protocol, r, wall);
  p.pacer.on_rate_limits(in.limits, now);
  a.outcome = to_string(in.verdict);
  a.cause = in.cause;
  a.message = redact(in.message);
  a.provider_request_id = in.answer.request_id;
  if (in.verdict != Verdict::ok) {
    a.response_body = redact(r.body);
    ++prog_.errors_by_cause[in.cause];
  }
  switch (in.verdict) {
    case Verdict::ok: {
      const ParsedAnswer& ans = in.answer;
      const double cost = answer_cost(ans, it.price);
      p.pacer.on_usage(it.est_in + it.est_out, static_cast<double>(ans.input_tokens + ans.output_tokens));
      AnswerRecord rec = done_answer({*it.call, it.body, it.started_wall, wall, it.attempts}, r, ans,
                                     r.total_time_s > 0 ? r.total_time_s : now - it.started_mono, cost, prompt_floor_);
      spent_ += cost;  // billed whether or not the store write succeeds
      keep(std::move(rec), a);
      break;
    }
    case Verdict::retry: {
      const double waited = now - it.first_sent - (p.paused_total_s - it.paused_before);
      RetryDecision d = decide_retry(p.retry_policy, it.attempts, in.retry_after_s, ctx_.random.uniform(), waited);
      if (d.stop_provider) {
        // Not the request's failure: it stays pending, and so does everything else queued
        // for this provider, for a later run.
        stop_provider(p, in.cause, d.reason, "run again later; the answers already stored are kept");
        a.outcome = "stopped";
        a.message = redact(in.message + " (" + d.reason + ")");
        p.retry.emplace(now, c.tag);
        if (!record_attempt(a)) return store_failed(store_.last_error());
        break;
      }
      if (!d.retry) {
        // The last attempt is the failure itself, not one more retry.
        a.outcome = "failed";
        a.message = redact(in.message + " (" + d.reason + ")");
        return fail(it, in, r, a, d.reason);
      }
      // A 429 speaks for the whole provider: hold every send, not just this request.
      if (d.pause_provider) pause_provider(p, now, d.delay_s, in.cause);
      else if (in.cause == "rate_limited") p.pacer.pause_until(now + d.delay_s);
      a.retry_delay_s = d.delay_s;
      ++prog_.retries;
      p.retry.emplace(now + d.delay_s, c.tag);  // queued even if the store fails: counted as not sent
      if (!record_attempt(a)) return store_failed(store_.last_error());
      break;
    }
    case Verdict::fatal_request: return fail(it, in, r, a, "");
    case Verdict::fatal_provider:
      stop_provider(p, in.cause, redact(in.message), "other providers continue");
      return fail(it, in, r, a, "");
  }
  it.body.clear();
  it.body.shrink_to_fit();  // 43,200 bodies add up; only retries need theirs
}

void Run::fail(Item& it, const Interpretation& in, const HttpResponse& r, AttemptRecord a,
               const std::string& extra) {
  AnswerRecord rec = failed_answer({*it.call, it.body, it.started_wall, a.ended_at, it.attempts}, &r, in.cause,
                                   extra.empty() ? in.message : in.message + " (" + extra + ")", in.answer.request_id,
                                   r.total_time_s);
  it.body.clear();
  keep(std::move(rec), a);
}

void Run::stop_provider(ProviderState& p, const std::string& cause, const std::string& why,
                        const std::string& advice) {
  if (p.stopped) return;
  p.stopped = true;
  std::string m = fmt::format("provider '{}' stopped ({}): {}. Its remaining requests were not sent; {}.", p.name,
                              cause, why, advice);
  sum_.messages.push_back(m);
  log(m);
}

void Run::pause_provider(ProviderState& p, double now, double seconds, const std::string& cause) {
  const double until = now + seconds;
  if (until <= p.long_pause_until) return;  // answers in flight repeating the same request
  p.paused_total_s += until - std::max(now, p.long_pause_until);
  if (p.long_pause_until <= now) {
    std::string m = fmt::format("provider '{}' paused for {} ({}): the server asked to wait; sending resumes then",
                                p.name, format_duration(seconds), cause);
    sum_.messages.push_back(m);
    log(m);
  }
  p.long_pause_until = until;
  p.pacer.pause_until(until);
}

bool Run::has_pending_work() const {
  if (sum_.budget_exhausted) return false;
  for (const auto& p : providers_)
    if (!p.stopped && (!p.queue.empty() || !p.retry.empty())) return true;
  return false;
}

void Run::report(bool final) {
  if (!ctx_.on_progress) return;
  double now = ctx_.clock.now();
  prog_.elapsed_s = now - start_;
  prog_.in_flight = http_.in_flight();
  prog_.spend_usd = spent_;
  prog_.rate_per_s = prog_.elapsed_s > 0 ? static_cast<double>(sum_.stored) / prog_.elapsed_s : 0;
  std::size_t left = prog_.total - prog_.done - prog_.failed;
  prog_.eta_s = prog_.rate_per_s > 0 ? static_cast<double>(left) / prog_.rate_per_s : -1;
  prog_.final = final;
  prog_.paused_s.clear();
  for (const auto& p : providers_)
    if (!p.stopped && p.long_pause_until > now && !final) {
      prog_.paused_s[p.name] = p.long_pause_until - now;
      // The rate so far knows nothing of the pause: the rest cannot end before it does.
      if (prog_.eta_s >= 0) prog_.eta_s = std::max(prog_.eta_s, p.long_pause_until - now);
    }
  ctx_.on_progress(prog_);
  last_report_ = now;
}

RunSummary Run::go() {
  if (!prepare()) return sum_;
  start_ = last_report_ = ctx_.clock.now();
  report(false);
  // Batches first: they run at the provider while the requests sent one by one go out.
  start_batches();
  while (true) {
    double now = ctx_.clock.now();
    if (!stopping_ && ctx_.cancel.load()) {
      stopping_ = sum_.cancelled = true;
      cancel_deadline_ = now + opt_.cancel_grace_s;
      log(fmt::format("cancelled: waiting up to {:.0f} s for {} request(s) in flight",
                      opt_.cancel_grace_s, http_.in_flight()));
    }
    if (stopping_ && !aborted_ && now >= cancel_deadline_ && http_.in_flight() > 0) {
      http_.abort_all();
      aborted_ = true;
    }
    double wake = dispatch(now);
    std::size_t in_flight = http_.in_flight();
    if (in_flight == 0 && (stopping_ || !has_pending_work())) break;
    double wait = std::min({wake - now, kMaxIdleWait, opt_.progress_interval_s});
    if (stopping_) wait = std::min(wait, std::max(0.0, cancel_deadline_ - now));
    wait = std::max(wait, 0.0);
    if (in_flight > 0) {
      // Answers that arrived together share one commit (one disk sync), made before the
      // loop waits on the network again.
      for (const auto& c : http_.poll(wait)) handle(c);
      flush();
    } else {
      ctx_.clock.sleep(std::max(wait, 0.001));
    }
    if (ctx_.clock.now() - last_report_ >= opt_.progress_interval_s) report(false);
  }
  // A store that failed may have recovered (space freed): a few more tries, then the journal.
  for (int attempt = 0; attempt < 3 && !flush(); ++attempt) ctx_.clock.sleep(1.0);
  spill_unsaved();
  if (batch_run_ && sum_.fatal_error.empty()) batch_run_->finish();
  // Whatever is still queued stays pending in the store; say why.
  for (const auto& p : providers_) {
    std::size_t left = p.queue.size() + p.retry.size();
    if (left == 0) continue;
    std::string why = sum_.cancelled ? "cancelled"
                      : !sum_.fatal_error.empty() ? "store_error"
                      : p.stopped ? "provider_stopped:" + p.name
                                  : "budget";
    sum_.not_sent[why] += left;
  }
  sum_.spend_usd = spent_;
  report(true);
  return sum_;
}

}  // namespace scheduling

RunSummary execute(const CallRefs& calls, Store& store, HttpClient& http, const SchedulerOptions& options,
                   SchedulerContext& ctx) {
  scheduling::Run run(calls, store, http, options, ctx);
  return run.go();
}

RunSummary execute(const std::vector<ModelCall>& calls, Store& store, HttpClient& http,
                   const SchedulerOptions& options, SchedulerContext& ctx) {
  return execute(call_refs(calls), store, http, options, ctx);
}

}  // namespace mirac
