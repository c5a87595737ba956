// pacing.cpp: admission control. Sends are spaced evenly rather than burst at the start of
// a window, because servers count RPM over sliding windows and bursts earn 429s.
#include "runtime/scheduler/pacing.hpp"

#include <algorithm>

namespace mirac {

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
    // Keep to the schedule when a send is slightly late (loop and poll granularity), so
    // small delays do not accumulate into a lower rate; after an idle spell, restart from
    // now rather than bursting to catch up.
    double interval = 60.0 / limits_.rpm;
    bool on_schedule = next_send_at_ >= now - 0.5 * interval;
    next_send_at_ = (on_schedule ? next_send_at_ : now) + interval;
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
