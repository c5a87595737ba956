// scheduler_test.cpp: the scheduler against an in-memory HTTP fake on a manual clock:
// pacing, retries, provider stops, budget, cancellation, progress. Times compared here
// are fake-clock values, never measured durations.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "fake_http.hpp"
#include "runtime/providers/environment.hpp"
#include "runtime/scheduler/scheduler.hpp"

using namespace mirac;
using namespace mirac::test;

namespace {

struct Fixture {
  TempDir dir;
  std::unique_ptr<Store> store;
  ManualClock clock;
  FixedRandom random{0.5};
  MapEnvironment env{{{"OPENAI_API_KEY", "sk-test-secret-123"}, {"ANTHROPIC_API_KEY", "sk-ant-secret-456"}}};
  std::atomic<bool> cancel{false};
  std::vector<std::string> logs;
  std::vector<Progress> progress;
  SchedulerOptions options;

  Fixture() {
    std::string error;
    store = Store::open(dir.path, error);
    REQUIRE(store);
  }
  RunSummary run(const std::vector<ModelCall>& calls, HttpClient& http) {
    SchedulerContext ctx{clock, random, env, cancel, [this](const Progress& p) { progress.push_back(p); },
                         [this](const std::string& s) { logs.push_back(s); }};
    return execute(calls, *store, http, options, ctx);
  }
};

std::vector<ModelCall> calls(int n, const std::string& prefix = "h", const std::string& provider = "openai") {
  std::vector<ModelCall> out;
  for (int i = 0; i < n; ++i) {
    if (provider == "anthropic")
      out.push_back(make_call(prefix + std::to_string(i), "q" + std::to_string(i), "anthropic",
                              WireProtocol::anthropic_messages, "http://x", "ANTHROPIC_API_KEY", "claude-x"));
    else
      out.push_back(make_call(prefix + std::to_string(i), "q" + std::to_string(i), provider));
  }
  return out;
}

}  // namespace

TEST_CASE("scheduler: sends every call once, stores answers, a second run sends nothing") {
  Fixture f;
  FakeHttp http(f.clock, [](const HttpRequest&, int) { return ok_openai(); });
  auto plan = calls(10);
  plan.push_back(plan[0]);  // a duplicate hash is one request
  auto s = f.run(plan, http);
  CHECK(s.total == 10);
  CHECK(s.sent == 10);
  CHECK(s.stored == 10);
  CHECK(http.sends.size() == 10);
  CHECK(f.store->done_hashes().size() == 10);
  auto a = f.store->answer("h3");
  REQUIRE(a);
  CHECK(a->text == "fine");
  CHECK(a->returned_model == "gpt-4.1-mini-2025");
  CHECK(a->request_body.find("\"q3\"") != std::string::npos);
  CHECK(f.progress.back().final);
  CHECK(f.progress.back().done == 10);

  FakeHttp again(f.clock, [](const HttpRequest&, int) { return ok_openai(); });
  auto s2 = f.run(plan, again);
  CHECK(again.sends.empty());
  CHECK(s2.skipped == 10);
  CHECK(s2.sent == 0);
}

TEST_CASE("scheduler: per-provider concurrency cap and RPM spacing") {
  Fixture f;
  f.options.provider_limits["openai"] = {3, 0, 0};
  FakeHttp http(f.clock, [](const HttpRequest&, int) { return ok_openai(); }, 5.0);
  f.run(calls(12), http);
  CHECK(http.max_in_flight == 3);

  Fixture g;
  g.options.provider_limits["openai"] = {100, 60, 0};  // one request per second
  FakeHttp paced(g.clock, [](const HttpRequest&, int) { return ok_openai(); }, 0.01);
  g.run(calls(6), paced);
  REQUIRE(paced.sends.size() == 6);
  for (std::size_t i = 1; i < paced.sends.size(); ++i)
    CHECK(paced.sends[i].at - paced.sends[i - 1].at >= doctest::Approx(1.0));
}

