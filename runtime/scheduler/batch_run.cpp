// batch_run.cpp: submit, find again, poll and collect batches (batch_run.hpp).
#include "runtime/scheduler/batch_run.hpp"

#include "runtime/scheduler/answer_record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/providers/environment.hpp"
#include "runtime/providers/provider.hpp"
#include "runtime/providers/server_checks.hpp"
#include "runtime/store/journal.hpp"

namespace mirac {
namespace {

// Tags of the batch API's own calls, apart from those of requests sent one by one.
constexpr std::uint64_t kBatchTags = std::uint64_t{1} << 62;
// A request whose batch expired or was cancelled before it ran was not billed: it is sent
// again, up to this attempt number, then left failed for a later run.
constexpr int kMaxBatchAttempts = 10;

const char* kind_cause(BatchResult::Kind k) {
  switch (k) {
    case BatchResult::Kind::expired: return "batch_expired";
    case BatchResult::Kind::cancelled: return "batch_cancelled";
    default: return "batch_error";
  }
}

}  // namespace

BatchRun::BatchRun(BatchRunContext context) : c_(std::move(context)) {}
BatchRun::~BatchRun() = default;

const BatchSettings& BatchRun::settings(const std::string& provider) const {
  auto it = c_.options.provider_batch.find(provider);
  return it != c_.options.provider_batch.end() ? it->second : c_.options.batch;
}

double BatchRun::price_factor(const std::string& provider) const { return settings(provider).price_factor; }

BatchEndpoint BatchRun::endpoint_of(const BatchRecord& b) { return {b.protocol, b.base_url, c_.key(b.key_env)}; }

void BatchRun::stop_provider(const std::string& provider, const std::string& why) {
  if (!stopped_.emplace(provider, why).second) return;
  std::string m = fmt::format("provider '{}' stopped ({}). Its batches stay open; run again later to collect them.",
                              provider, why);
  c_.summary.messages.push_back(m);
  c_.log(m);
}

HttpResponse BatchRun::call(HttpRequest request, bool& ok) {
  // One control call at a time: the batch API's calls are few, and each depends on the last.
  HttpResponse response;
  const std::uint64_t tag = kBatchTags | ++next_tag_;
  c_.http.submit(tag, std::move(request));
  while (true) {
    bool got = false;
    for (auto& completion : c_.http.poll(0.25))
      if (completion.tag == tag) {
        response = std::move(completion.response);
        got = true;
      }
    if (got) break;
    if (c_.http.in_flight() == 0) {
      response.error = TransportError::other;
      response.error_message = "the transfer was lost";
      break;
    }
  }
  ok = response.error == TransportError::none && response.status >= 200 && response.status < 300;
  return response;
}

CallResult classify_batch_call(const HttpResponse& r, const Interpretation& in) {
  // What a failed control call means: worth another try, the request's fault, or the provider's.
  if (r.error != TransportError::none) return CallResult::unsure;
  if (r.status == 401 || r.status == 402 || r.status == 403 || in.verdict == Verdict::fatal_provider) return CallResult::stopped;
  if (r.status == 408 || r.status == 409 || r.status == 429 || r.status >= 500) return CallResult::unsure;
  return CallResult::rejected;
}

void BatchRun::start(const std::vector<const ModelCall*>& calls) {
  attempts_ = c_.batches.attempts_by_hash();
  std::size_t resumed_requests = 0;
  for (auto& record : c_.batches.batches(true)) {
    auto o = std::make_unique<Open>();
    resumed_requests += record.requests;
    o->record = std::move(record);
    open_.push_back(std::move(o));
  }
  if (!open_.empty()) {
    std::string m = fmt::format("taking up {} batch(es) an earlier run left open ({} requests): polling them, "
                                "not sending them again",
                                open_.size(), resumed_requests);
    c_.summary.messages.push_back(m);
    c_.log(m);
  }
  for (auto& o : open_)
    if (o->record.state != batch_state::submitted) find_or_send(*o);
  submit_new(calls);
  count_batches();
}

void BatchRun::submit_new(const std::vector<const ModelCall*>& calls) {
  // One batch per provider, endpoint and model (OpenAI takes one model per batch), cut at
  // the provider's size limit.
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const ModelCall*>> groups;
  std::vector<std::tuple<std::string, std::string, std::string>> order;
  for (const ModelCall* call : calls) {
    if (stopped_.count(call->provider)) continue;
    auto key = std::make_tuple(call->provider, effective_base_url(*call, c_.ctx.env), call->model);
    auto [it, fresh] = groups.try_emplace(key);
    if (fresh) order.push_back(key);
    it->second.push_back(call);
  }
  for (const auto& key : order) {
    const auto& group = groups[key];
    const std::size_t size = std::max<std::size_t>(1, settings(std::get<0>(key)).max_requests);
    for (std::size_t from = 0; from < group.size() && c_.summary.fatal_error.empty(); from += size) {
      if (c_.ctx.cancel.load()) {
        // Ctrl-C while batches are being submitted: what was not submitted stays pending.
        c_.summary.not_sent["cancelled"] += group.size() - from;
        break;
      }
      std::vector<const ModelCall*> chunk(group.begin() + static_cast<std::ptrdiff_t>(from),
                                          group.begin() + static_cast<std::ptrdiff_t>(std::min(group.size(), from + size)));
      std::vector<int> attempts;
      for (const ModelCall* call : chunk) attempts.push_back(attempts_[call->hash] + 1);
      if (!create_batch(chunk, attempts)) return;
    }
  }
}

bool BatchRun::create_batch(const std::vector<const ModelCall*>& calls, const std::vector<int>& attempts) {
  const ModelCall& first = *calls.front();
  // What the batch may cost at batch prices, request by request, within the budget.
  const ModelPrice price = [&] {
    auto p = c_.options.prices.find(first.model);
    return p != c_.options.prices.end() ? p->second : ModelPrice{};
  }();
  const double factor = price_factor(first.provider);
  std::size_t fits = calls.size();
  double cost = 0;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    auto [in, out] = estimate_tokens(*calls[i], c_.options.default_max_output_tokens);
    const double one = factor * (in * price.input_per_mtok + out * price.output_per_mtok) / 1e6;
    c_.summary.estimated_spend_usd += one;
    if (c_.options.budget_usd && fits == calls.size() && c_.spent_usd + reserved_ + cost + one > *c_.options.budget_usd)
      fits = i;
    if (fits == calls.size()) cost += one;
  }
  if (fits < calls.size()) {
    c_.summary.budget_exhausted = true;
    c_.summary.not_sent["budget"] += calls.size() - fits;
    std::string m = fmt::format("budget: {} request(s) for {} not put in a batch; spent ${:.4f} and set aside ${:.4f} of ${:.2f}",
                                calls.size() - fits, first.model, c_.spent_usd, reserved_ + cost, *c_.options.budget_usd);
    c_.summary.messages.push_back(m);
    c_.log(m);
    if (fits == 0) return true;
  }
  auto o = std::make_unique<Open>();
  BatchRecord& b = o->record;
  // Unique in the store: the time in milliseconds, a count within the run, a random part.
  b.local_id = fmt::format("mb-{:x}-{:x}-{:08x}", static_cast<long long>(c_.ctx.clock.wall() * 1000), ++next_tag_,
                           static_cast<std::uint32_t>(c_.ctx.random.uniform() * 4294967296.0));
  b.provider = first.provider;
  b.model = first.model;
  b.protocol = first.protocol;
  b.base_url = effective_base_url(first, c_.ctx.env);
  b.key_env = first.key_env;
  b.requests = fits;
  b.created_at = b.updated_at = c_.ctx.clock.wall();
  std::vector<BatchRequest> requests;
  for (std::size_t i = 0; i < fits; ++i) {
    BatchRequest r;
    r.custom_id = batch_custom_id(b.local_id, i, calls[i]->hash);
    r.attempt = attempts[i];
    r.call = *calls[i];
    r.call.base_url = b.base_url;
    requests.push_back(std::move(r));
  }
  std::string error;
  if (!c_.batches.create(b, requests, error)) {
    // Nothing was sent: a batch the store cannot remember must not exist at the provider.
    c_.summary.fatal_error = "cannot write to the store, no batch was sent: " + error;
    c_.summary.not_sent["store_error"] += fits;
    c_.log(c_.summary.fatal_error);
    return false;
  }
  for (const auto& r : requests) attempts_[r.call.hash] = r.attempt;
  c_.summary.batched += fits;
  c_.summary.sent += fits;
  c_.summary.attempts += fits;
  o->reserved_usd = cost;
  reserved_ += cost;
  open_.push_back(std::move(o));
  send(*open_.back());
  return true;
}

