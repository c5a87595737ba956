// block_send_test.cpp: a phase sent in blocks (runtime/scheduler/block_send.hpp) is one
// phase to the user: every call stored once, one progress line whose counts run across the
// blocks and end once, one summary; after a cancellation nothing more is sent.
#include <doctest/doctest.h>

#include <map>

#include "fake_http.hpp"
#include "runtime/providers/environment.hpp"
#include "runtime/scheduler/block_send.hpp"
#include "runtime/store/journal.hpp"

using namespace mirac;
using namespace mirac::test;

namespace {

struct Phase {
  TempDir dir;
  std::unique_ptr<Store> store;
  std::atomic<bool> cancel{false};
  std::vector<Progress> progress;
  std::vector<std::string> phases;
  SchedulerOptions options;
  MapEnvironment env{{{"OPENAI_API_KEY", "sk-test-secret-123"}}};
  RunHooks hooks;

  Phase() {
    std::string error;
    store = Store::open(dir.path, error);
    REQUIRE(store);
    options.environment = &env;
    hooks.on_progress = [this](const Progress& p) { progress.push_back(p); };
    hooks.on_phase = [this](const std::string& name) { phases.push_back(name); };
  }
};

ModelCall offline_call(int i) {
  return make_call("offline-" + std::to_string(i), "question " + std::to_string(i), "offline",
                   WireProtocol::openai_chat, "offline:", "", "offline-model");
}

}  // namespace

TEST_CASE("block send: ten calls in blocks of three are one phase, every call stored once") {
  Phase f;
  BlockSend sender(*f.store, f.options, f.cancel, f.hooks, "judge j", 3);
  sender.expect(10);
  for (int i = 0; i < 10; ++i) sender.add(offline_call(i));
  sender.add(offline_call(4));  // the same request again: answered already, not sent twice
  const RunSummary s = sender.finish();
  CHECK(f.store->done_hashes().size() == 10);
  CHECK(s.stored == 10);
  CHECK(s.skipped == 1);
  CHECK(s.total == 11);  // four blocks' distinct requests, the repeat among them
  CHECK(f.phases == std::vector<std::string>{"judge j"});
  REQUIRE(!f.progress.empty());
  std::size_t finals = 0, done = 0;
  for (const Progress& p : f.progress) {
    CHECK(p.done >= done);  // the count runs on across blocks, never restarting at 0
    CHECK(p.total >= p.done);
    done = p.done;
    finals += p.final;
  }
  CHECK(finals == 1);
  CHECK(f.progress.back().final);
  CHECK(f.progress.back().done == 11);
  CHECK(f.progress.back().total == 11);
}

TEST_CASE("block send: a phase whose last block is empty still ends its progress line") {
  Phase f;
  BlockSend sender(*f.store, f.options, f.cancel, f.hooks, "judge j", 2);
  for (int i = 0; i < 4; ++i) sender.add(offline_call(i));  // two full blocks, sent as they fill
  const RunSummary s = sender.finish();
  CHECK(s.stored == 4);
  REQUIRE(!f.progress.empty());
  CHECK(f.progress.back().final);
  std::size_t finals = 0;
  for (const Progress& p : f.progress) finals += p.final;
  CHECK(finals == 1);
}

TEST_CASE("block send: after a cancellation no later block is sent, and its calls are counted as not sent") {
  Phase f;
  ManualClock clock;
  FakeHttp http(clock, [](const HttpRequest&, int) { return ok_openai(); }, 0.5);
  f.options.transport = &http;
  f.options.provider_limits["openai"] = {1, 0, 0};  // one at a time
  f.hooks.on_progress = [&f](const Progress& p) {
    f.progress.push_back(p);
    if (p.done >= 1) f.cancel = true;  // the user presses Ctrl-C once an answer is in
  };
  BlockSend sender(*f.store, f.options, f.cancel, f.hooks, "judge j", 3);
  for (int i = 0; i < 9; ++i) sender.add(make_call("h" + std::to_string(i), "q" + std::to_string(i)));
  const RunSummary s = sender.finish();
  CHECK(s.cancelled);
  CHECK(sender.stopped());
  CHECK(http.sends.size() <= 3);  // the first block's at most
  std::size_t not_sent = 0;
  for (const auto& [why, n] : s.not_sent) not_sent += n;
  CHECK(s.not_sent.count("cancelled") == 1);
  CHECK(s.stored + s.failed + not_sent == 9);
}