TEST_CASE("scheduler: TPM pacing and adapting to rate-limit headers") {
  Fixture f;
  // Each call is estimated at 16.5 + 64 tokens; 170 TPM admits two at once, then the
  // third waits for the bucket to refill (real usage, 80 tokens, is charged back).
  f.options.provider_limits["openai"] = {100, 0, 170};
  FakeHttp http(f.clock, [](const HttpRequest&, int) { return ok_openai("x", 16, 64); }, 0.01);
  f.run(calls(4), http);
  REQUIRE(http.sends.size() == 4);
  CHECK(http.sends[1].at - http.sends[0].at < 0.001);
  CHECK(http.sends[2].at - http.sends[0].at > 1.0);

  Fixture g;
  g.options.provider_limits["openai"] = {1, 0, 0};
  FakeHttp headers(g.clock, [](const HttpRequest&, int) {
    auto r = ok_openai();
    r.headers.push_back({"x-ratelimit-remaining-requests", "0"});
    r.headers.push_back({"x-ratelimit-reset-requests", "5s"});
    return r;
  }, 0.01);
  g.run(calls(2), headers);
  REQUIRE(headers.sends.size() == 2);
  CHECK(headers.sends[1].at - headers.sends[0].at >= doctest::Approx(5.0));
}

TEST_CASE("scheduler: retries honor retry-after-ms and retry-after, else SDK backoff") {
  Fixture f;
  FakeHttp http(f.clock, [](const HttpRequest&, int nth) {
    if (nth == 1) return status_response(429, "{}", {{"retry-after-ms", "250"}, {"retry-after", "9"}});
    if (nth == 2) return status_response(503, "");
    if (nth == 3) return status_response(429, "{}", {{"retry-after", "2"}});
    return ok_openai();
  }, 0.0);
  auto s = f.run(calls(1), http);
  CHECK(s.stored == 1);
  CHECK(s.attempts == 4);
  auto at = f.store->attempts("h0");
  REQUIRE(at.size() == 4);
  CHECK(at[0].retry_delay_s == doctest::Approx(0.25));
  CHECK(at[1].retry_delay_s == doctest::Approx(1.0 * (1 - 0.25 * 0.5)));  // n=1: min(0.5*2,8)*(1-0.25r)
  CHECK(at[2].retry_delay_s == doctest::Approx(2.0));
  CHECK(at[3].outcome == "ok");
  CHECK(http.sends[1].at - http.sends[0].at >= doctest::Approx(0.25));
  CHECK(http.sends[3].at - http.sends[2].at >= doctest::Approx(2.0));
  CHECK(f.store->answer("h0")->attempts == 4);
}

TEST_CASE("scheduler: exhausted attempts and fatal requests are stored as failed, retried next run") {
  Fixture f;
  f.options.retry.max_attempts = 3;
  FakeHttp http(f.clock, [](const HttpRequest& r, int) {
    if (r.body.find("q0") != std::string::npos) return status_response(500, "<html>oops</html>");
    return status_response(400, "{}");
  });
  auto s = f.run(calls(2), http);
  CHECK(s.failed == 2);
  CHECK(s.failed_by_cause.at("http_500") == 1);
  CHECK(s.failed_by_cause.at("invalid_request") == 1);
  CHECK(f.store->attempts("h0").size() == 3);
  CHECK(f.store->attempts("h1").size() == 1);
  auto st = f.store->status({"h0", "h1"});
  CHECK(st.failed_total() == 2);

  FakeHttp later(f.clock, [](const HttpRequest&, int) { return ok_openai(); });
  auto s2 = f.run(calls(2), later);
  CHECK(s2.sent == 2);
  CHECK(f.store->status({"h0", "h1"}).done == 2);
}

