// batch_ownership_test.cpp: no request paid twice, no answer stored under another request,
// when the batch APIs' control calls fail ambiguously: a create refused, a create carried
// out and then answered 500, a create carried out and its connection dropped before any
// byte of the answer (which libcurl re-sends by itself on a reused connection), the same
// batch created twice, results that name another batch's requests, and a stored request
// whose id does not match its hash. Both protocols, through the real libcurl client.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "batch_e2e.hpp"

using namespace mirac;
using namespace mirac::test;

namespace {

std::vector<ModelCall> numbered_calls(BatchE2E& e, bool anthropic, const std::string& prefix, int n) {
  std::vector<ModelCall> calls;
  for (int i = 0; i < n; ++i)
    calls.push_back(e.call(anthropic, prefix + std::to_string(i), prefix + " question " + std::to_string(i)));
  return calls;
}

/// Every call has its own answer stored: the fake answers "echo: " + the prompt.
void check_each_answer_is_its_own(BatchE2E& e, const std::vector<ModelCall>& calls) {
  for (const auto& call : calls) {
    CAPTURE(call.hash);
    auto a = e.store->answer(call.hash);
    REQUIRE(a);
    CHECK(a->status == "done");
    CHECK(a->text == "echo: " + call.user);
  }
}

}  // namespace

TEST_CASE("batch custom ids name their batch and their request's hash, in at most 64 characters") {
  const std::string hash(64, 'a');
  const std::string id = batch_custom_id("mb-19a2b3c4d5e-3-0badf00d", 17, hash);
  CHECK(id.size() <= 64);
  CHECK(id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == std::string::npos);
  CHECK(batch_of_custom_id(id) == "mb-19a2b3c4d5e-3-0badf00d");
  CHECK(custom_id_matches_hash(id, hash));
  CHECK_FALSE(custom_id_matches_hash(id, std::string(64, 'b')));
  CHECK_FALSE(custom_id_matches_hash(id, "aaaa"));
  // The older form names no batch and carries no hash.
  CHECK(batch_of_custom_id("r0") == "");
  CHECK(custom_id_matches_hash("r0", hash));
  CHECK(batch_of_custom_id("mb-1_x_aaaa") == "");
  CHECK(batch_of_custom_id("_1_aaaa") == "");
}

TEST_CASE("batch create calls that fail ambiguously: nothing paid twice, nothing stored under another request") {
  // Each script meets the first create calls in turn; the run's batches are of 4 requests.
  const std::vector<std::vector<std::string>> scripts = {
      {"500", "500after"},          // refused, then carried out and answered 500 (the case)
      {"ok", "drop"},               // the second create, on a reused connection, dropped after it was made
      {"500after", "drop", "500"},  // all three kinds in one run
      {"drop", "drop", "500after", "500after"},
  };
  for (bool anthropic : {false, true})
    for (const auto& script : scripts) {
      CAPTURE(anthropic);
      const std::string faults = fmt::format("{}", fmt::join(script, ","));
      CAPTURE(faults);
      fake::FakeServerOptions o;
      o.batch_create_faults = script;
      BatchE2E e(o);
      e.options.batch.max_requests = 4;
      auto calls = numbered_calls(e, anthropic, "q", 12);
      auto s = e.run(calls);
      CHECK(s.fatal_error == "");
      CHECK(s.stored == 12);
      CHECK(s.failed == 0);
      CHECK(s.batches_open == 0);
      e.server.end_every_batch();  // a batch made and never heard of runs all the same
      const auto stats = e.server.stats();
      CHECK(stats.paid_twice == 0);
      CHECK(stats.batch_requests_run == 12);
      check_each_answer_is_its_own(e, calls);
      // The creates that got no clear answer were looked for before anything was sent again.
      CHECK(logged(e, "found at the provider"));
      CHECK(e.run(calls).skipped == 12);
      CHECK(e.server.stats().batch_requests_run == 12);
    }
}

TEST_CASE("batch: the same batch made twice at OpenAI is taken once; the duplicate is cancelled, never stored") {
  fake::FakeServerOptions o;
  o.batch_delay_s = 2;  // the duplicate must still be running when the run finds it
  BatchE2E e(o);
  auto calls = numbered_calls(e, false, "d", 5);
  std::vector<BatchRequest> requests;
  BatchRecord record = preparing_batch(e, calls, "mb-twice", requests);
  create_remote(record, items_of(requests));
  create_remote(record, items_of(requests));
  auto s = e.run(calls);
  CHECK(s.fatal_error == "");
  CHECK(s.stored == 5);
  CHECK(s.batched == 0);
  e.server.end_every_batch();
  const auto stats = e.server.stats();
  CHECK(stats.batches_created == 2);
  CHECK(stats.batch_requests_run == 5);  // the duplicate's five were cancelled before they ran
  CHECK(stats.paid_twice == 0);
  check_each_answer_is_its_own(e, calls);
  bool said = false;
  for (const auto& m : s.messages) said = said || m.find("is a duplicate, cancelled") != std::string::npos;
  CHECK(said);
}

