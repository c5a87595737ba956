// batch_run_test.cpp: `mirac run` with `batch true`, the real binary against the fake
// provider's batch APIs (OpenAI's and Anthropic's): killed with SIGKILL at random moments
// (while it records a batch, while the provider creates one it never hears of, while it
// polls, while it stores results), with create calls that fail after creating or drop
// their connection, every rerun resumes, no request is paid twice and every stored answer
// is its own request's.
#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <random>
#include <nlohmann/json.hpp>
#include <thread>

#include "fake_server.hpp"
#include "mirac_binary.hpp"

using namespace mirac::test;

namespace {

std::string batch_spec(const mirac::fake::FakeServer& server, int seeds) {
  const std::string host = "http://127.0.0.1:" + std::to_string(server.port());
  std::string s = "audit batched { title \"batch APIs\" }\n";
  s += "provider fakeai {\n  protocol openai_chat\n  base_url \"" + host + "/v1\"\n  key_env \"OPENAI_API_KEY\"\n"
       "  batch_price 0.5\n  batch_poll 0.05\n}\n";
  s += "provider fakeclaude {\n  protocol anthropic_messages\n  base_url \"" + host +
       "\"\n  key_env \"ANTHROPIC_API_KEY\"\n  batch_price 0.5\n  batch_poll 0.05\n}\n";
  s += "factor tone { plain warm }\nseeds {\n";
  for (int i = 0; i < seeds; ++i)
    s += "  seed q" + std::to_string(i) + " { question = \"Question number " + std::to_string(i) +
         (i == 3 ? " batch-expire" : "") + (i == 5 ? " [[fake fail=500 times=1]]" : "") + "?\" }\n";
  s += "}\ntext tone { plain \"\" warm \"Kindly: \" }\nprompt { id \"{seed.id}_{tone}\" text tone.text ++ seed.question }\n";
  s += "model gpt = fakeai(\"gpt-test\") { max_tokens 64 batch true }\n";
  s += "model claude = fakeclaude(\"claude-test\") { max_tokens 64 batch true }\n";
  return s;
}

/// Starts `mirac run` in the background; its output goes to `log`.
pid_t start_run(const std::vector<std::string>& args, const std::string& log) {
  const char* binary = std::getenv("MIRAC_BINARY");
  REQUIRE(binary != nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    setenv("OPENAI_API_KEY", kTestApiKey, 1);
    setenv("ANTHROPIC_API_KEY", kTestApiKey, 1);
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> argv{const_cast<char*>(binary)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(binary, argv.data());
    _exit(127);
  }
  return pid;
}

/// The fake answers "echo: " + the prompt: each exported answer must be its own prompt's.
void check_answers_are_their_own(const std::string& spec, const std::string& store, const TempDir& dir, int expected) {
  const std::string out = dir.path("answers.jsonl");
  Outcome ex = invoke({"export", spec, "responses", "--store", store, "-o", out});
  REQUIRE(ex.code == 0);
  std::istringstream lines(read_text(out));
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    auto row = nlohmann::json::parse(line);
    const std::string id = row["prompt_id"];  // q<N>_<tone>
    const int n = std::stoi(id.substr(1, id.find('_') - 1));
    const std::string prompt = std::string(id.ends_with("_warm") ? "Kindly: " : "") + "Question number " +
                               std::to_string(n) + (n == 3 ? " batch-expire" : "") +
                               (n == 5 ? " [[fake fail=500 times=1]]" : "") + "?";
    CAPTURE(id);
    CHECK(row["status"] == "done");
    CHECK(row["text"] == "echo: " + prompt);
    ++rows;
  }
  CHECK(rows == expected);
}

}  // namespace

