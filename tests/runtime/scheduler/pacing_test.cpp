// pacing_test.cpp: per-provider admission: concurrency, RPM schedule, TPM bucket, pauses.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/scheduler/pacing.hpp"

using namespace mirac;

TEST_CASE("pacer: RPM keeps to its schedule (2% under the limit) when slightly late, restarts after idling") {
  Pacer p({10, 60, 0});  // one per second declared: one per 1.02 s sent
  double wake = 0;
  CHECK(p.may_send(100.0, 1, 0, wake));
  p.on_send(100.0, 1);
  CHECK_FALSE(p.may_send(100.5, 1, 0, wake));
  CHECK(wake == doctest::Approx(101.02));
  CHECK(p.may_send(101.07, 1, 0, wake));  // 0.05 s late
  p.on_send(101.07, 1);
  CHECK_FALSE(p.may_send(101.9, 1, 0, wake));
  CHECK(wake == doctest::Approx(102.04));  // the schedule, not 102.09
  CHECK(p.may_send(102.6, 1, 0, wake));  // much later: catches up a tenth of an interval at most
  p.on_send(102.6, 1);
  CHECK_FALSE(p.may_send(103.4, 1, 0, wake));
  CHECK(wake == doctest::Approx(102.6 + 0.9 * 1.02));
  CHECK(p.may_send(110.0, 1, 0, wake));  // idle for a while
  p.on_send(110.0, 1);
  CHECK_FALSE(p.may_send(110.5, 1, 0, wake));
  CHECK(wake == doctest::Approx(111.02));  // no burst to catch up
}

namespace {

// 3,000 sends through a pacer at 1,200 a minute, each going when the pacer allows it plus
// a pseudo-random lateness of up to `lateness` intervals; simulated times.
std::vector<double> paced_sends(double lateness) {
  Pacer p({64, 1200, 0});
  std::vector<double> sent;
  double now = 0, wake = 0;
  std::uint32_t lcg = 12345;
  while (sent.size() < 3000) {
    if (!p.may_send(now, 1, 0, wake)) {
      lcg = lcg * 1664525u + 1013904223u;
      now = wake + lateness * 0.05 * static_cast<double>(lcg >> 8) / static_cast<double>(1u << 24);
      continue;
    }
    p.on_send(now, 1);
    sent.push_back(now);
  }
  return sent;
}

std::size_t most_within(const std::vector<double>& sent, double window) {
  std::size_t most = 0;
  for (std::size_t first = 0, last = 0; last < sent.size(); ++last) {
    while (sent[last] - sent[first] >= window) ++first;
    most = std::max(most, last - first + 1);
  }
  return most;
}

}  // namespace

TEST_CASE("pacer: a declared RPM holds over any window a server counts, however late the sends") {
  // 1,200 a minute, as a server counting per minute, 200 per 10 s or 60 per 3 s sees it.
  for (double lateness : {0.0, 0.1, 0.8}) {
    CAPTURE(lateness);
    auto sent = paced_sends(lateness);
    CHECK(most_within(sent, 60) <= 1200);
    CHECK(most_within(sent, 10) <= 200);
    CHECK(most_within(sent, 3) <= 60);
    // Slightly late sends keep close to the limit: 3,000 take under 2 min 40 s (2 min 30 s
    // at exactly the limit).
    if (lateness <= 0.1) CHECK(sent.back() - sent.front() < 160);
  }
}

TEST_CASE("pacer: concurrency cap, TPM bucket, pauses from headers") {
  Pacer p({2, 0, 600});  // 600 tokens per minute = 10 per second
  double wake = 0;
  CHECK_FALSE(p.may_send(0, 1, 2, wake));
  CHECK(p.may_send(0, 500, 0, wake));
  p.on_send(0, 500);
  CHECK_FALSE(p.may_send(0, 200, 1, wake));
  CHECK(wake == doctest::Approx(10.0));  // 100 left, 100 more needed at 10/s
  p.on_usage(500, 100);                  // the answer was small: 400 back
  CHECK(p.may_send(0, 200, 1, wake));
  CHECK_FALSE(p.may_send(0, 5000, 0, wake));  // larger than the bucket: waits until full
  CHECK(wake == doctest::Approx(10.0));       // 500 of 600, refilling at 10/s
  CHECK(p.may_send(10, 5000, 0, wake));

  RateLimitInfo info;
  info.remaining_requests = 0;
  info.reset_requests_s = 7;
  p.on_rate_limits(info, 50);
  CHECK_FALSE(p.may_send(51, 1, 0, wake));
  CHECK(wake == doctest::Approx(57));
  p.pause_until(55);  // an earlier pause never shortens a longer one
  CHECK(p.paused_until() == doctest::Approx(57));
}