TEST_CASE("scheduler: a quota error stops that provider only") {
  Fixture f;
  f.options.provider_limits["openai"] = {1, 0, 0};
  FakeHttp http(f.clock, [](const HttpRequest& r, int) {
    if (r.url.find("chat/completions") != std::string::npos)
      return status_response(429, R"({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}})");
    HttpResponse ok;
    ok.status = 200;
    ok.body = R"({"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","model":"claude-x","usage":{"input_tokens":1,"output_tokens":1}})";
    return ok;
  });
  auto plan = calls(5);
  auto claude = calls(5, "c", "anthropic");
  plan.insert(plan.end(), claude.begin(), claude.end());
  auto s = f.run(plan, http);
  CHECK(s.failed_by_cause.at("insufficient_quota") == 1);
  CHECK(s.not_sent.at("provider_stopped:openai") == 4);
  CHECK(s.stored == 5);  // anthropic carried on
  REQUIRE(s.messages.size() == 1);
  CHECK(s.messages[0].find("provider 'openai' stopped (insufficient_quota)") != std::string::npos);
  CHECK(f.store->attempts("h0").size() == 1);  // not retried
}

TEST_CASE("scheduler: budget stops sending before it would be exceeded") {
  Fixture f;
  f.options.provider_limits["openai"] = {1, 0, 0};
  f.options.prices["gpt-4.1-mini"] = {1000.0, 1000.0};  // $ per million tokens
  // Estimate per call: (2/4 + 16) input + 64 output tokens = 80.5 tokens -> $0.0805.
  // Actual: 10 + 20 tokens -> $0.03. Budget $0.2: sends while spent + 0.0805 <= 0.2.
  f.options.budget_usd = 0.2;
  FakeHttp http(f.clock, [](const HttpRequest&, int) { return ok_openai(); });
  auto s = f.run(calls(20), http);
  CHECK(s.budget_exhausted);
  CHECK(s.stored == 4);  // the 5th would risk 4 * 0.03 + 0.0805 = 0.2005 > 0.2
  CHECK(s.spend_usd == doctest::Approx(0.12));
  CHECK(s.not_sent.at("budget") == 16);
  CHECK(f.store->total_spend() == doctest::Approx(s.spend_usd));
}

TEST_CASE("scheduler: a budget without prices, and missing keys, stop before sending") {
  Fixture f;
  f.options.budget_usd = 1;
  FakeHttp http(f.clock, [](const HttpRequest&, int) { return ok_openai(); });
  auto s = f.run(calls(2), http);
  CHECK(s.fatal_error.find("no price for: gpt-4.1-mini") != std::string::npos);
  CHECK(http.sends.empty());

  Fixture g;
  g.env = MapEnvironment{};
  auto plan = calls(2);
  auto claude = calls(2, "c", "anthropic");
  plan.insert(plan.end(), claude.begin(), claude.end());
  auto s2 = g.run(plan, http);
  CHECK(s2.fatal_error.find("ANTHROPIC_API_KEY") != std::string::npos);
  CHECK(s2.fatal_error.find("OPENAI_API_KEY") != std::string::npos);
  CHECK(http.sends.empty());
}

TEST_CASE("scheduler: cancellation stops sending and stores the answers in flight") {
  Fixture f;
  f.options.provider_limits["openai"] = {4, 0, 0};
  FakeHttp http(f.clock, [&](const HttpRequest&, int nth) {
    if (nth == 6) f.cancel = true;  // SIGINT arrives while requests are in flight
    return ok_openai();
  }, 1.0);
  auto s = f.run(calls(50), http);
  CHECK(s.cancelled);
  CHECK(s.stored == http.sends.size());  // everything sent was stored
  CHECK(s.stored < 50);
  CHECK(s.not_sent.at("cancelled") == 50 - s.stored);

  Fixture g;
  g.options.cancel_grace_s = 5;
  FakeHttp slow(g.clock, [&](const HttpRequest&, int) {
    g.cancel = true;
    return ok_openai();
  }, 100.0);  // answers would take longer than the grace period
  auto s2 = g.run(calls(3), slow);
  CHECK(s2.cancelled);
  CHECK(s2.stored == 0);
  CHECK(slow.aborted.size() == 3);
  CHECK(g.store->status({"h0", "h1", "h2"}).pending == 3);
  CHECK(g.store->attempts("h0").at(0).outcome == "aborted");
}