void BatchRun::send(Open& o) {
  BatchRecord& b = o.record;
  const BatchEndpoint at = endpoint_of(b);
  std::vector<BatchItem> items;
  for (const auto& r : c_.batches.requests(b.local_id)) items.push_back({r.custom_id, build_body(r.call).dump()});
  o.next_poll = c_.ctx.clock.now() + settings(b.provider).poll_s;
  auto failed = [&](const HttpResponse& r, const char* what) {
    Interpretation in = interpret(b.protocol, r, c_.ctx.clock.wall());
    CallResult kind = classify_batch_call(r, in);
    const std::string why = c_.redact(r.error != TransportError::none ? r.error_message : in.message);
    if (kind == CallResult::stopped) return stop_provider(b.provider, in.cause + ": " + why);
    if (kind == CallResult::unsure) {
      // It may exist at the provider all the same: the next look searches for it first.
      c_.log(fmt::format("batch {} ({}): {} got no clear answer ({}); looking for it again in {:.0f} s", b.local_id,
                         b.model, what, why, settings(b.provider).poll_s));
      return;
    }
    // Refused outright: never created, never billed. Its requests fail for this run.
    o.remote = RemoteBatch{};
    o.remote.ended = o.remote.rejected = true;
    o.remote.message = fmt::format("{} refused ({}): {}", what, in.cause, why);
    collect(o);
  };
  bool ok = false;
  if (b.protocol == WireProtocol::openai_chat) {
    if (b.input_file_id.empty()) {
      HttpResponse r = call(openai_upload_request(at, openai_batch_jsonl(items), b.local_id), ok);
      std::string error;
      auto id = ok ? openai_file_id(r.body, error) : std::nullopt;
      if (!id) return failed(r, "the upload");
      b.input_file_id = *id;
      b.state = batch_state::uploaded;
      b.updated_at = c_.ctx.clock.wall();
      if (!c_.batches.update(b, error)) return void(c_.summary.fatal_error = "cannot write to the store: " + error);
    }
  }
  HttpResponse r = b.protocol == WireProtocol::openai_chat
                       ? call(openai_create_request(at, b.input_file_id, b.local_id), ok)
                       : call(anthropic_create_request(at, items), ok);
  std::string error;
  auto remote = ok ? parse_remote_batch(b.protocol, b.base_url, r.body, error) : std::nullopt;
  if (!remote) return failed(r, "creating the batch");
  o.remote = *remote;
  b.remote_id = remote->id;
  b.remote_status = remote->status;
  b.state = batch_state::submitted;
  b.updated_at = c_.ctx.clock.wall();
  if (!c_.batches.update(b, error)) c_.summary.fatal_error = "cannot write to the store: " + error;
  c_.log(fmt::format("batch {} ({} requests for {}) submitted as {}", b.local_id, b.requests, b.model, b.remote_id));
}

