// full_store_test.cpp: the scheduler on a store that fills up (PRAGMA max_page_count, as
// a quota or a full disk would): sending stops at the first failed write, every answer
// received is either committed or kept in the journal, the summary counts only what was
// committed, a run on a full store sends nothing, and the next run imports the journal.
#include <doctest/doctest.h>

#include <sqlite3.h>

#include <set>

#include "fake_http.hpp"
#include "runtime/scheduler/scheduler.hpp"
#include "runtime/store/journal.hpp"

using namespace mirac;
using namespace mirac::test;

namespace {

struct Run {
  ManualClock clock;
  FixedRandom random{0.5};
  MapEnvironment env{{{"OPENAI_API_KEY", "sk-test-secret-123"}}};
  std::atomic<bool> cancel{false};
  SchedulerOptions options;
  RunSummary go(const std::vector<ModelCall>& calls, Store& store, HttpClient& http) {
    SchedulerContext ctx{clock, random, env, cancel};
    return execute(calls, store, http, options, ctx);
  }
};

std::vector<ModelCall> calls(int n) {
  std::vector<ModelCall> out;
  for (int i = 0; i < n; ++i) out.push_back(make_call("h" + std::to_string(i), "q" + std::to_string(i)));
  return out;
}

std::vector<std::string> hashes(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("h" + std::to_string(i));
  return out;
}

long long page_count(const std::filesystem::path& db_file) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(db_file.c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA page_count", -1, &q, nullptr);
  long long n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
  sqlite3_finalize(q);
  sqlite3_close(db);
  return n;
}

// Answers of a few KB each, so that a handful of them fill the store's spare pages.
HttpResponse long_answer(const HttpRequest&, int) { return ok_openai(std::string(3000, 'x')); }

}  // namespace

TEST_CASE("full store: no answer received is lost, the summary is the store, the journal comes back") {
  TempDir dir;
  std::string error;
  const int total = 40;
  std::set<std::string> sent_bodies;
  std::size_t sends = 0;
  {
    auto store = Store::open(dir.path, error);
    REQUIRE(store);
    // Room for the write check and a few answers, not for forty.
    REQUIRE(store->cap_pages(page_count(store->path()) + 12));
    Run run;
    run.options.provider_limits["openai"] = {1, 0, 0};
    FakeHttp http(run.clock, long_answer);
    RunSummary s = run.go(calls(total), *store, http);
    CHECK_FALSE(s.fatal_error.empty());
    CHECK(http.sends.size() < static_cast<std::size_t>(total));  // sending stopped at the failure
    CHECK(s.stored > 0);
    CHECK(s.journaled > 0);
    CHECK(s.lost == 0);
    CHECK(s.stored == store->status(hashes(total)).done);  // the summary is what the store holds
    CHECK(s.stored + s.journaled == http.sends.size());    // every answer received is somewhere
    CHECK(s.not_sent.at("store_error") == total - http.sends.size());
    std::size_t unreadable = 0;
    CHECK(read_journal(journal_path(dir.path), unreadable).size() == s.journaled);
    CHECK(unreadable == 0);
    for (const auto& sent : http.sends) sent_bodies.insert(sent.request.body);
    sends += http.sends.size();

    // Still full: the next run on it sends nothing and keeps the journal.
    Run again;
    FakeHttp none(again.clock, long_answer);
    RunSummary refused = again.go(calls(total), *store, none);
    CHECK(none.sends.empty());
    CHECK(refused.fatal_error.find("cannot write to the store") != std::string::npos);
    CHECK(std::filesystem::exists(journal_path(dir.path)));
  }
  // Room again (a new connection carries no cap): the journal first, then the rest, once.
  auto store = Store::open(dir.path, error);
  REQUIRE(store);
  Run last;
  FakeHttp http(last.clock, long_answer);
  RunSummary s = last.go(calls(total), *store, http);
  CHECK(s.fatal_error.empty());
  CHECK(store->status(hashes(total)).done == static_cast<std::size_t>(total));
  CHECK_FALSE(std::filesystem::exists(journal_path(dir.path)));
  for (const auto& sent : http.sends) sent_bodies.insert(sent.request.body);
  sends += http.sends.size();
  CHECK(sends == static_cast<std::size_t>(total));  // no request sent twice
  CHECK(sent_bodies.size() == static_cast<std::size_t>(total));
}
