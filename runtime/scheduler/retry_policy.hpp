// retry_policy.hpp: when and how long to wait before retrying, copied from the official
// OpenAI and Anthropic Python SDKs (provider-protocols.md §6), with more attempts for
// long runs and a cap on the total wait per request. A server that asks for a longer wait
// than the retry cap pauses the whole provider instead, up to max_pause_s.
#pragma once

#include <optional>
#include <string>

namespace mirac {

struct RetryPolicy {
  int max_attempts = 8;            ///< SDK default is 3; long audit runs need more patience
  double initial_delay_s = 0.5;    ///< SDK INITIAL_RETRY_DELAY
  double max_delay_s = 8.0;        ///< SDK MAX_RETRY_DELAY
  double max_retry_after_s = 120;  ///< a longer server delay pauses the provider (not the request)
  double max_pause_s = 900;        ///< a longer one stops the provider for this run: rerun later
  double max_total_wait_s = 900;   ///< give up (for this run) after this long since attempt 1
};

struct RetryDecision {
  bool retry = false;
  /// The server asked for more than max_retry_after_s (and at most max_pause_s): every
  /// send to the provider waits delay_s, and that wait does not count against the
  /// request's max_total_wait_s, since it is the provider's, not the request's.
  bool pause_provider = false;
  /// The server asked for more than max_pause_s: the provider stops for this run and its
  /// requests stay pending (retry is false).
  bool stop_provider = false;
  double delay_s = 0;
  std::string reason;  ///< why not, when retry is false
};

/// `attempts_made` counts attempts already sent (>= 1); `retry_after_s` is the server's
/// requested delay (retry-after-ms / retry-after), `uniform01` a value in [0, 1) for jitter,
/// `waited_s` the time since the first attempt.
RetryDecision decide_retry(const RetryPolicy& policy, int attempts_made,
                           std::optional<double> retry_after_s, double uniform01, double waited_s);

}  // namespace mirac
