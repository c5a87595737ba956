// retry_policy.hpp: when and how long to wait before retrying, copied from the official
// OpenAI and Anthropic Python SDKs (provider-protocols.md §6), with more attempts for
// long runs and a cap on the total wait per request.
#pragma once

#include <optional>
#include <string>

namespace mirac {

struct RetryPolicy {
  int max_attempts = 8;            ///< SDK default is 3; long audit runs need more patience
  double initial_delay_s = 0.5;    ///< SDK INITIAL_RETRY_DELAY
  double max_delay_s = 8.0;        ///< SDK MAX_RETRY_DELAY
  double max_retry_after_s = 120;  ///< openai-python: a longer server delay is not waited for
  double max_total_wait_s = 900;   ///< give up (for this run) after this long since attempt 1
};

struct RetryDecision {
  bool retry = false;
  double delay_s = 0;
  std::string reason;  ///< why not, when retry is false
};

/// `attempts_made` counts attempts already sent (>= 1); `retry_after_s` is the server's
/// requested delay (retry-after-ms / retry-after), `uniform01` a value in [0, 1) for jitter,
/// `waited_s` the time since the first attempt.
RetryDecision decide_retry(const RetryPolicy& policy, int attempts_made,
                           std::optional<double> retry_after_s, double uniform01, double waited_s);

}  // namespace mirac
