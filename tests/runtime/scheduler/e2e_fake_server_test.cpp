// e2e_fake_server_test.cpp: the real libcurl client and scheduler against the fake
// provider on 127.0.0.1: every scripted fault, both protocols, auth, rate limits,
// content addressing, cancellation, and the key never reaching the store or the log.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <thread>

#include "fake_server.hpp"
#include "helpers.hpp"
#include "runtime/http/curl_multi_client.hpp"
#include "runtime/scheduler/scheduler.hpp"

using namespace mirac;
using namespace mirac::test;

namespace {

constexpr const char* kOpenAiKey = "sk-e2e-OPENAI-5f1c2d9a";
constexpr const char* kAnthropicKey = "sk-ant-e2e-ANTHROPIC-77b0e4";

struct E2E {
  TempDir dir;
  fake::FakeServer server;
  std::unique_ptr<Store> store;
  SkipSleepClock clock;
  FixedRandom random{0.5};
  MapEnvironment env{{{"OPENAI_API_KEY", kOpenAiKey}, {"ANTHROPIC_API_KEY", kAnthropicKey}}};
  std::atomic<bool> cancel{false};
  std::vector<std::string> logs;
  SchedulerOptions options;

  explicit E2E(fake::FakeServerOptions o = {}) : server([&] {
    o.openai_key = kOpenAiKey;
    o.anthropic_key = kAnthropicKey;
    o.max_lifetime_s = 120;
    return o;
  }()) {
    std::string error;
    REQUIRE_MESSAGE(server.start(error), error);
    store = Store::open(dir.path, error);
    REQUIRE(store);
    options.timeouts.total_s = 10;
  }
  ModelCall openai(const std::string& hash, const std::string& prompt) {
    return make_call(hash, prompt, "openai", WireProtocol::openai_chat, server.base_url(), "OPENAI_API_KEY");
  }
  ModelCall claude(const std::string& hash, const std::string& prompt) {
    auto c = make_call(hash, prompt, "anthropic", WireProtocol::anthropic_messages,
                       "http://127.0.0.1:" + std::to_string(server.port()), "ANTHROPIC_API_KEY", "claude-sonnet-4-5");
    return c;
  }
  RunSummary run(const std::vector<ModelCall>& calls, Clock* clk = nullptr) {
    CurlMultiClient http;
    SchedulerContext ctx{clk ? *clk : clock, random, env, cancel, {},
                         [this](const std::string& s) { logs.push_back(s); }};
    return execute(calls, *store, http, options, ctx);
  }
};

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("curl client: many transfers in flight, headers captured, connection refused classified") {
  fake::FakeServerOptions o;
  o.latency_s = 0.05;
  fake::FakeServer server(o);
  std::string error;
  REQUIRE(server.start(error));
  CurlMultiClient http;
  ModelCall c = make_call("h", "hello", "openai", WireProtocol::openai_chat, server.base_url(), "");
  for (std::uint64_t i = 0; i < 40; ++i) {
    auto req = build_request(c, c.base_url, "");
    http.submit(i, HttpRequest{req.url, req.headers, req.body, 10, 5});
  }
  CHECK(http.in_flight() == 40);
  std::vector<HttpCompletion> done;
  while (http.in_flight() > 0)
    for (auto& x : http.poll(1.0)) done.push_back(std::move(x));
  REQUIRE(done.size() == 40);
  for (const auto& d : done) {
    CHECK(d.response.status == 200);
    REQUIRE(d.response.header("x-request-id"));
    CHECK(d.response.header("x-request-id")->rfind("req_fake_", 0) == 0);
  }
  CHECK(server.stats().connections < 40 + 1);

  http.submit(99, HttpRequest{"http://127.0.0.1:1/v1/chat/completions", {}, "{}", 5, 2});
  std::vector<HttpCompletion> refused;
  while (refused.empty()) refused = http.poll(1.0);
  CHECK(refused[0].response.error == TransportError::connect);
  http.submit(100, HttpRequest{"notascheme://x", {}, "{}", 5, 2});
  std::vector<HttpCompletion> bad;
  while (bad.empty()) bad = http.poll(1.0);
  CHECK(bad[0].response.error == TransportError::bad_url);
}

TEST_CASE("e2e: every scripted fault through the real client") {
  E2E e;
  e.options.timeouts.total_s = 0.5;  // the slow answer (3 s) must time out once
  struct Case {
    const char* directive;
    bool anthropic;
    const char* status;
    const char* final_cause;
    std::size_t attempts;
    const char* first_cause;
  };
  const Case cases[] = {
      {"fail=429 ra=1 times=1", false, "done", "ok", 2, "rate_limited"},
      {"fail=429 ra_ms=250 times=2", false, "done", "ok", 3, "rate_limited"},
      {"fail=429long times=1", false, "done", "ok", 2, "rate_limited"},  // a 300 s provider pause
      {"fail=500html times=1", false, "done", "ok", 2, "http_500"},
      {"fail=500noretry", false, "failed", "http_500", 1, "http_500"},
      {"fail=503 times=2", false, "done", "ok", 3, "http_503"},
      {"fail=529 times=1", true, "done", "ok", 2, "overloaded"},
      {"fail=408 times=1", false, "done", "ok", 2, "http_408"},
      {"fail=409 times=1", true, "done", "ok", 2, "http_409"},
      {"fail=reset times=1", false, "done", "ok", 2, "connection_reset"},
      {"fail=truncated times=1", true, "done", "ok", 2, "connection_reset"},
      {"fail=malformed times=1", false, "done", "ok", 2, "malformed_response"},
      {"fail=slow slow=3000 times=1", false, "done", "ok", 2, "timeout"},
      {"fail=400", false, "failed", "invalid_request", 1, "invalid_request"},
      {"fail=404", true, "failed", "not_found", 1, "not_found"},
      {"fail=arrayerr times=1", false, "done", "ok", 2, "rate_limited"},
      {"fail=flaterr", false, "failed", "invalid_request", 1, "invalid_request"},
      {"fail=blank", false, "done", "ok", 1, "ok"},
      {"fail=length", false, "done", "ok", 1, "ok"},
      {"fail=length", true, "done", "ok", 1, "ok"},
  };
  std::vector<ModelCall> calls;
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    std::string prompt = "case " + std::to_string(i) + " [[fake " + cases[i].directive + "]]";
    calls.push_back(cases[i].anthropic ? e.claude("c" + std::to_string(i), prompt)
                                       : e.openai("c" + std::to_string(i), prompt));
  }
  auto s = e.run(calls);
  CHECK(s.total == std::size(cases));
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    const Case& c = cases[i];
    CAPTURE(c.directive);
    auto a = e.store->answer("c" + std::to_string(i));
    REQUIRE(a);
    CHECK(a->status == c.status);
    CHECK(a->cause == c.final_cause);
    auto at = e.store->attempts(a->hash);
    CHECK(at.size() == c.attempts);
    REQUIRE(!at.empty());
    CHECK(at[0].cause == c.first_cause);
    CHECK(e.server.received_with("case " + std::to_string(i) + " ") == c.attempts);
  }
  auto ra = e.store->attempts("c0");
  CHECK(ra[0].retry_delay_s == doctest::Approx(1.0));  // retry-after: 1
  auto ms = e.store->attempts("c1");
  CHECK(ms[0].retry_delay_s == doctest::Approx(0.25));  // retry-after-ms: 250
  CHECK(ms[1].retry_delay_s == doctest::Approx(0.25));
  auto len = e.store->answer("c18");
  CHECK(len->truncated);
  CHECK(len->finish_reason == "length");
  CHECK(e.store->answer("c19")->finish_reason == "max_tokens");
  CHECK(e.store->answer("c19")->provider_request_id.rfind("req_fake_", 0) == 0);  // request-id header
  CHECK(e.store->answer("c19")->returned_model == "claude-sonnet-4-5-20990101");
  CHECK(e.store->answer("c19")->truncated);
  auto ok = e.store->answer("c17");
  CHECK(ok->returned_model == "gpt-4.1-mini-2099-01-01");
  CHECK(ok->system_fingerprint == "fp_fake");
  CHECK(ok->provider_request_id.rfind("req_fake_", 0) == 0);
  CHECK(ok->input_tokens > 0);
  CHECK(ok->output_tokens == 12);
  CHECK(ok->text.rfind("echo: case 17", 0) == 0);
  CHECK(ok->ended_at >= ok->started_at);
}

