// codec_test.cpp: request bodies, response parsing and error classification per protocol.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "runtime/providers/environment.hpp"
#include "runtime/providers/provider.hpp"

using namespace mirac;
using Json = nlohmann::json;

namespace {

HttpResponse response(long status, std::string body, std::vector<HttpHeader> headers = {}) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.headers = std::move(headers);
  return r;
}

}  // namespace

TEST_CASE("openai body: system message, max_completion_tokens, seed, extra merged") {
  ModelCall c = test::make_call("h", "Is aspirin safe?");
  c.system = std::make_shared<const std::string>("You are a doctor.");
  c.params = {{"temperature", 0.2}, {"max_tokens", 300}, {"seed", 7},
              {"extra", {{"response_format", {{"type", "json_object"}}}, {"seed", 8}}}};
  std::vector<std::string> notes;
  Json b = build_body(c, &notes);
  CHECK(b["model"] == "gpt-4.1-mini");
  REQUIRE(b["messages"].size() == 2);
  CHECK(b["messages"][0] == Json{{"role", "system"}, {"content", "You are a doctor."}});
  CHECK(b["messages"][1] == Json{{"role", "user"}, {"content", "Is aspirin safe?"}});
  CHECK(b["max_completion_tokens"] == 300);
  CHECK_FALSE(b.contains("max_tokens"));
  CHECK(b["temperature"] == 0.2);
  CHECK(b["seed"] == 8);  // extra is verbatim and wins
  CHECK(b["response_format"]["type"] == "json_object");
  CHECK(notes.empty());
}

TEST_CASE("openai reasoning models: temperature and top_p are left out, with a note") {
  for (const char* model : {"gpt-5.4", "o3", "o4-mini", "gpt-5-mini", "gpt-5.1"}) {
    ModelCall c = test::make_call("h", "q");
    c.model = model;
    c.params = {{"temperature", 0.9}, {"top_p", 0.5}, {"max_tokens", 100}};
    std::vector<std::string> notes;
    Json b = build_body(c, &notes);
    CHECK_FALSE(b.contains("temperature"));
    CHECK_FALSE(b.contains("top_p"));
    CHECK(b["max_completion_tokens"] == 100);
    CHECK(notes.size() == 2);
  }
  ModelCall chat = test::make_call("h", "q");
  chat.model = "gpt-5-chat-latest";
  CHECK(build_body(chat)["temperature"] == 0);
  ModelCall none = test::make_call("h", "q");
  none.model = "gpt-5.1";
  none.params["extra"] = {{"reasoning_effort", "none"}};
  CHECK(build_body(none)["temperature"] == 0);
}

TEST_CASE("openai-compatible providers keep max_tokens") {
  ModelCall c = test::make_call("h", "q", "deepseek");
  c.model = "deepseek-v4-flash";
  Json b = build_body(c);
  CHECK(b["max_tokens"] == 64);
  CHECK_FALSE(b.contains("max_completion_tokens"));
}

TEST_CASE("anthropic body: top-level system, required max_tokens, no seed, no top_p with temperature") {
  ModelCall c = test::make_call("h", "q", "anthropic", WireProtocol::anthropic_messages,
                                "https://api.anthropic.com", "ANTHROPIC_API_KEY", "claude-sonnet-4-5");
  c.system = std::make_shared<const std::string>("sys");
  c.params = {{"temperature", 0.3}, {"top_p", 0.9}, {"seed", 1}};
  std::vector<std::string> notes;
  Json b = build_body(c, &notes);
  CHECK(b["system"] == "sys");
  CHECK(b["messages"] == Json::array({{{"role", "user"}, {"content", "q"}}}));
  CHECK(b["max_tokens"] == 4096);
  CHECK(b["temperature"] == 0.3);
  CHECK_FALSE(b.contains("top_p"));
  CHECK_FALSE(b.contains("seed"));
  CHECK(notes.size() == 3);
  c.model = "claude-opus-4-7";
  CHECK_FALSE(build_body(c).contains("temperature"));
  CHECK(build_body(c)["top_p"] == 0.9);
}

