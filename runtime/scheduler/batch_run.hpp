// batch_run.hpp: the requests a run sends through a provider's batch API, at half price,
// when a model or judge says `batch true` (or the run `--batch`). Part of the scheduler's
// run: it submits them before the requests sent one by one, and polls the batches after.
//
// What makes it safe to kill at any moment: a batch and its requests are committed to the
// store (batch_store.hpp) before the provider hears of them; its remote id as soon as the
// provider answers; its answers before it is marked collected. A POST that creates
// something goes out once per decision (never re-sent by the HTTP client on its own). A
// run that finds a batch whose creation it cannot confirm looks for it at the provider
// before sending it again, and takes a batch found there only on proof that it is this
// one (batch_find.cpp): OpenAI's carries our id as metadata; Anthropic's carries nothing,
// so one that might be ours is waited for until its results name their requests (each
// request's custom id holds the store's batch id and its hash, batch_custom_id). Every
// result line is checked against the request it claims to answer before it is stored.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/providers/batch_wire.hpp"
#include "runtime/providers/provider.hpp"
#include "runtime/providers/server_checks.hpp"
#include "runtime/store/batch_store.hpp"
#include "runtime/scheduler/scheduler.hpp"
#include "runtime/store/journal.hpp"

namespace mirac {

/// What the batch part of a run shares with the rest of it.
struct BatchRunContext {
  Store& store;
  BatchStore& batches;
  HttpClient& http;
  const SchedulerOptions& options;
  SchedulerContext& ctx;
  RunSummary& summary;
  Progress& progress;
  double& spent_usd;  ///< this run's spend, shared with the requests sent one by one
  /// Removes every API key from a text that came back from a server.
  std::function<std::string(std::string)> redact;
  /// The API key held by an environment variable ("" when unset or not needed).
  std::function<std::string(const std::string& key_env)> key;
  std::function<void(bool final)> report;
  std::function<void(const std::string&)> log;
};

/// What a failed control call of a batch API means.
enum class CallResult { ok, unsure, rejected, stopped };
CallResult classify_batch_call(const HttpResponse& r, const Interpretation& in);

class BatchRun {
 public:
  explicit BatchRun(BatchRunContext context);
  ~BatchRun();

  /// Takes up the batches an earlier run left open, then submits `calls` (not answered,
  /// not in an open batch) in new ones, as far as the budget allows.
  void start(const std::vector<const ModelCall*>& calls);
  /// Polls every open batch until each is collected, or the run is cancelled or stopped:
  /// then the batches stay open at the provider and in the store for the next run.
  void finish();

 private:
  struct Open {
    BatchRecord record;
    RemoteBatch remote;  ///< what the last poll said
    double next_poll = 0;
    double reserved_usd = 0;  ///< the budget this run set aside for it
    bool collected = false;
  };
  BatchEndpoint endpoint_of(const BatchRecord& b);
  void submit_new(const std::vector<const ModelCall*>& calls);
  bool create_batch(const std::vector<const ModelCall*>& calls, const std::vector<int>& attempts);
  void send(Open& b);
  void find_or_send(Open& b);
  // batch_find.cpp: a batch whose creation was not confirmed, found again or sent.
  bool list_since(Open& o, std::vector<RemoteBatch>& listed);
  void adopt_by_metadata(Open& o, const std::vector<RemoteBatch>& listed);
  void adopt_by_results(Open& o, const std::vector<RemoteBatch>& listed);
  /// The store's batch id the results of `remote` name ("" when they name none of ours
  /// or disagree); false when they could not be read (asked again later).
  bool owner_of(const BatchRecord& b, const RemoteBatch& remote, std::string& owner);
  void adopt(Open& o, const RemoteBatch& remote, const std::string& how);
  /// A remote batch whose results name requests `o` never held: nothing of it is stored.
  void disown(Open& o, std::size_t foreign_lines);
  Open* open_batch(const std::string& local_id);
  void poll(Open& b);
  void collect(Open& b);
  bool store_answers(std::vector<JournalEntry>& entries);
  /// Sends one call of the batch API and waits for its answer; `ok`: a 2xx arrived.
  HttpResponse call(HttpRequest request, bool& ok);
  void stop_provider(const std::string& provider, const std::string& why);
  double price_factor(const std::string& provider) const;
  const BatchSettings& settings(const std::string& provider) const;
  void count_batches();

  BatchRunContext c_;
  std::vector<std::unique_ptr<Open>> open_;
  std::deque<ModelCall> resend_;  ///< requests of collected batches to send again
  std::unordered_map<std::string, int> attempts_;
  std::map<std::string, std::string> stopped_;  ///< provider -> why
  std::unordered_set<std::string> not_ours_;    ///< remote batches proved another's
  std::unordered_set<std::string> waits_said_;  ///< "local remote" pairs whose wait was logged
  PromptTokenFloor prompt_floor_;  ///< server_warnings(): each system prompt counted once
  double reserved_ = 0;
  std::uint64_t next_tag_ = 0;
};

}  // namespace mirac