TEST_CASE("mirac run with batch true survives SIGKILL at random moments without paying twice") {
  TempDir dir("batch_kill");
  mirac::fake::FakeServerOptions options;
  options.openai_key = options.anthropic_key = kTestApiKey;
  options.batch_delay_s = 0.4;
  options.batch_create_delay_s = 0.15;  // a window in which the batch exists but mirac has not heard
  // Creates that fail ambiguously, in both protocols: refused; carried out, then answered
  // 500; carried out, then the connection dropped before any byte of the answer.
  options.batch_create_faults = {"500", "500after", "drop", "ok", "500after", "drop", "500"};
  mirac::fake::FakeServer server(options);
  std::string error;
  REQUIRE(server.start(error));
  const int seeds = 12, requests = seeds * 2 * 2;
  const std::string spec = dir.write("batched.audit", batch_spec(server, seeds));
  const std::string store = dir.path("store"), log = dir.path("log");
  const std::vector<std::string> args = {"run", spec, "--store", store, "--answers-only"};

  std::mt19937 random(20261204);
  std::uniform_int_distribution<int> delay_ms(30, 700);
  for (int kill_round = 0; kill_round < 8; ++kill_round) {
    pid_t child = start_run(args, log);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
  }
  pid_t last = start_run(args, log);
  int status = 0;
  ::waitpid(last, &status, 0);
  const std::string output = read_text(log);
  INFO(output);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(output.find("taking up") != std::string::npos);  // some run resumed batches a killed one left

  Outcome st = invoke({"status", spec, "--store", store});
  CHECK(st.out.find("done " + std::to_string(requests) + ", failed 0, pending 0") != std::string::npos);
  CHECK(st.out.find("batches: ") != std::string::npos);
  CHECK(st.out.find(" 0 open") != std::string::npos);
  server.end_every_batch();  // a batch made and never heard of runs all the same
  const auto stats = server.stats();
  CHECK(stats.paid_twice == 0);
  // Every request ran once, the one whose batch expired once more (expired, not run), and
  // the two prompts that failed with a 500 inside their batch the first time either model
  // sent them (a partial error; the fake counts a prompt's receipts across models) twice.
  CHECK(stats.batch_requests_run == static_cast<std::size_t>(requests + 2));
  CHECK(stats.batches_created >= 4);  // two models, and the expired one sent again for each
  check_answers_are_their_own(spec, store, dir, requests);
  server.stop();
}

TEST_CASE("mirac run --batch: answers and judging through the batch API, then the analysis") {
  TempDir dir("batch_flag");
  mirac::fake::FakeServerOptions options;
  options.openai_key = options.anthropic_key = kTestApiKey;
  options.batch_delay_s = 0.1;
  mirac::fake::FakeServer server(options);
  std::string error;
  REQUIRE(server.start(error));
  std::string text = batch_spec(server, 4);
  // No model says batch: --batch sends them, and the judge, that way all the same.
  for (auto at = text.find(" batch true"); at != std::string::npos; at = text.find(" batch true")) text.erase(at, 11);
  text += "rubric tiny {\n  scale 1..5\n  worst high\n  dim D1 \"Depth\" { 1 \"Deep\" 5 \"Shallow\" }\n}\n"
          "judge j = fakeai(\"gpt-judge\") { rubric tiny }\n";
  const std::string spec = dir.write("batched.audit", text), store = dir.path("store"), log = dir.path("log");
  pid_t child = start_run({"run", spec, "--store", store, "--batch"}, log);
  int status = 0;
  ::waitpid(child, &status, 0);
  const std::string output = read_text(log);
  INFO(output);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  const auto stats = server.stats();
  // Every answer and judgment came by batch: each answer the server gave was a batch's.
  CHECK(stats.answered == stats.batch_requests_run);
  // 16 answers; the two models' answers to a prompt are the same text, so 8 judgments.
  CHECK(stats.batch_requests_run == 16 + 8);
  CHECK(stats.paid_twice == 0);
  Outcome st = invoke({"status", spec, "--store", store});
  CHECK(st.out.find("done 16, failed 0, pending 0") != std::string::npos);
  CHECK(st.out.find("16 scored") != std::string::npos);
  CHECK(std::filesystem::exists(std::filesystem::path(store) / "results" / "results.json"));
}
