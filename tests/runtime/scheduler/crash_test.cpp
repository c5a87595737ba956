// crash_test.cpp: kill -9 in the middle of a run loses at most what was in flight, and
// the next run sends only what is missing. Uses the standalone fake provider process and
// a forked child running the real scheduler, killed with SIGKILL.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "helpers.hpp"
#include "runtime/http/curl_multi_client.hpp"
#include "runtime/scheduler/scheduler.hpp"

extern char** environ;

using namespace mirac;
using namespace mirac::test;

namespace {

std::vector<ModelCall> plan(int port, int n) {
  std::vector<ModelCall> calls;
  for (int i = 0; i < n; ++i)
    calls.push_back(make_call("x" + std::to_string(i), "prompt " + std::to_string(i), "local",
                              WireProtocol::openai_chat, "http://127.0.0.1:" + std::to_string(port) + "/v1", ""));
  return calls;
}

RunSummary run_plan(const std::filesystem::path& dir, const std::vector<ModelCall>& calls) {
  std::string error;
  auto store = Store::open(dir, error);
  REQUIRE(store);
  CurlMultiClient http;
  SystemClock clock;
  SeededRandom random(1);
  MapEnvironment env;
  std::atomic<bool> cancel{false};
  SchedulerOptions options;
  options.default_limits = {4, 0, 0};
  SchedulerContext ctx{clock, random, env, cancel};
  return execute(calls, *store, http, options, ctx);
}

}  // namespace

TEST_CASE("crash: SIGKILL mid-run, then resume sends only the missing requests") {
  TempDir dir;
  std::string port_file = (dir.path / "port").string();
  const char* argv[] = {MIRAC_FAKE_PROVIDER_BIN, "--port-file", port_file.c_str(), "--latency-ms", "20",
                        "--lifetime-s", "60", nullptr};
  pid_t server = 0;
  posix_spawn_file_actions_t quiet;  // the server's banner would clutter the test output
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&quiet, 2, "/dev/null", O_WRONLY, 0);
  REQUIRE(posix_spawn(&server, argv[0], &quiet, nullptr, const_cast<char**>(argv), environ) == 0);
  posix_spawn_file_actions_destroy(&quiet);
  int port = 0;
  for (int i = 0; i < 500 && port == 0; ++i) {
    std::ifstream(port_file) >> port;
    if (port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(port > 0);
  const int n = 300;
  auto calls = plan(port, n);

  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    run_plan(dir.path, calls);
    _exit(0);
  }
  std::string error;
  auto observer = Store::open(dir.path, error);
  REQUIRE(observer);
  std::vector<std::string> hashes;
  for (const auto& c : calls) hashes.push_back(c.hash);
  for (int i = 0; i < 2000 && observer->status(hashes).done < 20; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFSIGNALED(status));
  observer.reset();

  auto reopened = Store::open(dir.path, error);
  REQUIRE_MESSAGE(reopened, error);
  auto before = reopened->status(hashes);
  CHECK(before.done >= 20);
  CHECK(before.done < n);
  reopened.reset();

  auto s = run_plan(dir.path, calls);
  CHECK(s.skipped == before.done);
  CHECK(s.sent == n - before.done);
  CHECK(s.stored == n - before.done);
  auto after = Store::open(dir.path, error);
  CHECK(after->status(hashes).done == n);

  ::kill(server, SIGTERM);
  ::waitpid(server, &status, 0);
}
