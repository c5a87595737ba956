// run.hpp: the state of one scheduler run (scheduler.hpp's execute()), shared by the files
// that implement it: scheduler.cpp (admitting, sending, interpreting completions, the loop)
// and run_store_writes.cpp (committing answers, the journal when the store fails). Not
// part of the scheduler's interface.
#pragma once

#include "runtime/scheduler/scheduler.hpp"

#include "runtime/scheduler/batch_run.hpp"
#include "runtime/providers/server_checks.hpp"
#include "runtime/scheduler/endpoints.hpp"
#include "runtime/store/journal.hpp"

#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace mirac::scheduling {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMaxIdleWait = 0.25;  // re-check the cancel flag at least this often

struct Item {
  const ModelCall* call = nullptr;
  std::size_t provider = 0;
  SharedText base_url;  // the call's own (shared, no copy) unless <PROVIDER>_BASE_URL overrides it
  std::size_t endpoint = 0;  // of the provider's Endpoints, for the attempt in flight
  const std::string* key = nullptr;
  double est_in = 0, est_out = 0, est_cost = 0;
  ModelPrice price;
  int attempts = 0;
  double first_sent = -1;
  double paused_before = 0;  // the provider's paused_total_s at the first send
  double started_mono = 0, started_wall = 0;
  std::string url, body;  // built at first send, kept for retries
};

struct ProviderState {
  std::string name;
  Pacer pacer;
  RetryPolicy retry_policy;
  ProviderTimeouts timeouts;
  // A long pause the server asked for (more than the retry cap): shown on the progress
  // line, and not counted as the waiting of the requests it holds back.
  double long_pause_until = 0;
  double paused_total_s = 0;
  std::deque<std::size_t> queue;
  std::multimap<double, std::size_t> retry;  // ready time -> item
  std::shared_ptr<Endpoints> endpoints;      // several base URLs; null for one
  int in_flight = 0;
  bool stopped = false;
};

class Run {
 public:
  Run(const CallRefs& calls, Store& store, HttpClient& http,
      const SchedulerOptions& options, SchedulerContext& ctx)
      : calls_(calls), store_(store), http_(http), opt_(options), ctx_(ctx) {}

  RunSummary go();

 private:
  bool prepare();
  double dispatch(double now);
  void send(std::size_t idx, double now);
  void handle(const HttpCompletion& c);
  void fail(Item& it, const Interpretation& in, const HttpResponse& r, AttemptRecord a,
            const std::string& extra);
  void stop_provider(ProviderState& p, const std::string& cause, const std::string& why, const std::string& advice);
  void pause_provider(ProviderState& p, double now, double seconds, const std::string& cause);
  void store_failed(const std::string& what);
  void keep(AnswerRecord answer, AttemptRecord attempt);
  bool flush();
  void count_committed(const JournalEntry& e);
  void spill_unsaved();
  bool has_pending_work() const;
  void report(bool final);
  void log(const std::string& s) {
    if (ctx_.log) ctx_.log(s);
  }
  std::string redact(std::string s) const;
  const std::string& key(const std::string& key_env);
  bool wants_batch(const ModelCall& call) const;
  void start_batches();
  // The store's writes, with every field that came from a server redacted first.
  bool record_attempt(AttemptRecord a);

  const CallRefs& calls_;  ///< the caller's, alive for the run
  Store& store_;
  HttpClient& http_;
  const SchedulerOptions& opt_;
  SchedulerContext& ctx_;
  RunSummary sum_;
  Progress prog_;
  std::vector<Item> items_;
  // Requests for the batch API (batch_run.hpp), and the batches' part of the run.
  std::vector<const ModelCall*> batch_calls_;
  std::unique_ptr<BatchStore> batch_store_;
  std::unique_ptr<BatchRun> batch_run_;
  std::vector<ProviderState> providers_;
  std::map<std::string, std::string> keys_;  // key_env -> value
  const std::string no_key_;
  std::set<std::string> notes_seen_;
  // Answers received but not yet committed: written together before the loop waits on the
  // network again, and kept (retried, then spilled to the journal) when the store fails.
  std::vector<JournalEntry> unsaved_;
  PromptTokenFloor prompt_floor_;  ///< server_warnings(): each system prompt counted once
  double spent_ = 0, reserved_ = 0;
  double start_ = 0, last_report_ = 0, cancel_deadline_ = kInf;
  bool stopping_ = false, aborted_ = false;
};

}  // namespace mirac::scheduling