TEST_CASE("e2e: quota stops that provider only; the others finish") {
  E2E e;
  e.options.provider_limits["openai"] = {1, 0, 0};
  std::vector<ModelCall> calls;
  for (int i = 0; i < 6; ++i) calls.push_back(e.openai("o" + std::to_string(i), "o" + std::to_string(i) + " [[fake fail=quota]]"));
  for (int i = 0; i < 6; ++i) calls.push_back(e.claude("a" + std::to_string(i), "a" + std::to_string(i)));
  auto s = e.run(calls);
  CHECK(s.failed_by_cause.at("insufficient_quota") == 1);
  CHECK(s.not_sent.at("provider_stopped:openai") == 5);
  CHECK(s.stored == 6);
  CHECK(e.server.received_with("[[fake fail=quota]]") == 1);
  REQUIRE(!e.logs.empty());
  CHECK(e.logs.back().find("provider 'openai' stopped (insufficient_quota)") != std::string::npos);
}

TEST_CASE("e2e: content addressing: a second run sends nothing; failed ones are resent") {
  E2E e;
  std::vector<ModelCall> calls;
  for (int i = 0; i < 10; ++i) calls.push_back(e.openai("h" + std::to_string(i), "p" + std::to_string(i)));
  calls.push_back(e.openai("bad", "bad [[fake fail=400 times=1]]"));
  auto s1 = e.run(calls);
  CHECK(s1.stored == 10);
  CHECK(s1.failed == 1);
  auto before = e.server.stats().requests;
  auto s2 = e.run(calls);
  CHECK(s2.skipped == 10);
  CHECK(s2.sent == 1);  // only the failed one
  CHECK(e.server.stats().requests == before + 1);
  CHECK(e.store->status({"bad"}).done == 1);
}