TEST_CASE("endpoints and auth headers") {
  CHECK(endpoint_url(WireProtocol::openai_chat, "https://api.openai.com/v1") ==
        "https://api.openai.com/v1/chat/completions");
  CHECK(endpoint_url(WireProtocol::openai_chat, "https://generativelanguage.googleapis.com/v1beta/openai/") ==
        "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions");
  CHECK(endpoint_url(WireProtocol::anthropic_messages, "https://api.anthropic.com") ==
        "https://api.anthropic.com/v1/messages");
  CHECK(endpoint_url(WireProtocol::anthropic_messages, "http://127.0.0.1:5/v1/") ==
        "http://127.0.0.1:5/v1/messages");
  ModelCall c = test::make_call("h", "q");
  auto r = build_request(c, c.base_url, "sk-secret");
  CHECK(r.headers.at(1) == HttpHeader{"Authorization", "Bearer sk-secret"});
  CHECK(r.body.find("sk-secret") == std::string::npos);
  c.protocol = WireProtocol::anthropic_messages;
  r = build_request(c, c.base_url, "sk-ant");
  CHECK(r.headers.at(1) == HttpHeader{"x-api-key", "sk-ant"});
  CHECK(r.headers.at(2) == HttpHeader{"anthropic-version", "2023-06-01"});
  CHECK(build_request(c, c.base_url, "").headers.size() == 2);  // keyless: no auth header
}

TEST_CASE("openai answer: text, finish reason, model, fingerprint, usage, request id") {
  auto r = response(200, R"({"id":"chatcmpl-1","model":"gpt-4.1-2025-04-14","system_fingerprint":"fp_1",
    "choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"length"}],
    "usage":{"prompt_tokens":24,"completion_tokens":8}})",
                    {{"x-request-id", "req_abc"}});
  auto in = interpret(WireProtocol::openai_chat, r, 0);
  CHECK(in.verdict == Verdict::ok);
  CHECK(in.answer.text == "hi");
  CHECK(in.answer.finish_reason == "length");
  CHECK(in.answer.truncated);
  CHECK(in.answer.returned_model == "gpt-4.1-2025-04-14");
  CHECK(in.answer.system_fingerprint == "fp_1");
  CHECK(in.answer.request_id == "req_abc");
  CHECK(in.answer.input_tokens == 24);
  CHECK(in.answer.output_tokens == 8);
  // DeepSeek keep-alive: blank lines before the JSON.
  r.body = "\n\n  \n" + r.body;
  CHECK(interpret(WireProtocol::openai_chat, r, 0).verdict == Verdict::ok);
  auto refusal = response(200, R"({"choices":[{"message":{"content":null,"refusal":"no"},"finish_reason":"stop"}]})");
  CHECK(interpret(WireProtocol::openai_chat, refusal, 0).answer.refusal);
}

TEST_CASE("anthropic answer: text blocks, max_tokens truncation, cache tokens counted") {
  auto r = response(200, R"({"id":"msg_1","type":"message","model":"claude-x","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],
    "stop_reason":"max_tokens","usage":{"input_tokens":25,"output_tokens":14,"cache_creation_input_tokens":5,"cache_read_input_tokens":3}})",
                    {{"request-id", "req_011"}});
  auto in = interpret(WireProtocol::anthropic_messages, r, 0);
  CHECK(in.verdict == Verdict::ok);
  CHECK(in.answer.text == "ab");
  CHECK(in.answer.truncated);
  CHECK(in.answer.input_tokens == 33);
  CHECK(in.answer.output_tokens == 14);
  CHECK(in.answer.request_id == "req_011");
}

