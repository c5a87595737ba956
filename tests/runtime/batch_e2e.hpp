// batch_e2e.hpp: whole runs through the batch APIs, in process: the real libcurl client,
// the fake provider's batch APIs and a store in a temporary folder.
#pragma once

#include <doctest/doctest.h>

#include "fake_server.hpp"
#include "helpers.hpp"
#include "runtime/http/curl_multi_client.hpp"
#include "runtime/providers/batch_wire.hpp"
#include "runtime/providers/environment.hpp"
#include "runtime/scheduler/run_plan.hpp"
#include "runtime/scheduler/scheduler.hpp"
#include "runtime/store/batch_store.hpp"

namespace mirac::test {

constexpr const char* kOpenAiKey = "sk-batch-OPENAI-1a2b3c";
constexpr const char* kAnthropicKey = "sk-ant-batch-ANTHROPIC-4d5e6f";

struct BatchE2E {
  TempDir dir;
  fake::FakeServer server;
  std::unique_ptr<Store> store;
  SystemClock clock;
  SeededRandom random{7};
  MapEnvironment env{{{"OPENAI_API_KEY", kOpenAiKey}, {"ANTHROPIC_API_KEY", kAnthropicKey}}};
  std::atomic<bool> cancel{false};
  std::vector<std::string> logs;
  SchedulerOptions options;
  std::function<void(const std::string&)> on_log;

  explicit BatchE2E(fake::FakeServerOptions o = {}) : server([&] {
    o.openai_key = kOpenAiKey;
    o.anthropic_key = kAnthropicKey;
    o.max_lifetime_s = 120;
    if (o.batch_delay_s == 0.3) o.batch_delay_s = 0.1;
    return o;
  }()) {
    std::string error;
    REQUIRE_MESSAGE(server.start(error), error);
    store = Store::open(dir.path, error);
    REQUIRE(store);
    options.timeouts.total_s = 10;
    options.batch.poll_s = 0.05;
    options.prices["gpt-4.1-mini"] = {1.0, 4.0};
    options.prices["claude-sonnet-4-5"] = {3.0, 15.0};
  }
  ModelCall call(bool anthropic, const std::string& hash, const std::string& prompt) {
    ModelCall c = anthropic ? make_call(hash, prompt, "anthropic", WireProtocol::anthropic_messages,
                                        "http://127.0.0.1:" + std::to_string(server.port()), "ANTHROPIC_API_KEY",
                                        "claude-sonnet-4-5")
                            : make_call(hash, prompt, "openai", WireProtocol::openai_chat, server.base_url(), "OPENAI_API_KEY");
    c.batch = true;
    return c;
  }
  RunSummary run(const std::vector<ModelCall>& calls) {
    CurlMultiClient http;
    SchedulerContext ctx{clock, random, env, cancel, {}, [this](const std::string& s) {
                           logs.push_back(s);
                           if (on_log) on_log(s);
                         }};
    return execute(calls, *store, http, options, ctx);
  }
  std::unique_ptr<BatchStore> batches() {
    std::string error;
    auto b = BatchStore::open(dir.path, error);
    REQUIRE_MESSAGE(b, error);
    return b;
  }
};

}  // namespace mirac::test
