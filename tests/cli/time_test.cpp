// time_test.cpp: rate limits and time through the real binary against the fake provider:
// a retry-after longer than the retry cap pauses the provider and the run goes on; past
// max_pause the provider stops and a rerun finishes; first-byte and --timeout limits fail
// an attempt as `timeout`, retried and, when given up, recorded as the failure it is;
// Ctrl-C during a pause stops the run without sitting the pause out.
#include <doctest/doctest.h>

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <regex>
#include <thread>

#include "fake_server.hpp"
#include "mirac_binary.hpp"

using mirac::test::invoke;

namespace {

// 3 seeds x 2 tones, answered through a provider of the test's own with `settings`; seed
// q2's question carries `directive` for the fake server.
std::string spec_text(const std::string& base_url, const std::string& settings, const std::string& directive) {
  return "audit timing { title \"time\" }\nfactor tone { plain warm }\nseeds {\n"
         "  seed q0 { question = \"First?\" }\n  seed q1 { question = \"Second?\" }\n"
         "  seed q2 { question = \"Third? [[fake " + directive + "]]\" }\n}\n"
         "text tone { plain \"\" warm \"Kindly: \" }\nprompt { id \"{seed.id}_{tone}\" text tone.text ++ seed.question }\n"
         "provider lab {\n  protocol openai_chat\n  base_url \"" + base_url + "\"\n  key_env \"OPENAI_API_KEY\"\n" +
         settings + "\n}\nmodel gpt = lab(\"gpt-test\") { max_tokens 64 }\n";
}

struct Counts {
  long done = -1, failed = -1, pending = -1;
};

Counts status(const std::string& spec, const std::string& store) {
  auto s = invoke({"status", spec, "--store", store});
  const std::string text = s.out + s.err;
  std::smatch m;
  Counts c;
  if (std::regex_search(text, m, std::regex("done (\\d+), failed (\\d+)[^,]*, pending (\\d+)")))
    c = {std::stol(m[1]), std::stol(m[2]), std::stol(m[3])};
  return c;
}

// "outcome cause" of every attempt in the store, in order.
std::vector<std::string> attempts(const std::string& store) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2((store + "/store.sqlite").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT outcome, cause FROM attempts ORDER BY rowid", -1, &q, nullptr) == SQLITE_OK);
  while (sqlite3_step(q) == SQLITE_ROW)
    out.push_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(q, 0))) + " " +
                  reinterpret_cast<const char*>(sqlite3_column_text(q, 1)));
  sqlite3_finalize(q);
  sqlite3_close(db);
  return out;
}

std::size_t count(const std::vector<std::string>& v, const std::string& x) {
  return static_cast<std::size_t>(std::count(v.begin(), v.end(), x));
}

struct Server {
  mirac::fake::FakeServer server;
  Server() {
    std::string error;
    REQUIRE_MESSAGE(server.start(error), error);
  }
};

}  // namespace

TEST_CASE("mirac run: a retry-after past the retry cap pauses the provider, says so, and goes on") {
  mirac::test::TempDir tmp("time_pause");
  Server fake;
  const std::string spec = tmp.write("t.audit", spec_text(fake.server.base_url(), "  concurrency 2\n  max_retry_after 1\n  max_pause 5",
                                                          "fail=429 ra=2 times=1"));
  const std::string store = tmp.path("store");
  auto run = invoke({"run", spec, "--store", store, "--answers-only"});
  INFO(run.out, run.err);
  CHECK(run.code == 0);
  CHECK((run.out + run.err).find("provider 'lab' paused for 2s (rate_limited)") != std::string::npos);
  auto c = status(spec, store);
  CHECK(c.done == 6);
  CHECK(c.failed == 0);
  auto rows = attempts(store);
  CHECK(count(rows, "retry rate_limited") == 2);  // each q2 prompt once, then answered
  CHECK(count(rows, "ok ok") == 6);
  CHECK(fake.server.stats().paid_twice == 0);
}

TEST_CASE("mirac run: the progress line shows the pause, and Ctrl-C during it stops the run") {
  mirac::test::TempDir tmp("time_pause_sigint");
  Server fake;
  const std::string spec = tmp.write("t.audit", spec_text(fake.server.base_url(), "  concurrency 1\n  max_retry_after 1\n  max_pause 600",
                                                          "fail=429 ra=500"));
  const std::string store = tmp.path("store"), log = tmp.path("run.log");
  pid_t child = mirac::test::spawn({"run", spec, "--store", store, "--answers-only"}, fake.server.base_url(), log);
  // Wait (generously) for the progress line to report the pause, then interrupt.
  bool shown = false;
  for (int i = 0; i < 600 && !shown; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    shown = mirac::test::read_text(log).find("lab paused by the server, resumes in") != std::string::npos;
  }
  CHECK(shown);
  kill(child, SIGINT);
  // A stop that waited out the 500 s pause would still be running after this long.
  int wait_status = 0;
  bool exited = false;
  for (int i = 0; i < 600 && !exited; ++i) {
    exited = waitpid(child, &wait_status, WNOHANG) == child;
    if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!exited) {
    kill(child, SIGKILL);
    waitpid(child, &wait_status, 0);
  }
  REQUIRE(exited);
  CHECK(WIFEXITED(wait_status));
  CHECK(WEXITSTATUS(wait_status) == 4);  // cancelled
  const std::string text = mirac::test::read_text(log);
  INFO(text);
  CHECK(text.find("cancelled: run again to send the rest") != std::string::npos);
  auto c = status(spec, store);
  CHECK(c.failed == 0);
  CHECK(c.done + c.pending == 6);
}