TEST_CASE("batch: at Anthropic, a batch of the same size made by someone else is never taken for ours") {
  BatchE2E e;
  auto calls = numbered_calls(e, true, "a", 4);
  std::vector<BatchRequest> requests;
  preparing_batch(e, calls, "mb-mine", requests);
  // Another store's batch: same size, made just after ours was recorded, other prompts.
  auto others = numbered_calls(e, true, "other", 4);
  std::vector<BatchRequest> foreign;
  for (std::size_t i = 0; i < others.size(); ++i)
    foreign.push_back({batch_custom_id("mb-theirs", i, others[i].hash), 1, others[i], ""});
  BatchRecord theirs;
  theirs.protocol = WireProtocol::anthropic_messages;
  theirs.base_url = calls[0].base_url;
  create_remote(theirs, items_of(foreign));
  auto s = e.run(calls);
  CHECK(s.fatal_error == "");
  CHECK(s.stored == 4);
  check_each_answer_is_its_own(e, calls);
  CHECK(logged(e, "is not sent again until"));
  e.server.end_every_batch();
  // Ours was never made: it was sent once the other's results proved that one theirs.
  CHECK(e.server.stats().batches_created == 2);
  CHECK(e.server.stats().batch_requests_run == 8);
  CHECK(e.server.stats().paid_twice == 0);
}

TEST_CASE("batch: results that name requests the batch never held are stored nowhere; the provider stops") {
  for (bool anthropic : {false, true}) {
    CAPTURE(anthropic);
    BatchE2E e;
    auto calls = numbered_calls(e, anthropic, "w", 3);
    std::vector<BatchRequest> requests;
    BatchRecord record = preparing_batch(e, calls, "mb-wrong", requests);
    // The store says the batch is a remote one whose requests are another batch's.
    auto others = numbered_calls(e, anthropic, "z", 3);
    std::vector<BatchRequest> foreign;
    for (std::size_t i = 0; i < others.size(); ++i)
      foreign.push_back({batch_custom_id("mb-else", i, others[i].hash), 1, others[i], ""});
    record.remote_id = create_remote(record, items_of(foreign));
    record.state = batch_state::submitted;
    std::string error;
    REQUIRE(e.batches()->update(record, error));
    auto s = e.run(calls);
    CHECK(s.stored == 0);
    for (const auto& call : calls) CHECK_FALSE(e.store->answer(call.hash));
    for (const auto& call : others) CHECK_FALSE(e.store->answer(call.hash));
    bool said = false;
    for (const auto& m : s.messages) said = said || m.find("never held") != std::string::npos;
    CHECK(said);
    auto open = e.batches()->batches(true);
    REQUIRE(open.size() == 1);
    CHECK(open[0].state == batch_state::preparing);  // looked for again by the next run, by proof
    CHECK(open[0].remote_id == "");
  }
}

TEST_CASE("batch: a stored request whose custom id does not carry its hash is not given that answer") {
  BatchE2E e;
  auto calls = numbered_calls(e, false, "h", 2);
  // A store whose first row holds one request under an id made for the other's hash.
  BatchRecord record;
  record.local_id = "mb-rows";
  record.provider = calls[0].provider;
  record.model = calls[0].model;
  record.protocol = calls[0].protocol;
  record.base_url = calls[0].base_url;
  record.key_env = calls[0].key_env;
  record.requests = 2;
  record.created_at = record.updated_at = e.clock.wall();
  std::vector<BatchRequest> rows = {{batch_custom_id("mb-rows", 0, calls[1].hash), 1, calls[0], ""},
                                    {batch_custom_id("mb-rows", 1, calls[1].hash), 1, calls[1], ""}};
  std::string error;
  REQUIRE(e.batches()->create(record, rows, error));
  record.remote_id = create_remote(record, items_of(rows));
  record.state = batch_state::submitted;
  REQUIRE(e.batches()->update(record, error));
  auto s = e.run(calls);
  CHECK(s.failed_by_cause["batch_mismatch"] == 1);
  auto mismatched = e.store->answer(calls[0].hash);
  REQUIRE(mismatched);
  CHECK(mismatched->status == "failed");
  CHECK(mismatched->text == "");
  auto good = e.store->answer(calls[1].hash);
  REQUIRE(good);
  CHECK(good->status == "done");
  CHECK(good->text == "echo: " + calls[1].user);
}

TEST_CASE("batch: an Anthropic batch recorded by an older mirac, whose ids name no batch, is not guessed at") {
  BatchE2E e;
  auto calls = numbered_calls(e, true, "o", 3);
  std::vector<BatchRequest> requests;
  BatchRecord record = preparing_batch(e, calls, "mb-old", requests, /*older_ids=*/true);
  create_remote(record, items_of(requests));
  auto s = e.run(calls);
  CHECK(s.stored == 0);
  CHECK(e.server.stats().batches_created == 1);
  bool said = false;
  for (const auto& m : s.messages) said = said || m.find("older mirac") != std::string::npos;
  CHECK(said);
}