TEST_CASE("sends_in_batch: which calls go through a batch API") {
  Phase f;
  ModelCall batched = make_call("b0", "q");
  batched.batch = true;
  f.options.provider_batch["openai"] = BatchSettings{};
  CHECK(sends_in_batch(batched, f.options));
  CHECK_FALSE(sends_in_batch(offline_call(0), f.options));
  ModelCall offline_batch = offline_call(1);
  offline_batch.batch = true;
  CHECK_FALSE(sends_in_batch(offline_batch, f.options));  // the offline provider answers at once
}

TEST_CASE("add_summary adds counts, merges causes and keeps the first fatal error") {
  RunSummary a, b;
  a.total = 3, a.stored = 2, a.failed = 1, a.failed_by_cause["timeout"] = 1, a.spend_usd = 0.25;
  b.total = 4, b.stored = 4, b.failed_by_cause["timeout"] = 2, b.not_sent["budget"] = 5, b.spend_usd = 0.5;
  b.fatal_error = "disk full";
  b.messages = {"m"};
  add_summary(a, b);
  CHECK(a.total == 7);
  CHECK(a.stored == 6);
  CHECK(a.failed_by_cause.at("timeout") == 3);
  CHECK(a.not_sent.at("budget") == 5);
  CHECK(a.spend_usd == doctest::Approx(0.75));
  CHECK(a.fatal_error == "disk full");
  CHECK(a.messages == std::vector<std::string>{"m"});
}

TEST_CASE("block send: calls the caller found answered count as skipped, and a phase of only those still reports once") {
  Phase f;
  BlockSend sender(*f.store, f.options, f.cancel, f.hooks, "answers", 3);
  sender.expect(5);
  sender.skip(5);
  const RunSummary s = sender.finish();
  CHECK(s.total == 5);
  CHECK(s.skipped == 5);
  CHECK(s.stored == 0);
  CHECK(f.phases == std::vector<std::string>{"answers"});
  REQUIRE(f.progress.size() == 1);
  CHECK(f.progress.back().final);
  CHECK(f.progress.back().done == 5);
  CHECK(f.progress.back().skipped == 5);
  CHECK(f.progress.back().total == 5);
}

TEST_CASE("block send: skipped calls and sent ones add up on one line") {
  Phase f;
  BlockSend sender(*f.store, f.options, f.cancel, f.hooks, "answers", 2);
  sender.expect(5);
  sender.skip(2);
  for (int i = 0; i < 3; ++i) sender.add(offline_call(i));
  const RunSummary s = sender.finish();
  CHECK(s.total == 5);
  CHECK(s.skipped == 2);
  CHECK(s.stored == 3);
  REQUIRE(!f.progress.empty());
  CHECK(f.progress.back().final);
  CHECK(f.progress.back().done == 5);
  CHECK(f.progress.back().skipped == 2);
  CHECK(f.progress.back().total == 5);
}

TEST_CASE("block send: calls said not answered are looked up after all when an earlier run left a journal") {
  // The journal holds the answer to a call of the second block. The first block's scheduler
  // stores it; the second must find it stored rather than trust the caller and pay again.
  Phase f;
  ManualClock clock;
  FakeHttp http(clock, [](const HttpRequest&, int) { return ok_openai(); }, 0.01);
  f.options.transport = &http;
  f.options.calls_not_answered = true;
  JournalEntry kept;
  kept.answer.hash = "h4";
  kept.answer.status = "done";
  kept.answer.provider = "openai";
  kept.answer.model = "gpt-test";
  kept.answer.text = "kept in the journal";
  kept.answer.cause = "ok";
  kept.answer.attempts = 1;
  kept.attempt.hash = "h4";
  kept.attempt.attempt = 1;
  kept.attempt.outcome = "ok";
  kept.attempt.cause = "ok";
  std::string error;
  REQUIRE(append_journal(journal_path(f.dir.path), {kept}, error));
  BlockSend sender(*f.store, f.options, f.cancel, f.hooks, "answers", 3);
  for (int i = 0; i < 6; ++i) sender.add(make_call("h" + std::to_string(i), "q" + std::to_string(i)));
  const RunSummary s = sender.finish();
  CHECK(http.sends.size() == 5);  // h4 came from the journal
  CHECK(s.skipped == 1);
  CHECK(f.store->done_hashes().size() == 6);
  CHECK(f.store->answer("h4")->text == "kept in the journal");
}
