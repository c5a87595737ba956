// pacing.cpp: admission control. Sends are spaced evenly rather than burst at the start of
// a window, because servers count RPM over sliding windows and bursts earn 429s.
#include "runtime/scheduler/pacing.hpp"

#include <algorithm>

namespace mirac {
namespace {

// Over n sends the spacing is at least (n - 1 - kRpmCatchUp) intervals, so any window of a
// server's limit N holds at most N / (1 + kRpmMargin) + 1.1 sends: within N from N = 56.
constexpr double kRpmMargin = 0.02;
constexpr double kRpmCatchUp = 0.1;

}  // namespace

void Pacer::refill(double now) {
  if (limits_.tpm <= 0) return;
  if (tokens_ < 0) {
    tokens_ = limits_.tpm;
    last_refill_ = now;
    return;
  }
  tokens_ = std::min(limits_.tpm, tokens_ + (now - last_refill_) * limits_.tpm / 60.0);
  last_refill_ = now;
}

bool Pacer::may_send(double now, double tokens, int in_flight, double& wake_at) {
  wake_at = now;
  if (in_flight >= limits_.max_in_flight) return false;  // woken by a completion instead
  if (now < paused_until_) {
    wake_at = paused_until_;
    return false;
  }
  if (limits_.rpm > 0 && now < next_send_at_) {
    wake_at = next_send_at_;
    return false;
  }
  if (limits_.tpm > 0) {
    refill(now);
    // A request larger than the whole bucket goes when the bucket is full, else never.
    double need = std::min(tokens, limits_.tpm);
    if (tokens_ < need) {
      wake_at = now + (need - tokens_) * 60.0 / limits_.tpm;
      return false;
    }
  }
  return true;
}

void Pacer::on_send(double now, double tokens) {
  if (limits_.rpm > 0) {
    // A declared limit must hold over any window a server counts (a minute, or 200 per
    // 10 s for 1,200 a minute), and requests reach it with some jitter: send a little
    // under the limit. Keep to the schedule when a send is slightly late (loop and poll
    // granularity), so small delays do not add up to a lower rate, but never by sending
    // much sooner than one interval after the last: a late send then catches up at most
    // a tenth of an interval, and sends cannot bunch up. After an idle spell the schedule
    // restarts from now.
    const double interval = 60.0 / limits_.rpm * (1.0 + kRpmMargin);
    const bool fresh_start = next_send_at_ < now - interval;  // the first send, or after idling
    next_send_at_ = fresh_start ? now + interval
                                : std::max(next_send_at_ + interval, now + (1.0 - kRpmCatchUp) * interval);
  }
  if (limits_.tpm > 0) {
    refill(now);
    tokens_ -= std::min(tokens, limits_.tpm);
  }
}

void Pacer::on_usage(double estimated, double actual) {
  if (limits_.tpm <= 0 || tokens_ < 0) return;
  tokens_ = std::min(limits_.tpm, tokens_ + estimated - actual);
}

void Pacer::on_rate_limits(const RateLimitInfo& info, double now) {
  if (info.remaining_requests && *info.remaining_requests <= 0 && info.reset_requests_s)
    pause_until(now + *info.reset_requests_s);
  if (info.remaining_tokens && *info.remaining_tokens <= 0 && info.reset_tokens_s)
    pause_until(now + *info.reset_tokens_s);
}

void Pacer::pause_until(double until) { paused_until_ = std::max(paused_until_, until); }

}  // namespace mirac