TEST_CASE("mirac run: past max_pause the provider stops, what is stored stays, and reruns finish") {
  mirac::test::TempDir tmp("time_stop");
  Server fake;
  const std::string spec = tmp.write("t.audit", spec_text(fake.server.base_url(), "  concurrency 1\n  max_retry_after 1\n  max_pause 2",
                                                          "fail=429 ra=30 times=1"));
  const std::string store = tmp.path("store");
  auto run = invoke({"run", spec, "--store", store, "--answers-only"});
  INFO(run.out, run.err);
  CHECK((run.out + run.err).find("more than max_pause 2 s") != std::string::npos);
  CHECK((run.out + run.err).find("run again later; the answers already stored are kept") != std::string::npos);
  CHECK(run.code == 4);  // docs/cli.md: something selected was not sent
  auto first = status(spec, store);
  CHECK(first.failed == 0);
  CHECK(first.pending >= 1);
  CHECK(first.done + first.pending == 6);
  // Each q2 prompt draws the long wait once: at most two more runs finish the plan.
  for (int rerun = 0; rerun < 2 && status(spec, store).done < 6; ++rerun)
    invoke({"run", spec, "--store", store, "--answers-only"});
  CHECK(status(spec, store).done == 6);
  CHECK(count(attempts(store), "stopped rate_limited") == 2);
  CHECK(fake.server.stats().paid_twice == 0);
}

TEST_CASE("mirac run: a server silent past first_byte_timeout fails the attempt as a timeout, retried") {
  mirac::test::TempDir tmp("time_first_byte");
  Server fake;
  const std::string spec = tmp.write("t.audit", spec_text(fake.server.base_url(), "  first_byte_timeout 1",
                                                          "fail=slow slow=15000 times=1"));
  const std::string store = tmp.path("store");
  auto run = invoke({"run", spec, "--store", store, "--answers-only"});
  INFO(run.out, run.err);
  CHECK(run.code == 0);
  CHECK(status(spec, store).done == 6);
  auto rows = attempts(store);
  CHECK(count(rows, "retry timeout") == 2);
  CHECK(count(rows, "ok ok") == 6);
}

TEST_CASE("mirac run --timeout: a request that times out on every attempt is stored failed with cause timeout") {
  mirac::test::TempDir tmp("time_total");
  Server fake;
  const std::string spec = tmp.write("t.audit", spec_text(fake.server.base_url(), "  max_attempts 2\n  timeout 600",
                                                          "fail=slow slow=4000"));
  const std::string store = tmp.path("store");
  auto run = invoke({"run", spec, "--store", store, "--answers-only", "--timeout", "1"});
  INFO(run.out, run.err);
  auto c = status(spec, store);
  CHECK(c.done == 4);
  CHECK(c.failed == 2);
  CHECK((run.out + run.err).find("failed by cause: timeout 2") != std::string::npos);
  auto rows = attempts(store);
  CHECK(count(rows, "retry timeout") == 2);
  CHECK(count(rows, "failed timeout") == 2);  // the last attempt is the failure, not a retry
  auto bad = invoke({"run", spec, "--store", store, "--timeout", "0"});
  CHECK(bad.code == 2);
}

TEST_CASE("mirac check: a time or retry setting that is not a positive number is an error, not a silent default") {
  mirac::test::TempDir tmp("time_check");
  for (const std::string bad : {"  timeout -5", "  first_byte_timeout \"ten\"", "  max_attempts 2.5", "  max_pause 0"}) {
    CAPTURE(bad);
    auto check = invoke({"check", tmp.write("t.audit", spec_text("http://127.0.0.1:9/v1", bad, "latency=1"))});
    CHECK(check.code == 1);
    CHECK((check.out + check.err).find("provider 'lab': " + bad.substr(2, bad.find(' ', 2) - 2) + " must be a positive") !=
          std::string::npos);
  }
  auto good = invoke({"check", tmp.write("t.audit", spec_text("http://127.0.0.1:9/v1", "  timeout 30\n  max_attempts 3", "latency=1"))});
  CHECK(good.code == 0);
}