TEST_CASE("error classes") {
  struct Case {
    WireProtocol p;
    long status;
    const char* body;
    Verdict verdict;
    const char* cause;
  };
  const auto oa = WireProtocol::openai_chat;
  const auto an = WireProtocol::anthropic_messages;
  const Case cases[] = {
      {oa, 429, R"({"error":{"message":"Rate limit","type":"requests","code":"rate_limit_exceeded"}})", Verdict::retry, "rate_limited"},
      {oa, 429, R"({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}})", Verdict::fatal_provider, "insufficient_quota"},
      {oa, 402, R"({"error":{"message":"Insufficient Balance"}})", Verdict::fatal_provider, "payment_required"},
      {oa, 400, R"({"error":{"code":"Arrearage","message":"Access denied, please make sure your account is in good standing."}})", Verdict::fatal_provider, "Arrearage"},
      {an, 429, R"({"type":"error","error":{"type":"rate_limit_error","message":"limit","details":{"error_code":"enforced_spend_limit_reached"}}})", Verdict::fatal_provider, "enforced_spend_limit_reached"},
      {an, 400, R"({"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API."}})", Verdict::fatal_provider, "billing_error"},
      {oa, 400, R"({"error":{"message":"Unsupported parameter: 'max_tokens'","type":"invalid_request_error","code":"unsupported_parameter"}})", Verdict::fatal_request, "invalid_request"},
      {oa, 401, R"({"error":{"message":"Incorrect API key provided"}})", Verdict::fatal_provider, "authentication"},
      {oa, 404, R"({"error":{"message":"model_not_found"}})", Verdict::fatal_request, "not_found"},
      {an, 529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})", Verdict::retry, "overloaded"},
      {oa, 500, "<html>Bad Gateway</html>", Verdict::retry, "http_500"},
      {oa, 503, "", Verdict::retry, "http_503"},
      {oa, 408, "", Verdict::retry, "http_408"},
      {oa, 409, "", Verdict::retry, "http_409"},
      {oa, 429, R"([{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}])", Verdict::retry, "rate_limited"},
      {oa, 400, R"({"object":"error","message":"bad","type":"BadRequestError","param":null,"code":400})", Verdict::fatal_request, "invalid_request"},
      {oa, 200, R"({"choices":[)", Verdict::retry, "malformed_response"},
      {oa, 200, R"({"unexpected":true})", Verdict::retry, "malformed_response"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.status);
    CAPTURE(c.body);
    auto in = interpret(c.p, response(c.status, c.body), 0);
    CHECK(in.verdict == c.verdict);
    CHECK(in.cause == c.cause);
  }
  auto noretry = response(500, "{}", {{"x-should-retry", "false"}});
  CHECK(interpret(oa, noretry, 0).verdict == Verdict::fatal_request);
  auto forced = response(400, "{}", {{"x-should-retry", "true"}});
  CHECK(interpret(oa, forced, 0).verdict == Verdict::retry);
  auto flat = interpret(oa, response(400, R"({"object":"error","message":"bad thing"})"), 0);
  CHECK(flat.message == "HTTP 400: bad thing");
}

TEST_CASE("transport errors") {
  HttpResponse r;
  for (auto e : {TransportError::connect, TransportError::timeout, TransportError::reset, TransportError::tls}) {
    r.error = e;
    CHECK(interpret(WireProtocol::openai_chat, r, 0).verdict == Verdict::retry);
  }
  r.error = TransportError::timeout;
  CHECK(interpret(WireProtocol::openai_chat, r, 0).cause == "timeout");
  r.error = TransportError::bad_url;
  CHECK(interpret(WireProtocol::openai_chat, r, 0).verdict == Verdict::fatal_provider);
}

