// scheduler_time_test.cpp: the scheduler and time, on a manual clock: the attempt that gives
// up is recorded as the failure, a long retry-after pauses the provider (or stops it past
// max_pause), cancellation during a pause, no spinning at the concurrency cap, and
// per-provider timeouts. Times compared here are fake-clock values, never measured ones.
#include <doctest/doctest.h>

#include "fake_http.hpp"
#include "runtime/scheduler/run_plan.hpp"
#include "runtime/scheduler/scheduler.hpp"

using namespace mirac;
using namespace mirac::test;

namespace {

struct Fixture {
  TempDir dir;
  std::unique_ptr<Store> store;
  ManualClock clock;
  FixedRandom random{0.5};
  MapEnvironment env{{{"OPENAI_API_KEY", "sk-test-secret-123"}}};
  std::atomic<bool> cancel{false};
  std::vector<std::string> logs;
  std::vector<Progress> progress;
  SchedulerOptions options;

  Fixture() {
    std::string error;
    store = Store::open(dir.path, error);
    REQUIRE(store);
    options.progress_interval_s = 10;
  }
  RunSummary run(const std::vector<ModelCall>& calls, HttpClient& http) {
    SchedulerContext ctx{clock, random, env, cancel, [this](const Progress& p) { progress.push_back(p); },
                         [this](const std::string& s) { logs.push_back(s); }};
    return execute(calls, *store, http, options, ctx);
  }
  bool logged(const std::string& part) const {
    for (const auto& l : logs)
      if (l.find(part) != std::string::npos) return true;
    return false;
  }
};

std::vector<ModelCall> calls(int n) {
  std::vector<ModelCall> out;
  for (int i = 0; i < n; ++i) out.push_back(make_call("h" + std::to_string(i), "q" + std::to_string(i)));
  return out;
}

HttpResponse timed_out() {
  HttpResponse r;
  r.error = TransportError::timeout;
  r.error_message = "Timeout was reached";
  return r;
}

}  // namespace

TEST_CASE("scheduler: the last attempt of a request given up is recorded as the failure, not a retry") {
  Fixture f;
  f.options.retry.max_attempts = 3;
  FakeHttp http(f.clock, [](const HttpRequest& r, int) {
    return r.body.find("q0") != std::string::npos ? status_response(500, "oops") : timed_out();
  });
  auto s = f.run(calls(2), http);
  CHECK(s.failed == 2);
  CHECK(s.failed_by_cause.at("http_500") == 1);
  CHECK(s.failed_by_cause.at("timeout") == 1);  // a timeout is retried like a 5xx, then fails as one
  for (const char* hash : {"h0", "h1"}) {
    auto attempts = f.store->attempts(hash);
    REQUIRE(attempts.size() == 3);
    CHECK(attempts[0].outcome == "retry");
    CHECK(attempts[1].outcome == "retry");
    CHECK(attempts[2].outcome == "failed");
    CHECK(attempts[2].cause == f.store->answer(hash)->cause);
    CHECK(attempts[2].message.find("gave up after 3 attempts") != std::string::npos);
  }
}

TEST_CASE("scheduler: a retry-after longer than the retry cap pauses every send to the provider, then goes on") {
  Fixture f;
  f.options.provider_limits["openai"] = {3, 0, 0};
  // The first request draws "wait 300 s"; everything else is answered.
  FakeHttp http(f.clock, [](const HttpRequest&, int nth) {
    return nth == 1 ? status_response(429, "{}", {{"retry-after", "300"}}) : ok_openai();
  });
  const double start = f.clock.now();
  auto s = f.run(calls(8), http);
  CHECK(s.stored == 8);
  CHECK(s.failed == 0);
  REQUIRE(http.sends.size() == 9);
  // Three went at once; the 429 came back 0.1 s later; nothing else left before it ended.
  for (std::size_t i = 3; i < http.sends.size(); ++i) CHECK(http.sends[i].at >= start + 300);
  auto attempts = f.store->attempts("h0");
  REQUIRE(attempts.size() == 2);
  CHECK(attempts[0].outcome == "retry");
  CHECK(attempts[0].retry_delay_s == doctest::Approx(300));
  CHECK(f.logged("provider 'openai' paused for 5m00s"));
  bool shown = false;
  for (const auto& p : f.progress) {
    if (p.paused_s.count("openai") && p.eta_s >= 0) CHECK(p.eta_s >= p.paused_s.at("openai"));
    if (p.paused_s.count("openai")) shown = shown || format_progress(p).find("openai paused by the server, resumes in") != std::string::npos;
  }
  CHECK(shown);
  CHECK(f.progress.back().paused_s.empty());
  bool in_summary = false;
  for (const auto& m : s.messages) in_summary = in_summary || m.find("paused for 5m00s") != std::string::npos;
  CHECK(in_summary);
}

