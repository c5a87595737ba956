// runtime_throughput.cpp: runtime benchmarks against the standalone fake provider.
//   1. throughput and CPU per request with zero server latency;
//   2. achieved rate as a fraction of an RPM limit the server enforces, and its 429 count;
//   3. peak memory (ru_maxrss) of a 43,200-request run.
// Usage: bench_runtime_throughput [path/to/mirac_fake_provider_server] [requests-phase-1] [phases, e.g. 13]
// The server binary defaults to ../tests/mirac_fake_provider_server next to this one
// (build it with the test_runtime target).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "runtime/http/curl_multi_client.hpp"
#include "runtime/scheduler/scheduler.hpp"

extern char** environ;

namespace fs = std::filesystem;
using namespace mirac;

namespace {

struct Server {
  pid_t pid = 0;
  int port = 0;
};

Server spawn_server(const std::string& bin, const fs::path& dir, std::vector<std::string> extra) {
  std::string port_file = (dir / "port").string();
  fs::remove(port_file);
  std::vector<std::string> args = {bin, "--port-file", port_file, "--lifetime-s", "1200"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  Server s;
  if (posix_spawn(&s.pid, bin.c_str(), &fa, nullptr, argv.data(), environ) != 0) {
    std::cerr << "cannot start " << bin << "\n";
    std::exit(1);
  }
  posix_spawn_file_actions_destroy(&fa);
  for (int i = 0; i < 1000 && s.port == 0; ++i) {
    std::ifstream(port_file) >> s.port;
    if (s.port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (s.port == 0) {
    std::cerr << "fake server did not start\n";
    std::exit(1);
  }
  return s;
}

void stop_server(const Server& s) {
  ::kill(s.pid, SIGTERM);
  int status = 0;
  ::waitpid(s.pid, &status, 0);
}

std::vector<ModelCall> make_calls(int n, int port, const std::string& tag) {
  std::vector<ModelCall> calls;
  calls.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    ModelCall c;
    c.hash = fmt::format("{}-{:08d}", tag, i);
    c.provider = "local";
    c.base_url = fmt::format("http://127.0.0.1:{}/v1", port);
    c.model = "bench-model";
    c.system = std::make_shared<const std::string>("You are a careful medical assistant. Answer briefly.");
    c.user = fmt::format("Question {}: what is the usual adult dose of paracetamol, and when should "
                         "someone see a doctor instead of self-medicating?", i);
    c.params = {{"temperature", 0}, {"max_tokens", 256}};
    calls.push_back(std::move(c));
  }
  return calls;
}

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

struct Result {
  RunSummary summary;
  double wall_s = 0, cpu_s = 0;
};

Result run(const std::vector<ModelCall>& calls, const fs::path& dir, const SchedulerOptions& opt) {
  std::string error;
  auto store = Store::open(dir, error);
  if (!store) {
    std::cerr << error << "\n";
    std::exit(1);
  }
  CurlMultiClient http;
  SystemClock clock;
  SeededRandom random(42);
  MapEnvironment env;
  std::atomic<bool> cancel{false};
  SchedulerContext ctx{clock, random, env, cancel};
  double c0 = cpu_seconds();
  auto t0 = std::chrono::steady_clock::now();
  Result r;
  r.summary = execute(calls, *store, http, opt, ctx);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.cpu_s = cpu_seconds() - c0;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // results appear as each phase ends
  std::string server_bin = argc > 1 && *argv[1] ? argv[1]
                                    : (fs::canonical("/proc/self/exe").parent_path().parent_path() /
                                       "tests" / "mirac_fake_provider_server").string();
  int n1 = argc > 2 ? std::stoi(argv[2]) : 5000;
  std::string phases = argc > 3 ? argv[3] : "123";  // which of the three benchmarks to run
  // The store's fsyncs dominate; MIRAC_BENCH_DIR picks the disk to measure (default /tmp).
  const char* base = std::getenv("MIRAC_BENCH_DIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/mirac-bench-XXXXXX";
  fs::path root = ::mkdtemp(tmpl.data());

  // 1. Throughput, zero latency.
  if (phases.find('1') != std::string::npos) {
    Server s = spawn_server(server_bin, root, {});
    SchedulerOptions opt;
    opt.default_limits = {64, 0, 0};
    auto r = run(make_calls(n1, s.port, "t"), root / "throughput", opt);
    stop_server(s);
    fmt::print("throughput: {} requests in {:.2f} s = {:.0f} requests/s; client CPU {:.3f} ms/request "
               "(stored {}, failed {})\n",
               n1, r.wall_s, n1 / r.wall_s, 1000 * r.cpu_s / n1, r.summary.stored, r.summary.failed);
  }
  // 2. Pacing against an enforced limit (a sliding 1 s window, so the run is short):
  //    the scheduler told the same limit, and then told nothing (429s + retry-after only).
  if (phases.find('2') != std::string::npos) {
    struct Pace {
      int per_second, requests;
    };
    for (Pace pace : {Pace{20, 300}, Pace{100, 1000}}) {
      double limit_rpm = pace.per_second * 60.0;
      std::vector<std::string> server_args = {"--rpm", std::to_string(pace.per_second), "--rpm-window-s", "1"};
      for (bool paced : {true, false}) {
        Server s = spawn_server(server_bin, root, server_args);
        SchedulerOptions opt;
        opt.default_limits = {64, paced ? limit_rpm : 0, 0};
        std::string tag = fmt::format("p{}{}", pace.per_second, paced ? "a" : "b");
        auto r = run(make_calls(pace.requests, s.port, tag), root / tag, opt);
        stop_server(s);
        double achieved = pace.requests / r.wall_s * 60;
        fmt::print("pacing: server limit {:.0f} RPM ({}/s), scheduler rpm={}: {} requests in {:.2f} s = "
                   "{:.0f} RPM = {:.3f} of the limit; 429s: {}\n",
                   limit_rpm, pace.per_second, paced ? fmt::format("{:.0f}", limit_rpm) : "unset",
                   pace.requests, r.wall_s, achieved, achieved / limit_rpm, r.summary.attempts - r.summary.sent);
      }
    }
  }
  // 3. Peak memory of a 43,200-request run.
  if (phases.find('3') != std::string::npos) {
    Server s = spawn_server(server_bin, root, {});
    SchedulerOptions opt;
    opt.default_limits = {64, 0, 0};
    auto calls = make_calls(43200, s.port, "m");
    rusage before{};
    getrusage(RUSAGE_SELF, &before);  // the plan itself, held by the caller
    auto r = run(calls, root / "memory", opt);
    stop_server(s);
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    fmt::print("memory: 43200 requests in {:.1f} s ({:.0f}/s), stored {}; peak RSS {:.1f} MiB "
               "({:.1f} MiB before the run, holding the plan); store {:.1f} MiB\n",
               r.wall_s, 43200 / r.wall_s, r.summary.stored, ru.ru_maxrss / 1024.0,
               before.ru_maxrss / 1024.0,
               fs::file_size(root / "memory" / "store.sqlite") / 1048576.0);
  }
  std::error_code ec;
  fs::remove_all(root, ec);
  return 0;
}