TEST_CASE("scheduler: the key never reaches the store or the log, even when echoed") {
  Fixture f;
  f.options.provider_limits["openai"] = {1, 0, 0};
  FakeHttp http(f.clock, [](const HttpRequest& r, int) {
    std::string auth;
    for (const auto& [k, v] : r.headers)
      if (k == "Authorization") auth = v;
    return status_response(401, R"({"error":{"message":"Incorrect API key provided: )" + auth + R"("}})");
  });
  auto s = f.run(calls(2), http);
  CHECK(s.failed_by_cause.at("authentication") == 1);
  auto a = f.store->answer("h0");
  REQUIRE(a);
  CHECK(a->response_body.find("sk-test-secret-123") == std::string::npos);
  CHECK(a->message.find("[redacted]") != std::string::npos);
  for (const auto& l : f.logs) CHECK(l.find("sk-test-secret-123") == std::string::npos);
  REQUIRE(!http.sends.empty());
  bool sent_key = false;
  for (const auto& [k, v] : http.sends[0].request.headers) sent_key |= v == "Bearer sk-test-secret-123";
  CHECK(sent_key);
}

TEST_CASE("retry policy: SDK formula, attempt and wait caps") {
  RetryPolicy p;
  CHECK(decide_retry(p, 1, std::nullopt, 0.0, 0).delay_s == doctest::Approx(0.5));
  CHECK(decide_retry(p, 2, std::nullopt, 0.0, 0).delay_s == doctest::Approx(1.0));
  CHECK(decide_retry(p, 5, std::nullopt, 0.0, 0).delay_s == doctest::Approx(8.0));
  CHECK(decide_retry(p, 6, std::nullopt, 0.999, 0).delay_s == doctest::Approx(8.0 * (1 - 0.25 * 0.999)));
  CHECK(decide_retry(p, 1, 0.0, 0.0, 0).delay_s == doctest::Approx(0.5));   // zero: backoff
  CHECK(decide_retry(p, 1, -3.0, 0.0, 0).delay_s == doctest::Approx(0.5));  // negative: backoff
  CHECK_FALSE(decide_retry(p, 8, std::nullopt, 0, 0).retry);
  CHECK(decide_retry(p, 1, 121.0, 0, 0).pause_provider);  // past the retry cap: a provider pause
  CHECK(decide_retry(p, 1, 300.0, 0, 895).retry);          // which is not the request's waiting
  CHECK(decide_retry(p, 1, 901.0, 0, 0).stop_provider);    // past max_pause: stop, rerun later
  CHECK_FALSE(decide_retry(p, 1, 901.0, 0, 0).retry);
  CHECK_FALSE(decide_retry(p, 8, 300.0, 0, 0).retry);      // attempts still count
  CHECK_FALSE(decide_retry(p, 1, 10.0, 0, 895).retry);
}

TEST_CASE("scheduler: a resumed run needs keys only for what is left to send") {
  Fixture f;
  FakeHttp http(f.clock, [](const HttpRequest& r, int) {
    if (r.url.find("/messages") != std::string::npos) {
      HttpResponse ok;
      ok.status = 200;
      ok.body = R"({"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}})";
      return ok;
    }
    return ok_openai();
  });
  auto plan = calls(2);
  auto claude = calls(2, "c", "anthropic");
  plan.insert(plan.end(), claude.begin(), claude.end());
  CHECK(f.run(plan, http).stored == 4);
  f.env = MapEnvironment{};  // keys gone: nothing is left to send, so nothing is missing
  auto s = f.run(plan, http);
  CHECK(s.fatal_error.empty());
  CHECK(s.skipped == 4);
}

TEST_CASE("scheduler: with requests in flight, the budget waits for their real cost") {
  Fixture f;
  f.options.provider_limits["openai"] = {4, 0, 0};
  f.options.prices["gpt-4.1-mini"] = {1000.0, 1000.0};
  f.options.budget_usd = 0.2;  // worst case $0.0805 each: only 2 fit at once, real cost $0.03
  FakeHttp http(f.clock, [](const HttpRequest&, int) { return ok_openai(); });
  auto s = f.run(calls(20), http);
  CHECK(s.budget_exhausted);
  CHECK(http.max_in_flight == 2);
  CHECK(s.stored == 4);  // as many as sequential sending allows
  CHECK(s.spend_usd <= 0.2);
}