TEST_CASE("scheduler: a retry-after past max_pause stops the provider; stored answers stay, the rest waits for a rerun") {
  Fixture f;
  f.options.provider_limits["openai"] = {1, 0, 0};
  f.options.provider_retry["openai"] = RetryPolicy{};
  f.options.provider_retry["openai"].max_pause_s = 200;
  FakeHttp http(f.clock, [](const HttpRequest&, int nth) {
    return nth == 3 ? status_response(429, "{}", {{"retry-after", "300"}}) : ok_openai();
  });
  auto s = f.run(calls(6), http);
  CHECK(s.stored == 2);
  CHECK(s.failed == 0);
  CHECK(http.sends.size() == 3);
  CHECK(s.not_sent.at("provider_stopped:openai") == 4);
  CHECK(f.logged("more than max_pause 200 s"));
  CHECK(f.logged("run again later"));
  auto attempts = f.store->attempts("h2");
  REQUIRE(attempts.size() == 1);
  CHECK(attempts[0].outcome == "stopped");
  CHECK(f.store->status({"h0", "h1", "h2", "h3", "h4", "h5"}).done == 2);

  FakeHttp later(f.clock, [](const HttpRequest&, int) { return ok_openai(); });
  auto s2 = f.run(calls(6), later);
  CHECK(s2.skipped == 2);
  CHECK(s2.stored == 4);
}

TEST_CASE("scheduler: cancelling during a long pause stops at once rather than waiting it out") {
  Fixture f;
  f.options.provider_limits["openai"] = {1, 0, 0};
  FakeHttp http(f.clock, [](const HttpRequest&, int nth) {
    return nth == 1 ? status_response(429, "{}", {{"retry-after", "600"}}) : ok_openai();
  });
  // Cancel, as Ctrl-C would, once the progress line says the provider is paused.
  const double start = f.clock.now();
  SchedulerContext ctx{f.clock, f.random, f.env, f.cancel, [&f](const Progress& p) {
                         if (p.paused_s.count("openai")) f.cancel = true;
                       }};
  f.options.progress_interval_s = 1;
  auto s = execute(calls(3), *f.store, http, f.options, ctx);
  CHECK(s.cancelled);
  CHECK(http.sends.size() == 1);
  CHECK(f.clock.now() - start < 60);  // fake time: the 600 s pause was not sat out
  CHECK(s.not_sent.at("cancelled") == 3);
}

TEST_CASE("scheduler: at the concurrency cap with a retry due, it waits on the network instead of spinning") {
  Fixture f;
  f.options.provider_limits["openai"] = {2, 0, 0};
  // The first answer is a quick 500 (retried ~0.5 s later); the next two hang for 100 s,
  // filling both slots while the retry is due.
  FakeHttp http(f.clock, [](const HttpRequest&, int nth) { return nth == 1 ? status_response(500, "x") : ok_openai(); });
  http.latency_of_nth = {{2, 100.0}, {3, 100.0}};
  auto s = f.run(calls(3), http);
  CHECK(s.stored == 3);
  CHECK(http.idle_polls < 10);
}

TEST_CASE("scheduler: each provider's connect, first-byte and total timeouts reach its requests") {
  Fixture f;
  f.options.provider_timeouts["openai"] = ProviderTimeouts{3, 7, 42};
  f.options.timeouts = ProviderTimeouts{1, 0, 5};
  auto plan = calls(1);
  plan.push_back(make_call("o1", "other", "other-provider"));
  FakeHttp http(f.clock, [](const HttpRequest&, int) { return ok_openai(); });
  auto s = f.run(plan, http);
  CHECK(s.stored == 2);
  REQUIRE(http.sends.size() == 2);
  for (const auto& sent : http.sends) {
    const bool openai = sent.request.body.find("\"q0\"") != std::string::npos;
    CHECK(sent.request.connect_timeout_s == (openai ? 3 : 1));
    CHECK(sent.request.first_byte_timeout_s == (openai ? 7 : 0));
    CHECK(sent.request.timeout_s == (openai ? 42 : 5));
  }
}
