// run_test.cpp: the real `mirac` binary against the loopback fake provider: a run, a rerun
// that sends nothing, status, a run killed with SIGKILL then resumed, runs stopped by
// SIGINT, SIGTERM and SIGHUP, and a run whose standard output is closed.
#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <fcntl.h>
#include <unistd.h>

#include "fake_server.hpp"

namespace fs = std::filesystem;

namespace {

struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& name) : dir(fs::temp_directory_path() / ("mirac_cli_" + name + "_" + std::to_string(getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
};

// A spec of `seeds` inline seeds x 2 tones, answered by one OpenAI-protocol model.
std::string spec_text(int seeds) {
  std::string s = "audit e2e { title \"end to end\" }\nuse stdlib.providers\nfactor tone { plain warm }\nseeds {\n";
  for (int i = 0; i < seeds; ++i) s += "  seed q" + std::to_string(i) + " { question = \"Question number " + std::to_string(i) + "?\" }\n";
  s += "}\ntext tone { plain \"\" warm \"Kindly: \" }\nprompt { id \"{seed.id}_{tone}\" text tone.text ++ seed.question }\n";
  s += "model gpt = openai(\"gpt-test\") { max_tokens 64 }\n";
  return s;
}

// Runs the mirac binary with `args` and the fake provider's address; returns the exit code.
int run_mirac(const std::vector<std::string>& args, const std::string& base_url, std::string* output = nullptr,
              pid_t* child_out = nullptr) {
  const char* binary = std::getenv("MIRAC_BINARY");
  REQUIRE(binary != nullptr);
  fs::path log = fs::temp_directory_path() / ("mirac_cli_log_" + std::to_string(getpid()));
  pid_t pid = fork();
  if (pid == 0) {
    setenv("OPENAI_BASE_URL", base_url.c_str(), 1);
    setenv("OPENAI_API_KEY", "sk-test-e2e-secret", 1);
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> argv{const_cast<char*>(binary)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(binary, argv.data());
    _exit(127);
  }
  if (child_out) {
    *child_out = pid;
    return 0;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (output) {
    std::ifstream in(log);
    std::stringstream s;
    s << in.rdbuf();
    *output = s.str();
  }
  fs::remove(log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("mirac run stores every answer once; a rerun sends nothing") {
  Scratch scratch("run");
  std::ofstream(scratch.dir / "e2e.audit") << spec_text(5);
  mirac::fake::FakeServerOptions options;
  options.openai_key = "sk-test-e2e-secret";
  mirac::fake::FakeServer server(options);
  std::string error;
  REQUIRE(server.start(error));
  std::string spec = (scratch.dir / "e2e.audit").string(), store = (scratch.dir / "store").string();

  std::string output;
  CHECK(run_mirac({"run", spec, "--store", store}, server.base_url(), &output) == 0);
  INFO(output);
  CHECK(server.stats().answered == 10);
  CHECK(run_mirac({"run", spec, "--store", store}, server.base_url(), &output) == 0);
  CHECK(server.stats().requests == 10);  // content-addressed: nothing sent twice
  CHECK(run_mirac({"status", spec, "--store", store}, server.base_url(), &output) == 0);
  CHECK(output.find("done 10, failed 0, pending 0") != std::string::npos);
  CHECK(run_mirac({"run", spec, "--store", store, "--only", "colour=red"}, server.base_url(), &output) == 2);
  // A misspelt level would select nothing: it is an error naming the levels.
  CHECK(run_mirac({"run", spec, "--store", store, "--only", "tone=wram"}, server.base_url(), &output) == 2);
  CHECK(output.find("--only: 'wram' is not a level of factor 'tone' of the spec (plain, warm)") != std::string::npos);

  // The key never reaches the store.
  for (const auto& entry : fs::directory_iterator(store)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    CHECK(bytes.str().find("sk-test-e2e-secret") == std::string::npos);
  }
  server.stop();
}

TEST_CASE("two replicas of a server share a run; a dead endpoint is taken out and the other serves") {
  Scratch scratch("endpoints");
  // The endpoints in the spec: two live replicas.
  mirac::fake::FakeServerOptions options;
  options.openai_key = "sk-test-e2e-secret";
  options.latency_s = 0.05;
  mirac::fake::FakeServer one(options), two(options);
  std::string error;
  REQUIRE(one.start(error));
  REQUIRE(two.start(error));
  std::string text = spec_text(10);
  text.replace(text.find("use stdlib.providers\n"), 21,
               "provider farm {\n  protocol openai_chat\n  base_url [\"" + one.base_url() + "\", \"" + two.base_url() +
                   "\"]\n  key_env \"OPENAI_API_KEY\"\n  concurrency 4\n}\n");
  text.replace(text.find("openai(\"gpt-test\")"), 19, "farm(\"gpt-test\")");
  std::ofstream(scratch.dir / "farm.audit") << text;
  std::string output;
  const std::string spec = (scratch.dir / "farm.audit").string();
  CHECK(run_mirac({"run", spec, "--store", (scratch.dir / "farm").string()}, "", &output) == 0);
  INFO(output);
  CHECK(one.stats().answered + two.stats().answered == 20);
  CHECK(one.stats().answered >= 5);
  CHECK(two.stats().answered >= 5);

  // OPENAI_BASE_URL listing a live server and one nobody listens on.
  std::ofstream(scratch.dir / "e2e.audit") << spec_text(10);
  const std::string dead = "http://127.0.0.1:9/v1";
  CHECK(run_mirac({"run", (scratch.dir / "e2e.audit").string(), "--store", (scratch.dir / "store").string()},
                  one.base_url() + "," + dead, &output) == 0);
  CHECK(output.find("openai: endpoint " + dead + " out of service for 10 s (no answer)") != std::string::npos);
  CHECK(one.stats().answered == 20 + 20 - two.stats().answered);
  one.stop();
  two.stop();
}

TEST_CASE("a run killed with SIGKILL loses no stored answer and the rerun sends only what is missing") {
  Scratch scratch("kill");
  const int seeds = 60, total = 2 * seeds, concurrency = 4;
  std::ofstream(scratch.dir / "e2e.audit") << spec_text(seeds);
  mirac::fake::FakeServerOptions options;
  options.latency_s = 0.05;
  mirac::fake::FakeServer server(options);
  std::string error;
  REQUIRE(server.start(error));
  std::string spec = (scratch.dir / "e2e.audit").string(), store = (scratch.dir / "store").string();
  std::vector<std::string> args = {"run", spec, "--store", store, "--concurrency", std::to_string(concurrency)};

  pid_t child = 0;
  run_mirac(args, server.base_url(), nullptr, &child);
  // Kill once some answers, but not all, have been served.
  for (int i = 0; i < 400 && server.stats().answered < total / 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  std::size_t before = server.stats().requests;
  CHECK(before < static_cast<std::size_t>(total));

  std::string output;
  CHECK(run_mirac(args, server.base_url(), &output) == 0);
  INFO(output);
  CHECK(run_mirac({"status", spec, "--store", store}, server.base_url(), &output) == 0);
  CHECK(output.find("done 120, failed 0, pending 0") != std::string::npos);
  // At most the requests in flight at the kill are sent again.
  CHECK(server.stats().requests <= static_cast<std::size_t>(total + concurrency));
  server.stop();
}

TEST_CASE("Ctrl-C stops sending, keeps the answers in flight, and the rerun finishes") {
  Scratch scratch("sigint");
  const int seeds = 30, total = 2 * seeds;
  std::ofstream(scratch.dir / "e2e.audit") << spec_text(seeds);
  mirac::fake::FakeServerOptions options;
  options.latency_s = 0.2;
  mirac::fake::FakeServer server(options);
  std::string error;
  REQUIRE(server.start(error));
  std::string spec = (scratch.dir / "e2e.audit").string(), store = (scratch.dir / "store").string();
  std::vector<std::string> args = {"run", spec, "--store", store, "--concurrency", "4"};

  pid_t child = 0;
  run_mirac(args, server.base_url(), nullptr, &child);
  for (int i = 0; i < 500 && server.stats().answered < 4; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  kill(child, SIGINT);
  int status = 0;
  waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 4);  // cancelled
  std::size_t answered = server.stats().answered;
  CHECK(answered < static_cast<std::size_t>(total));

  // Every answer the server gave before the stop is in the store.
  std::string output;
  CHECK(run_mirac({"status", spec, "--store", store}, server.base_url(), &output) == 0);
  CHECK(output.find("done " + std::to_string(answered) + ",") != std::string::npos);
  CHECK(run_mirac(args, server.base_url(), &output) == 0);
  CHECK(server.stats().requests == static_cast<std::size_t>(total));
  server.stop();
}

TEST_CASE("SIGTERM and SIGHUP are Ctrl-C: repeated interruptions pay for no answer twice") {
  Scratch scratch("sigterm");
  const int seeds = 40, total = 2 * seeds, interruptions = 3;
  std::ofstream(scratch.dir / "e2e.audit") << spec_text(seeds);
  mirac::fake::FakeServerOptions options;
  options.latency_s = 0.2;  // slow enough that every interruption finds answers in flight
  mirac::fake::FakeServer server(options);
  std::string error;
  REQUIRE(server.start(error));
  std::string spec = (scratch.dir / "e2e.audit").string(), store = (scratch.dir / "store").string();
  std::vector<std::string> args = {"run", spec, "--store", store, "--concurrency", "4", "--answers-only"};

  for (int signal : {SIGTERM, SIGHUP}) {
    for (int i = 0; i < interruptions; ++i) {
      CAPTURE(signal);
      CAPTURE(i);
      std::size_t before = server.stats().answered;
      pid_t child = 0;
      run_mirac(args, server.base_url(), nullptr, &child);
      // Interrupt once this run has been served a few answers and has more in flight.
      for (int t = 0; t < 500 && server.stats().answered < before + 4; ++t)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      kill(child, signal);
      int status = 0;
      waitpid(child, &status, 0);
      REQUIRE(WIFEXITED(status));  // ended by its own summary, not by the signal
      CHECK((WEXITSTATUS(status) == 4 || WEXITSTATUS(status) == 0));
      // Every answer served so far is in the store.
      std::string output;
      CHECK(run_mirac({"status", spec, "--store", store}, server.base_url(), &output) == 0);
      CHECK(output.find("done " + std::to_string(server.stats().answered) + ",") != std::string::npos);
    }
  }
  std::string output;
  CHECK(run_mirac(args, server.base_url(), &output) == 0);
  INFO(output);
  CHECK(run_mirac({"status", spec, "--store", store}, server.base_url(), &output) == 0);
  CHECK(output.find("done " + std::to_string(total) + ", failed 0, pending 0") != std::string::npos);
  CHECK(server.stats().paid_twice == 0);
  CHECK(server.stats().requests == static_cast<std::size_t>(total));
  server.stop();
}

TEST_CASE("a run whose standard output is closed (mirac run | head) still stores and judges everything") {
  Scratch scratch("sigpipe");
  std::ofstream(scratch.dir / "e2e.audit") << spec_text(5)
                                           << "rubric tiny {\n  scale 1..5\n  worst high\n  dim D1 \"Depth\" { 1 \"Deep\" 5 \"Shallow\" }\n}\n"
                                              "judge j = openai(\"gpt-judge\") { rubric tiny }\n";
  mirac::fake::FakeServer server;
  std::string error;
  REQUIRE(server.start(error));
  std::string spec = (scratch.dir / "e2e.audit").string(), store = (scratch.dir / "store").string();
  const char* binary = std::getenv("MIRAC_BINARY");
  REQUIRE(binary != nullptr);
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  ::close(pipe_fds[0]);  // the reader (head) is gone before mirac writes its first line
  pid_t pid = fork();
  if (pid == 0) {
    setenv("OPENAI_BASE_URL", server.base_url().c_str(), 1);
    setenv("OPENAI_API_KEY", "sk-test-e2e-secret", 1);
    signal(SIGPIPE, SIG_DFL);  // as a shell starts it
    dup2(pipe_fds[1], 1);
    int null_fd = ::open("/dev/null", O_WRONLY);
    dup2(null_fd, 2);
    std::vector<std::string> args = {"run", spec, "--store", store};
    std::vector<char*> argv{const_cast<char*>(binary)};
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary, argv.data());
    _exit(127);
  }
  ::close(pipe_fds[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK_FALSE(WIFSIGNALED(status));
  std::string output;
  CHECK(run_mirac({"status", spec, "--store", store}, server.base_url(), &output) == 0);
  INFO(output);
  CHECK(output.find("done 10, failed 0, pending 0") != std::string::npos);
  // The judge phase ran too: a rerun sends nothing more.
  std::size_t before = server.stats().requests;
  CHECK(before > 10);
  CHECK(run_mirac({"run", spec, "--store", store}, server.base_url(), &output) == 0);
  CHECK(server.stats().requests == before);
  server.stop();
}

TEST_CASE("export and import through the binary") {
  Scratch scratch("export");
  std::ofstream(scratch.dir / "e2e.audit") << spec_text(2);
  mirac::fake::FakeServer server;
  std::string error;
  REQUIRE(server.start(error));
  std::string spec = (scratch.dir / "e2e.audit").string(), store = (scratch.dir / "store").string();
  std::string output;
  REQUIRE(run_mirac({"run", spec, "--store", store}, server.base_url(), &output) == 0);
  std::string file = (scratch.dir / "answers.jsonl").string();
  CHECK(run_mirac({"export", spec, "responses", "--store", store, "-o", file}, server.base_url(), &output) == 0);
  std::ifstream in(file);
  std::size_t rows = 0;
  for (std::string line; std::getline(in, line);) rows += !line.empty();
  CHECK(rows == 4);
  // Importing the same answers into a fresh store makes a rerun send nothing.
  std::string other = (scratch.dir / "other").string();
  CHECK(run_mirac({"import", spec, "responses", file, "--store", other}, server.base_url(), &output) == 0);
  std::size_t before = server.stats().requests;
  CHECK(run_mirac({"run", spec, "--store", other}, server.base_url(), &output) == 0);
  CHECK(server.stats().requests == before);
  CHECK(run_mirac({"export", spec, "nonsense", "--store", store}, server.base_url(), &output) == 2);
  server.stop();
}
