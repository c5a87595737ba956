// pacing.hpp: per-provider admission control: concurrency, RPM spacing, a TPM token
// bucket, and pauses learned from rate-limit headers and 429s.
#pragma once

#include "runtime/providers/provider.hpp"

namespace mirac {

/// Limits for one provider (0 means unlimited for rpm/tpm).
struct ProviderLimits {
  int max_in_flight = 16;
  double rpm = 0;  ///< requests per minute: sends are spaced evenly, 2% under it
  double tpm = 0;  ///< estimated tokens (prompt + max output) per minute
};

class Pacer {
 public:
  explicit Pacer(ProviderLimits limits = {}) : limits_(limits) {}

  /// True if a request of `tokens` estimated tokens may start at `now`. Otherwise sets
  /// `wake_at` to when it may be worth asking again (never earlier than now).
  bool may_send(double now, double tokens, int in_flight, double& wake_at);
  void on_send(double now, double tokens);
  /// Corrects the token bucket once real usage is known.
  void on_usage(double estimated, double actual);
  /// Adapts to what the server reports: a spent window pauses sending until its reset.
  void on_rate_limits(const RateLimitInfo& info, double now);
  /// Pauses every send until `until` (e.g. after a 429 with retry-after).
  void pause_until(double until);

  double paused_until() const { return paused_until_; }
  const ProviderLimits& limits() const { return limits_; }

 private:
  void refill(double now);

  ProviderLimits limits_;
  double next_send_at_ = 0;
  double tokens_ = -1;  // bucket level; < 0 until first use (starts full)
  double last_refill_ = 0;
  double paused_until_ = 0;
};

}  // namespace mirac