TEST_CASE("e2e: an enforced RPM limit: 429s are retried; pacing avoids them") {
  fake::FakeServerOptions o;
  o.rpm_limit = 5;
  o.rpm_window_s = 1;  // 5 requests per second
  E2E e(o);
  std::vector<ModelCall> calls;
  for (int i = 0; i < 12; ++i) calls.push_back(e.openai("r" + std::to_string(i), "r" + std::to_string(i)));
  SystemClock real;  // the server's window is real time
  auto s = e.run(calls, &real);
  CHECK(s.stored == 12);
  CHECK(e.server.stats().rate_limited > 0);

  fake::FakeServerOptions o2 = o;
  E2E paced(o2);
  paced.options.provider_limits["openai"] = {8, 240, 0};  // 4 per second, under the limit
  std::vector<ModelCall> calls2;
  for (int i = 0; i < 6; ++i) calls2.push_back(paced.openai("p" + std::to_string(i), "p" + std::to_string(i)));
  auto s2 = paced.run(calls2, &real);
  CHECK(s2.stored == 6);
  CHECK(paced.server.stats().rate_limited == 0);
}

TEST_CASE("e2e: paced at exactly a declared 1,200 a minute, a server counting 200 per 10 s sends no 429") {
  fake::FakeServerOptions o;
  o.rpm_limit = 200;
  o.rpm_window_s = 10;
  E2E e(o);
  e.options.provider_limits["openai"] = {16, 1200, 0};
  std::vector<ModelCall> calls;
  for (int i = 0; i < 230; ++i) calls.push_back(e.openai("w" + std::to_string(i), "w" + std::to_string(i)));
  SystemClock real;  // the server's window is real time
  auto s = e.run(calls, &real);
  CHECK(s.stored == 230);
  CHECK(e.server.stats().rate_limited == 0);
}

TEST_CASE("e2e: cancellation stores every answer that was in flight") {
  fake::FakeServerOptions o;
  o.latency_s = 0.3;
  E2E e(o);
  e.options.provider_limits["openai"] = {4, 0, 0};
  std::vector<ModelCall> calls;
  for (int i = 0; i < 40; ++i) calls.push_back(e.openai("k" + std::to_string(i), "k" + std::to_string(i)));
  std::thread sigint([&] {
    while (e.server.stats().requests < 4) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    e.cancel = true;  // what the SIGINT handler does
  });
  auto s = e.run(calls);
  sigint.join();
  CHECK(s.cancelled);
  CHECK(s.stored >= 4);
  CHECK(s.stored < 40);
  CHECK(s.stored == e.server.stats().answered);  // nothing answered was lost
  CHECK(s.not_sent.at("cancelled") == 40 - s.stored);
}

TEST_CASE("e2e: the API keys never appear in the store file or the log") {
  E2E e;
  std::vector<ModelCall> calls;
  for (int i = 0; i < 5; ++i) calls.push_back(e.openai("s" + std::to_string(i), "s" + std::to_string(i)));
  calls.push_back(e.openai("e", "e [[fake fail=400]]"));
  calls.push_back(e.claude("c", "c [[fake fail=529 times=1]]"));
  auto s = e.run(calls);
  CHECK(s.stored == 6);
  // Both keys were sent on the wire...
  auto auth = e.server.auth_headers();
  CHECK(std::find(auth.begin(), auth.end(), std::string("Bearer ") + kOpenAiKey) != auth.end());
  CHECK(std::find(auth.begin(), auth.end(), std::string(kAnthropicKey)) != auth.end());
  // ...and never written down: scan the raw database, WAL and shared-memory files.
  e.store.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::string bytes = read_file(e.dir.path / (std::string("store.sqlite") + suffix));
    CHECK(bytes.find(kOpenAiKey) == std::string::npos);
    CHECK(bytes.find(kAnthropicKey) == std::string::npos);
  }
  for (const auto& l : e.logs) {
    CHECK(l.find(kOpenAiKey) == std::string::npos);
    CHECK(l.find(kAnthropicKey) == std::string::npos);
  }
}

TEST_CASE("e2e: a wrong key stops the provider with a clear authentication message") {
  E2E e;
  e.env.set("OPENAI_API_KEY", "sk-wrong");
  std::vector<ModelCall> calls;
  for (int i = 0; i < 3; ++i) calls.push_back(e.openai("w" + std::to_string(i), "w" + std::to_string(i)));
  e.options.provider_limits["openai"] = {1, 0, 0};
  auto s = e.run(calls);
  CHECK(s.failed_by_cause.at("authentication") == 1);
  CHECK(s.not_sent.at("provider_stopped:openai") == 2);
  CHECK(s.messages.at(0).find("Incorrect API key") != std::string::npos);
}

TEST_CASE("e2e: <PROVIDER>_BASE_URL overrides the call's base URL") {
  E2E e;
  ModelCall c = make_call("u", "u", "openai", WireProtocol::openai_chat, "http://127.0.0.1:1/nowhere", "OPENAI_API_KEY");
  e.env.set("OPENAI_BASE_URL", e.server.base_url());
  auto s = e.run({c});
  CHECK(s.stored == 1);
}