TEST_CASE("scheduler: a provider with several endpoints spreads requests by in-flight count") {
  Fixture f;
  f.options.provider_limits["openai"] = {4, 0, 0};
  f.options.provider_endpoints["openai"] = {"http://a:8080/v1", "http://b:8080/v1"};
  FakeHttp http(f.clock, [](const HttpRequest&, int) { return ok_openai(); }, 1.0);
  auto s = f.run(calls(20), http);
  CHECK(s.stored == 20);
  std::map<std::string, int> by_url;
  for (const auto& sent : http.sends) ++by_url[sent.request.url];
  CHECK(by_url["http://a:8080/v1/chat/completions"] == 10);
  CHECK(by_url["http://b:8080/v1/chat/completions"] == 10);
}

TEST_CASE("scheduler: a failing endpoint is taken out and the others serve; it is tried again later") {
  Fixture f;
  f.options.provider_limits["openai"] = {2, 0, 0};
  f.options.provider_endpoints["openai"] = {"http://a:8080/v1", "http://b:8080/v1"};
  bool b_down = true;
  FakeHttp http(f.clock, [&b_down](const HttpRequest& r, int) {
    if (b_down && r.url.rfind("http://b", 0) == 0) {
      HttpResponse down;
      down.error = TransportError::connect;
      return down;
    }
    return ok_openai();
  }, 1.0);
  auto s = f.run(calls(30), http);
  CHECK(s.stored == 30);
  CHECK(s.failed == 0);
  int to_b = 0;
  for (const auto& sent : http.sends) to_b += sent.request.url.rfind("http://b", 0) == 0;
  // b fails its first request and is out for 10 s, then fails once more and is out for 20 s:
  // 30 requests at 1 s each on two slots take ~15-30 s, so b sees very few of them.
  CHECK(to_b >= 1);
  CHECK(to_b <= 3);
  bool logged = false;
  for (const auto& l : f.logs) logged = logged || l.find("openai: endpoint http://b:8080/v1 out of service for 10 s") == 0;
  CHECK(logged);

  // Once b is back, its turn comes again after the time out.
  Fixture g;
  g.options.provider_limits["openai"] = {2, 0, 0};
  g.options.provider_endpoints["openai"] = {"http://a:8080/v1", "http://b:8080/v1"};
  int sends = 0;
  FakeHttp flaky(g.clock, [&sends](const HttpRequest& r, int) {
    ++sends;
    if (sends <= 2 && r.url.rfind("http://b", 0) == 0) {
      HttpResponse busy;
      busy.status = 503;
      busy.body = "{}";
      return busy;
    }
    return ok_openai();
  }, 1.0);
  auto t = g.run(calls(60), flaky);
  CHECK(t.stored == 60);
  int late_b = 0;
  for (const auto& sent : flaky.sends) late_b += sent.at > 12 && sent.request.url.rfind("http://b", 0) == 0;
  CHECK(late_b > 5);
}

TEST_CASE("the base URL variable may list several endpoints") {
  CHECK(split_base_urls("http://a/v1") == std::vector<std::string>{"http://a/v1"});
  CHECK(split_base_urls(" http://a/v1 , http://b/v1,") == std::vector<std::string>{"http://a/v1", "http://b/v1"});
  CHECK(split_base_urls("").empty());
  Fixture f;
  f.env.set("OPENAI_BASE_URL", "http://c/v1,http://d/v1");
  f.options.provider_limits["openai"] = {2, 0, 0};
  FakeHttp http(f.clock, [](const HttpRequest&, int) { return ok_openai(); }, 1.0);
  CHECK(f.run(calls(4), http).stored == 4);
  std::set<std::string> urls;
  for (const auto& sent : http.sends) urls.insert(sent.request.url);
  CHECK(urls == std::set<std::string>{"http://c/v1/chat/completions", "http://d/v1/chat/completions"});
}
