// retry_policy.cpp: the SDKs' _calculate_retry_timeout, plus our attempt and wait caps.
#include "runtime/scheduler/retry_policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace mirac {

RetryDecision decide_retry(const RetryPolicy& policy, int attempts_made,
                           std::optional<double> retry_after_s, double uniform01, double waited_s) {
  RetryDecision d;
  if (attempts_made >= policy.max_attempts) {
    d.reason = fmt::format("gave up after {} attempts", attempts_made);
    return d;
  }
  if (retry_after_s && std::isfinite(*retry_after_s) && *retry_after_s > policy.max_retry_after_s) {
    // openai-python raises instead of sleeping this long, which in a long run turns every
    // request into a failure within seconds. A server asking for minutes speaks for the
    // whole provider: pause it, up to a bound past which the user is better told to rerun.
    if (*retry_after_s > policy.max_pause_s) {
      d.stop_provider = true;
      d.reason = fmt::format("server asked to wait {:.0f} s, more than max_pause {:.0f} s",
                             *retry_after_s, policy.max_pause_s);
      return d;
    }
    d.retry = d.pause_provider = true;
    d.delay_s = *retry_after_s;
    return d;
  }
  if (retry_after_s && std::isfinite(*retry_after_s) && *retry_after_s > 0) {
    d.delay_s = *retry_after_s;
  } else {
    // delay = min(0.5 * 2^n, 8) * (1 - 0.25 * rand), n = retries already taken.
    int n = attempts_made - 1;
    double base = std::min(policy.initial_delay_s * std::pow(2.0, n), policy.max_delay_s);
    d.delay_s = base * (1.0 - 0.25 * uniform01);
  }
  if (waited_s + d.delay_s > policy.max_total_wait_s) {
    d.reason = fmt::format("gave up after waiting {:.0f} s in total", waited_s);
    return d;
  }
  d.retry = true;
  return d;
}

}  // namespace mirac
