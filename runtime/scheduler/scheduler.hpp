// scheduler.hpp: the runtime's entry point. Sends every ModelCall not yet answered in
// the store, within per-provider limits and a budget, retrying transient errors, and
// commits each answer as it arrives.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/http/http_client.hpp"
#include "runtime/model_call.hpp"
#include "runtime/offline/offline_model.hpp"
#include "runtime/providers/environment.hpp"
#include "runtime/scheduler/clock.hpp"
#include "runtime/scheduler/pacing.hpp"
#include "runtime/scheduler/retry_policy.hpp"
#include "runtime/store/store.hpp"

namespace mirac {

/// USD per million tokens.
struct ModelPrice {
  double input_per_mtok = 0;
  double output_per_mtok = 0;
};

/// How long one attempt may take before it fails as `timeout` (and is retried like a 5xx).
struct ProviderTimeouts {
  double connect_s = 10;
  /// No byte received for this long (waiting for the answer, or stalled inside it); 0: no
  /// such limit. Whole seconds, rounded up (libcurl's low-speed limit).
  double first_byte_s = 0;
  double total_s = 600;  ///< whole request, as the SDKs
};

/// How a provider's batch API is used (runtime/scheduler/batch_run.hpp).
struct BatchSettings {
  double poll_s = 30;                ///< between two looks at a running batch
  std::size_t max_requests = 10000;  ///< per batch (OpenAI takes up to 50,000, Anthropic 100,000)
  double price_factor = 0.5;         ///< of the list price: OpenAI and Anthropic both halve it
};

struct SchedulerOptions {
  std::map<std::string, ProviderLimits> provider_limits;  ///< by provider name
  ProviderLimits default_limits;                          ///< for providers not listed
  std::map<std::string, RetryPolicy> provider_retry;      ///< by provider name, else `retry`
  RetryPolicy retry;
  std::map<std::string, ProviderTimeouts> provider_timeouts;  ///< by provider name, else `timeouts`
  /// Providers served by several base URLs, by provider name (runtime/scheduler/endpoints.hpp).
  /// `<PROVIDER>_BASE_URL` with URLs separated by commas overrides it.
  std::map<std::string, std::vector<std::string>> provider_endpoints;
  ProviderTimeouts timeouts;
  /// Providers with a batch API, by name: `--batch` sends only theirs through it.
  std::map<std::string, BatchSettings> provider_batch;
  BatchSettings batch;  ///< for a call that says `batch` to a provider not listed
  /// Every paid request goes through its provider's batch API (`mirac run --batch`), not
  /// only those of models and judges that declare `batch true`.
  bool batch_all = false;
  std::optional<double> budget_usd;  ///< spend cap for this run
  /// The caller has found that none of the calls is answered in the store yet (a block of a
  /// phase that looked once for the whole phase): the run does not look again. With an
  /// earlier run's journal to import it looks all the same (and BlockSend clears this for
  /// every block of a phase that began with one).
  bool calls_not_answered = false;
  std::map<std::string, ModelPrice> prices;  ///< by model string; needed for every paid model when budget_usd is set
  long long default_max_output_tokens = 1024;  ///< estimate when a call sets no max_tokens
  double cancel_grace_s = 10;        ///< after cancellation, wait this long for in-flight answers
  double progress_interval_s = 1;
  /// Replies of the built-in offline provider that the spec declares (offline_model.hpp);
  /// empty: its heuristics. Only `offline:` requests see it.
  OfflineReplies offline_replies;
  /// The transport for every request but `offline:` ones; null: libcurl (run_plan). Not
  /// owned. A program embedding mirac, or a test, passes its own.
  HttpClient* transport = nullptr;
  /// Where API keys and NO_PROXY are read; null: the process environment (run_plan). Not owned.
  const Environment* environment = nullptr;
};

struct Progress {
  std::size_t total = 0;     ///< distinct requests in the plan
  std::size_t done = 0;      ///< answered (including skipped ones)
  std::size_t skipped = 0;   ///< already answered before this run
  std::size_t failed = 0;    ///< stored as failed this run
  std::size_t in_flight = 0;
  std::size_t retries = 0;   ///< retried attempts so far
  double elapsed_s = 0;
  double rate_per_s = 0;     ///< answers per second this run
  double eta_s = -1;         ///< < 0 when unknown
  double spend_usd = 0;      ///< this run
  std::map<std::string, std::size_t> errors_by_cause;  ///< every non-ok attempt
  /// Providers paused because a server asked for a long wait: seconds until they resume.
  std::map<std::string, double> paused_s;
  /// Open batches by state (waiting: not yet confirmed at the provider; running; ended:
  /// results being stored), and the requests they hold.
  std::map<std::string, std::size_t> batches;
  std::size_t batch_requests = 0;
  bool final = false;        ///< the last report of the run
};

struct RunSummary {
  std::size_t total = 0;    ///< distinct requests
  std::size_t skipped = 0;  ///< already answered in the store
  std::size_t sent = 0;     ///< requests sent at least once this run
  std::size_t attempts = 0;
  std::size_t stored = 0;   ///< answers committed to the store this run
  std::size_t failed = 0;   ///< committed as failed this run (retried by the next run)
  std::size_t journaled = 0;  ///< received, but the store refused them: kept in the journal
  std::size_t lost = 0;       ///< received, refused by the store and by the journal
  std::size_t batched = 0;    ///< requests submitted in new batches this run
  std::size_t batches_collected = 0;  ///< batches whose results were stored this run
  /// Batches still running at the provider when the run returned (cancelled, or stopped):
  /// the next run polls them.
  std::size_t batches_open = 0;
  std::map<std::string, std::size_t> failed_by_cause;
  std::map<std::string, std::size_t> not_sent;  ///< pending, by reason (budget, cancelled, provider stopped)
  double spend_usd = 0;     ///< this run
  double estimated_spend_usd = 0;  ///< the plan's estimate for what was not skipped
  bool cancelled = false;
  bool budget_exhausted = false;
  std::vector<std::string> messages;  ///< provider stops and other notices, for the user
  std::string fatal_error;            ///< set when nothing (more) could be sent: missing keys, store failure
};

/// What the scheduler needs from the outside world.
struct SchedulerContext {
  Clock& clock;
  Random& random;
  const Environment& env;
  const std::atomic<bool>& cancel;  ///< set by the SIGINT handler: stop sending, keep answers
  std::function<void(const Progress&)> on_progress = {};
  std::function<void(const std::string&)> log = {};  ///< notices; never contains a key
};

/// Sends `calls`, skipping those already answered in `store`. Returns when everything is
/// answered or failed, or a provider/budget/cancellation stops the rest.
RunSummary execute(const CallRefs& calls, Store& store, HttpClient& http, const SchedulerOptions& options,
                   SchedulerContext& ctx);
RunSummary execute(const std::vector<ModelCall>& calls, Store& store, HttpClient& http,
                   const SchedulerOptions& options, SchedulerContext& ctx);

/// Whether `call` goes through its provider's batch API under `options` (its `batch`, or
/// `--batch` for a provider that has one; never the offline provider).
bool sends_in_batch(const ModelCall& call, const SchedulerOptions& options);

/// Estimated (input, output) tokens of a call before sending: ~4 characters per token for
/// the prompt, max_tokens (or the default) for the answer.
std::pair<double, double> estimate_tokens(const ModelCall& call, long long default_max_output);
/// The same for `call` with a user message of `user_chars` characters in place of its own.
std::pair<double, double> estimate_tokens(const ModelCall& call, std::size_t user_chars, long long default_max_output);

/// Models of paid calls (with a key_env) that have no price in `prices`.
std::vector<std::string> unpriced_models(const CallRefs& calls, const std::map<std::string, ModelPrice>& prices,
                                         const std::function<bool(const ModelCall&)>& include = {});
inline std::vector<std::string> unpriced_models(const std::vector<ModelCall>& calls,
                                                const std::map<std::string, ModelPrice>& prices,
                                                const std::function<bool(const ModelCall&)>& include = {}) {
  return unpriced_models(call_refs(calls), prices, include);
}

/// Why a budget cannot be kept, or "" when every paid call in `calls` has a price: `need`
/// ("a budget needs a price for every model"), the unpriced model strings, a `prices`
/// declaration to fill in and copy into the spec for each provider, "Nothing was sent."
std::string unpriced_message(const std::string& need, const CallRefs& calls,
                             const std::map<std::string, ModelPrice>& prices,
                             const std::function<bool(const ModelCall&)>& include = {});
inline std::string unpriced_message(const std::string& need, const std::vector<ModelCall>& calls,
                                    const std::map<std::string, ModelPrice>& prices,
                                    const std::function<bool(const ModelCall&)>& include = {}) {
  return unpriced_message(need, call_refs(calls), prices, include);
}

}  // namespace mirac
