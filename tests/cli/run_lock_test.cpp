// run_lock_test.cpp: one `mirac run` holds its store from its first request to its last
// write. A second run on the same store, started while the first is answering or while it
// is judging, is refused with a message naming the first, and the first finishes as if
// the second had never been started.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "fake_server.hpp"
#include "mirac_binary.hpp"

namespace {

// 20 seeds x 2 tones, answered and then judged (one dimension) on the fake provider.
std::string judged_spec(int seeds) {
  std::string s = "audit locked { title \"lock\" }\nuse stdlib.providers\nfactor tone { plain warm }\nseeds {\n";
  for (int i = 0; i < seeds; ++i)
    s += "  seed q" + std::to_string(i) + " { question = \"Question number " + std::to_string(i) + "?\" }\n";
  s += "}\ntext tone { plain \"\" warm \"Kindly: \" }\nprompt { id \"{seed.id}_{tone}\" text tone.text ++ seed.question }\n"
       "model gpt = openai(\"gpt-test\") { max_tokens 64 }\n"
       "rubric tiny {\n  scale 1..5\n  worst high\n  dim D1 \"Depth\" { 1 \"Deep\" 5 \"Shallow\" }\n}\n"
       "judge j = openai(\"gpt-judge\") { rubric tiny }\n"
       "contrast warmth = D1[warm] - D1[plain] by model\n";
  return s;
}

// Waits (boundedly) until the fake server has sent `n` answers.
void wait_for_answers(const mirac::fake::FakeServer& server, std::size_t n) {
  for (int t = 0; t < 2000 && server.stats().answered < n; ++t) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

}  // namespace

TEST_CASE("a second mirac run on the same store is refused in every phase and does not disturb the first") {
  mirac::test::TempDir tmp("run_lock");
  const int seeds = 20, answers = 2 * seeds;
  std::string spec = tmp.write("locked.audit", judged_spec(seeds)), store = tmp.path("store");
  mirac::fake::FakeServerOptions options;
  options.latency_s = 0.1;  // each phase lasts long enough to start a second run inside it
  mirac::fake::FakeServer server(options);
  std::string error;
  REQUIRE(server.start(error));
  const std::vector<std::string> args = {"run", spec, "--store", store, "--concurrency", "2"};

  pid_t first = mirac::test::spawn(args, server.base_url(), tmp.dir / "first.log");
  auto refused_second = [&](const char* phase) {
    CAPTURE(phase);
    auto second = mirac::test::invoke(args, server.base_url());
    CHECK(second.code == 4);
    CHECK(second.err.find("another mirac run (pid " + std::to_string(first) + ") is using") != std::string::npos);
  };
  wait_for_answers(server, 4);  // answering
  refused_second("answers");
  wait_for_answers(server, answers + 4);  // every answer is in: the judge phase has begun
  refused_second("judging");

  CHECK(mirac::test::wait_exit(first) == 0);
  std::string log = mirac::test::read_text(tmp.dir / "first.log");
  INFO(log);
  CHECK(log.find("another mirac run") == std::string::npos);
  // The refused runs sent nothing: every request was sent once, by the first run.
  CHECK(server.stats().requests == static_cast<std::size_t>(2 * answers));
  CHECK(server.stats().paid_twice == 0);
  // Once the first run has ended, the store is free again.
  auto again = mirac::test::invoke(args, server.base_url());
  CHECK(again.code == 0);
  CHECK(server.stats().requests == static_cast<std::size_t>(2 * answers));
  server.stop();
}

TEST_CASE("the run lock holds through the analysis too") {
  mirac::test::TempDir tmp("run_lock_analysis");
  const int seeds = 20, answers = 2 * seeds;
  std::string spec = tmp.write("locked.audit", judged_spec(seeds)), store = tmp.path("store");
  mirac::fake::FakeServer server;
  std::string error;
  REQUIRE(server.start(error));
  // Bootstrap resamples enough to keep the analysis busy for seconds after the last judge reply.
  const std::vector<std::string> args = {"run", spec, "--store", store, "--resamples", "3000000"};
  pid_t first = mirac::test::spawn(args, server.base_url(), tmp.dir / "first.log");
  wait_for_answers(server, 2 * answers);  // every answer and every judge reply is in
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int wait_status = 0;
  const bool analysing = waitpid(first, &wait_status, WNOHANG) == 0;
  auto second = mirac::test::invoke(args, server.base_url());
  const bool still_analysing = waitpid(first, &wait_status, WNOHANG) == 0;
  // Only a second run that started and ended while the first was analysing tells anything.
  if (analysing && still_analysing) {
    CHECK(second.code == 4);
    CHECK(second.err.find("another mirac run (pid " + std::to_string(first) + ") is using") != std::string::npos);
  } else {
    MESSAGE("the first run finished its analysis too soon to test the lock in it");
  }
  if (still_analysing) CHECK(mirac::test::wait_exit(first) == 0);
  CHECK(server.stats().requests == static_cast<std::size_t>(2 * answers));
  server.stop();
}