void BatchRun::poll(Open& o) {
  BatchRecord& b = o.record;
  o.next_poll = c_.ctx.clock.now() + settings(b.provider).poll_s;
  bool ok = false;
  HttpResponse r = call(batch_poll_request(endpoint_of(b), b.remote_id), ok);
  std::string error;
  auto remote = ok ? parse_remote_batch(b.protocol, b.base_url, r.body, error) : std::nullopt;
  if (!remote) {
    Interpretation in = interpret(b.protocol, r, c_.ctx.clock.wall());
    CallResult kind = classify_batch_call(r, in);
    if (kind == CallResult::stopped) return stop_provider(b.provider, in.cause + ": " + c_.redact(in.message));
    if (kind == CallResult::rejected && r.status == 404) {
      // The provider no longer knows it (deleted, another account): what it held is sent again.
      o.remote = RemoteBatch{};
      o.remote.ended = true;
      o.remote.message = "the provider does not know this batch";
      return collect(o);
    }
    return;  // asked again at the next poll
  }
  const bool changed = remote->status != b.remote_status || remote->finished != b.finished;
  o.remote = *remote;
  b.remote_status = remote->status;
  b.finished = remote->finished;
  if (changed) {
    b.updated_at = c_.ctx.clock.wall();
    if (!c_.batches.update(b, error)) return void(c_.summary.fatal_error = "cannot write to the store: " + error);
  }
  if (remote->ended) collect(o);
}

bool BatchRun::store_answers(std::vector<JournalEntry>& entries) {
  if (entries.empty()) return true;
  for (int attempt = 0; attempt < 3; ++attempt) {
    bool ok = c_.store.begin_batch();
    for (const auto& e : entries) ok = ok && c_.store.record_answer(e.answer, e.attempt);
    if (ok && c_.store.commit_batch()) return true;
    if (!ok) c_.store.rollback_batch();
    c_.ctx.clock.sleep(1.0);
  }
  // The store refuses: the journal keeps what was paid for, and the next run imports it.
  const auto file = journal_path(c_.store.path().parent_path());
  std::string error;
  if (append_journal(file, entries, error)) {
    c_.summary.journaled += entries.size();
    std::string m = fmt::format("{} answer(s) of a batch could not be written to the store; kept in {}", entries.size(),
                                file.string());
    c_.summary.messages.push_back(m);
    c_.log(m);
    return true;
  }
  c_.summary.fatal_error = "cannot write a batch's answers to the store or to its journal: " + error;
  c_.log(c_.summary.fatal_error);
  return false;
}

