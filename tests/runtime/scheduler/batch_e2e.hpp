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

/// What a run killed between sending a batch and hearing back leaves in the store.
inline BatchRecord preparing_batch(BatchE2E& e, const std::vector<ModelCall>& calls, const std::string& local_id,
                            std::vector<BatchRequest>& requests, bool older_ids = false) {
  BatchRecord record;
  record.local_id = local_id;
  record.provider = calls[0].provider;
  record.model = calls[0].model;
  record.protocol = calls[0].protocol;
  record.base_url = calls[0].base_url;
  record.key_env = calls[0].key_env;
  record.requests = calls.size();
  record.created_at = record.updated_at = e.clock.wall();
  for (std::size_t i = 0; i < calls.size(); ++i)
    requests.push_back({older_ids ? "r" + std::to_string(i) : batch_custom_id(local_id, i, calls[i].hash), 1, calls[i], ""});
  std::string error;
  REQUIRE_MESSAGE(e.batches()->create(record, requests, error), error);
  return record;
}

/// Creates a batch at the fake provider directly, as an earlier run (or another) did.
inline std::string create_remote(const BatchRecord& record, const std::vector<BatchItem>& items) {
  const bool anthropic = record.protocol == WireProtocol::anthropic_messages;
  BatchEndpoint at{record.protocol, record.base_url, anthropic ? kAnthropicKey : kOpenAiKey};
  CurlMultiClient http;
  auto send = [&](HttpRequest r) {
    http.submit(1, std::move(r));
    std::vector<HttpCompletion> done;
    while (done.empty()) done = http.poll(1);
    REQUIRE(done[0].response.status == 200);
    return done[0].response.body;
  };
  std::string error, body;
  if (anthropic) {
    body = send(anthropic_create_request(at, items));
  } else {
    auto file = openai_file_id(send(openai_upload_request(at, openai_batch_jsonl(items), record.local_id)), error);
    REQUIRE(file);
    body = send(openai_create_request(at, *file, record.local_id));
  }
  auto remote = parse_remote_batch(record.protocol, record.base_url, body, error);
  REQUIRE(remote);
  return remote->id;
}

inline std::vector<BatchItem> items_of(const std::vector<BatchRequest>& requests) {
  std::vector<BatchItem> items;
  for (const auto& r : requests) items.push_back({r.custom_id, build_body(r.call).dump()});
  return items;
}

inline bool logged(const BatchE2E& e, const std::string& text) {
  for (const auto& line : e.logs)
    if (line.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace mirac::test
