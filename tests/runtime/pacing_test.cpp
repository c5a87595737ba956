// pacing_test.cpp: per-provider admission: concurrency, RPM schedule, TPM bucket, pauses.
#include <doctest/doctest.h>

#include "runtime/scheduler/pacing.hpp"

using namespace mirac;

TEST_CASE("pacer: RPM keeps to its schedule when slightly late, restarts after idling") {
  Pacer p({10, 60, 0});  // one per second
  double wake = 0;
  CHECK(p.may_send(100.0, 1, 0, wake));
  p.on_send(100.0, 1);
  CHECK_FALSE(p.may_send(100.5, 1, 0, wake));
  CHECK(wake == doctest::Approx(101.0));
  CHECK(p.may_send(101.2, 1, 0, wake));  // 0.2 s late
  p.on_send(101.2, 1);
  CHECK_FALSE(p.may_send(101.9, 1, 0, wake));
  CHECK(wake == doctest::Approx(102.0));  // the schedule, not 102.2
  CHECK(p.may_send(110.0, 1, 0, wake));  // idle for a while
  p.on_send(110.0, 1);
  CHECK_FALSE(p.may_send(110.5, 1, 0, wake));
  CHECK(wake == doctest::Approx(111.0));  // no burst to catch up
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