void BatchRun::collect(Open& o) {
  BatchRecord& b = o.record;
  const BatchEndpoint at = endpoint_of(b);
  std::vector<BatchRequest> requests = c_.batches.requests(b.local_id);
  std::unordered_set<std::string> own;
  for (const auto& req : requests) own.insert(req.custom_id);
  std::unordered_map<std::string, BatchResult> results;
  std::size_t foreign = 0;
  for (const auto& url : o.remote.result_urls) {
    bool ok = false;
    HttpResponse r = call(batch_download_request(at, url), ok);
    if (!ok) return;  // downloaded again at the next poll
    std::size_t bad = 0;
    for (auto& line : parse_batch_results(b.protocol, r.body, bad)) {
      if (!own.count(line.custom_id)) ++foreign;
      else results.try_emplace(line.custom_id, std::move(line));  // a repeated line: the first counts
    }
    if (bad > 0) c_.log(fmt::format("batch {}: {} result line(s) could not be read; their requests are sent again", b.local_id, bad));
  }
  // Results naming requests this batch never held are another batch's: none is stored.
  if (foreign > 0) return disown(o, foreign);
  const double wall = c_.ctx.clock.wall();
  const ModelPrice price = [&] {
    auto p = c_.options.prices.find(b.model);
    return p != c_.options.prices.end() ? p->second : ModelPrice{};
  }();
  const double factor = price_factor(b.provider);
  std::vector<JournalEntry> answers;
  std::vector<AttemptRecord> retried;
  std::vector<std::pair<std::string, std::string>> outcomes;
  std::vector<ModelCall> again;
  double cost_total = 0;
  for (auto& req : requests) {
    if (!req.outcome.empty()) continue;
    const ModelCall& call = req.call;
    AttemptRecord a;
    a.hash = call.hash;
    a.attempt = req.attempt;
    a.started_at = b.created_at;
    a.ended_at = wall;
    const std::string request_body = build_body(call).dump();
    const AnswerSource source{call, request_body, b.created_at, wall, req.attempt};
    auto keep = [&](AnswerRecord rec, const char* outcome) {
      a.outcome = outcome;
      a.cause = rec.cause;
      a.message = rec.message;
      redact_answer(rec, a, c_.redact);
      outcomes.emplace_back(req.custom_id, rec.status);
      answers.push_back({std::move(rec), a});
    };
    auto fail = [&](const std::string& cause, const std::string& message, const HttpResponse* r) {
      keep(failed_answer(source, r, cause, message, a.provider_request_id, std::max(0.0, wall - b.created_at)), "failed");
    };
    auto resend = [&](const std::string& cause, const std::string& message) {
      a.outcome = "retry";
      a.cause = cause;
      a.message = c_.redact(message);
      retried.push_back(a);
      outcomes.emplace_back(req.custom_id, "resend");
      again.push_back(call);
    };
    auto line = results.find(req.custom_id);
    if (o.remote.rejected) {
      fail("batch_rejected", o.remote.message, nullptr);
      continue;
    }
    if (!custom_id_matches_hash(req.custom_id, call.hash)) {
      // The store holds under this id a request other than the one sent: its answer is
      // not this request's, so it is not stored as one.
      fail("batch_mismatch", fmt::format("result {} does not answer request {}", req.custom_id, call.hash), nullptr);
      continue;
    }
    if (line == results.end() || line->second.kind != BatchResult::Kind::response) {
      const auto kind = line == results.end() ? BatchResult::Kind::expired : line->second.kind;
      const std::string message = line == results.end() ? "no result for this request" : line->second.message;
      if (req.attempt < kMaxBatchAttempts && !stopped_.count(b.provider)) resend(kind_cause(kind), message);
      else fail(kind_cause(kind), message, nullptr);
      continue;
    }
    const HttpResponse& r = line->second.response;
    Interpretation in = interpret(b.protocol, r, wall);
    a.http_status = r.status;
    a.provider_request_id = in.answer.request_id;
    if (in.verdict == Verdict::ok) {
      const double cost = answer_cost(in.answer, price, factor);
      cost_total += cost;
      keep(done_answer(source, r, in.answer, std::max(0.0, wall - b.created_at), cost, prompt_floor_), "ok");
      continue;
    }
    ++c_.progress.errors_by_cause[in.cause];
    a.response_body = c_.redact(r.body);
    if (in.verdict == Verdict::retry) {
      RetryDecision d = decide_retry(c_.options.provider_retry.count(b.provider) ? c_.options.provider_retry.at(b.provider)
                                                                                   : c_.options.retry,
                                     req.attempt, std::nullopt, c_.ctx.random.uniform(), 0);
      if (d.retry && !stopped_.count(b.provider)) resend(in.cause, in.message);
      else fail(in.cause, in.message + (d.reason.empty() ? "" : " (" + d.reason + ")"), &r);
      continue;
    }
    if (in.verdict == Verdict::fatal_provider) stop_provider(b.provider, in.cause + ": " + c_.redact(in.message));
    fail(in.cause, in.message, &r);
  }
  if (!store_answers(answers)) return;
  for (const auto& a : retried) c_.store.record_attempt(a);
  std::string error;
  if (!c_.batches.collect(b, outcomes, error)) {
    c_.summary.fatal_error = "cannot write to the store: " + error;
    return;
  }
  o.collected = true;
  c_.spent_usd += cost_total;
  reserved_ -= o.reserved_usd;
  ++c_.summary.batches_collected;
  for (const auto& e : answers) {
    if (e.answer.status == "done") {
      ++c_.summary.stored;
      ++c_.progress.done;
    } else {
      ++c_.summary.failed;
      ++c_.summary.failed_by_cause[e.answer.cause];
      ++c_.progress.failed;
    }
  }
  for (auto& call : again) resend_.push_back(std::move(call));
  const auto done = static_cast<std::size_t>(
      std::count_if(answers.begin(), answers.end(), [](const JournalEntry& e) { return e.answer.status == "done"; }));
  c_.log(fmt::format("batch {} ({}) {}: {} answer(s) stored, {} failed, {} to send again", b.local_id, b.model,
                     o.remote.rejected ? "refused" : o.remote.status.empty() ? "gone" : o.remote.status, done,
                     answers.size() - done, again.size()));
}