TEST_CASE("retry-after: milliseconds first, then seconds, then an HTTP date") {
  CHECK(*parse_retry_after(response(429, "", {{"retry-after-ms", "250"}, {"retry-after", "9"}}), 0) == doctest::Approx(0.25));
  CHECK(*parse_retry_after(response(429, "", {{"retry-after", "1.5"}}), 0) == doctest::Approx(1.5));
  // Wed, 21 Oct 2015 07:28:00 GMT = 1445412480
  CHECK(*parse_retry_after(response(429, "", {{"retry-after", "Wed, 21 Oct 2015 07:28:00 GMT"}}), 1445412470.0) ==
        doctest::Approx(10));
  CHECK_FALSE(parse_retry_after(response(429, ""), 0).has_value());
  CHECK_FALSE(parse_retry_after(response(429, "", {{"retry-after", "soon"}}), 0).has_value());
}

TEST_CASE("rate-limit headers of both providers") {
  CHECK(*parse_duration("1s") == doctest::Approx(1));
  CHECK(*parse_duration("6m0s") == doctest::Approx(360));
  CHECK(*parse_duration("20ms") == doctest::Approx(0.02));
  CHECK(*parse_duration("1h2m3s") == doctest::Approx(3723));
  CHECK(*parse_duration("2m59.56s") == doctest::Approx(179.56));
  CHECK_FALSE(parse_duration("soon").has_value());
  auto oa = parse_rate_limits(response(200, "", {{"x-ratelimit-limit-requests", "60"},
                                                  {"x-ratelimit-remaining-requests", "0"},
                                                  {"x-ratelimit-reset-requests", "1.5s"},
                                                  {"x-ratelimit-remaining-tokens", "149984"},
                                                  {"x-ratelimit-reset-tokens", "6m0s"}}), 0);
  CHECK(*oa.limit_requests == 60);
  CHECK(*oa.remaining_requests == 0);
  CHECK(*oa.reset_requests_s == doctest::Approx(1.5));
  CHECK(*oa.remaining_tokens == 149984);
  CHECK(*oa.reset_tokens_s == doctest::Approx(360));
  double now = *parse_rfc3339("2025-08-21T12:40:49Z");
  auto an = parse_rate_limits(response(200, "", {{"anthropic-ratelimit-requests-limit", "1000"},
                                                  {"anthropic-ratelimit-requests-remaining", "999"},
                                                  {"anthropic-ratelimit-requests-reset", "2025-08-21T12:40:59Z"},
                                                  {"anthropic-ratelimit-tokens-remaining", "96000"},
                                                  {"anthropic-ratelimit-tokens-reset", "2025-08-21T12:41:00.5Z"}}), now);
  CHECK(*an.remaining_requests == 999);
  CHECK(*an.reset_requests_s == doctest::Approx(10));
  CHECK(*an.reset_tokens_s == doctest::Approx(11.5));
}

TEST_CASE("environment: base URL overrides and every missing key reported at once") {
  MapEnvironment env({{"OPENAI_BASE_URL", "http://127.0.0.1:1/v1"}, {"GROQ_API_KEY", "gsk"}});
  ModelCall c = test::make_call("h", "q");
  CHECK(effective_base_url(c, env) == "http://127.0.0.1:1/v1");
  CHECK(base_url_variable("my-local") == "MY_LOCAL_BASE_URL");
  std::vector<ModelCall> calls = {
      test::make_call("1", "q"), test::make_call("2", "q"),
      test::make_call("3", "q", "anthropic", WireProtocol::anthropic_messages, "u", "ANTHROPIC_API_KEY"),
      test::make_call("4", "q", "groq", WireProtocol::openai_chat, "u", "GROQ_API_KEY"),
      test::make_call("5", "q", "local", WireProtocol::openai_chat, "u", "")};
  auto missing = missing_keys(calls, env);
  REQUIRE(missing.size() == 2);
  CHECK(missing[0].key_env == "ANTHROPIC_API_KEY");
  CHECK(missing[1].key_env == "OPENAI_API_KEY");
  CHECK(missing[1].calls == 2);
  std::string text = describe_missing_keys(missing);
  CHECK(text.find("2 API keys are missing") != std::string::npos);
  CHECK(text.find("OPENAI_API_KEY (needed by openai for 2 requests)") != std::string::npos);
}