void BatchRun::count_batches() {
  c_.progress.batches.clear();
  c_.progress.batch_requests = 0;
  for (const auto& o : open_) {
    if (o->collected) continue;
    const char* state = o->record.state != batch_state::submitted ? "waiting" : o->remote.ended ? "ended" : "running";
    ++c_.progress.batches[state];
    c_.progress.batch_requests += o->record.requests;
  }
}

void BatchRun::finish() {
  while (c_.summary.fatal_error.empty()) {
    std::erase_if(open_, [](const auto& o) { return o->collected; });
    if (!resend_.empty() && (c_.ctx.cancel.load() || c_.summary.budget_exhausted)) {
      // Not sent again this run: they stay pending for the next.
      c_.summary.not_sent[c_.ctx.cancel.load() ? "cancelled" : "budget"] += resend_.size();
      resend_.clear();
    }
    if (!resend_.empty()) {
      std::deque<ModelCall> again;
      again.swap(resend_);
      std::vector<const ModelCall*> calls;
      for (const auto& call : again) calls.push_back(&call);
      submit_new(calls);
      std::erase_if(open_, [](const auto& o) { return o->collected; });
    }
    count_batches();
    bool waiting = false;
    for (const auto& o : open_) waiting = waiting || !stopped_.count(o->record.provider);
    if (!waiting || c_.ctx.cancel.load()) break;
    const double now = c_.ctx.clock.now();
    double next = std::numeric_limits<double>::infinity();
    for (auto& o : open_) {
      if (o->collected || stopped_.count(o->record.provider)) continue;
      if (o->next_poll <= now) {
        if (o->record.state == batch_state::submitted) poll(*o);
        else find_or_send(*o);
        if (!c_.summary.fatal_error.empty()) break;
      }
      if (!o->collected) next = std::min(next, o->next_poll);
    }
    if (c_.report) c_.report(false);
    if (next == std::numeric_limits<double>::infinity()) continue;  // all collected: resend, or done
    // Wait for the next poll in short steps, so that Ctrl-C is heard at once.
    for (double left = next - c_.ctx.clock.now(); left > 0 && !c_.ctx.cancel.load(); left = next - c_.ctx.clock.now())
      c_.ctx.clock.sleep(std::min(left, 0.25));
  }
  std::erase_if(open_, [](const auto& o) { return o->collected; });
  count_batches();
  c_.summary.batches_open = open_.size();
  if (!open_.empty()) {
    std::string m = fmt::format("{} batch(es) ({} requests) still open at the provider; run again to collect them "
                                "(they are polled, not sent again)",
                                open_.size(), c_.progress.batch_requests);
    c_.summary.messages.push_back(m);
    c_.log(m);
  }
}

}  // namespace mirac
