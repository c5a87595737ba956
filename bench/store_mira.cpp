// store_mira.cpp: issue 13's targets on the offline MIRA run, each measured on the mirac
// binary as a user runs it (a process per command, so start-up counts):
//   - the whole run (`mirac run specs/mira.audit --offline`): wall and CPU time, peak
//     memory, and the bytes it had written to disk (/proc/<pid>/io write_bytes);
//   - the store it leaves: its file size, and its pages by table and index (dbstat);
//   - a warm rerun (everything stored), `mirac status` and `mirac plan`, the median of
//     several runs each.
// Run from the source root:
//   cmake --build build --target mirac bench_store_mira
//   build/bench/bench_store_mira [MIRAC [SPEC [DATA [WORK_DIR]]]]
// (defaults build/mirac, specs/mira.audit, ../shared/mira-release, /tmp/mirac-bench-store).
// Prints figures only; nothing is asserted (docs/performance.md records them). Timings on a
// machine busy with other work mean little: the load average is printed with them.
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace {

namespace fs = std::filesystem;

struct Measured {
  int status = -1;
  double wall_s = 0, user_s = 0, system_s = 0;
  long peak_kib = 0;
  long long write_bytes = 0, cancelled_write_bytes = 0;
};

long long io_field(const std::string& io, const std::string& name) {
  const auto at = io.find(name + ": ");
  return at == std::string::npos ? -1 : std::atoll(io.c_str() + at + name.size() + 2);
}

// Runs `args` with its output thrown away, and measures it; what it wrote is read from
// /proc before the process is reaped.
Measured run(const std::vector<std::string>& args) {
  Measured m;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  siginfo_t info{};
  ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT);
  std::ifstream in(fmt::format("/proc/{}/io", pid));
  const std::string io((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  m.write_bytes = io_field(io, "write_bytes");
  m.cancelled_write_bytes = io_field(io, "cancelled_write_bytes");
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  m.user_s = static_cast<double>(usage.ru_utime.tv_sec) + static_cast<double>(usage.ru_utime.tv_usec) / 1e6;
  m.system_s = static_cast<double>(usage.ru_stime.tv_sec) + static_cast<double>(usage.ru_stime.tv_usec) / 1e6;
  m.peak_kib = usage.ru_maxrss;
  return m;
}

// The median wall time of `times` runs of `args` (all must succeed).
Measured median_of(int times, const std::vector<std::string>& args) {
  std::vector<Measured> all;
  for (int i = 0; i < times; ++i) all.push_back(run(args));
  std::sort(all.begin(), all.end(), [](const Measured& a, const Measured& b) { return a.wall_s < b.wall_s; });
  for (const auto& m : all)
    if (m.status != 0 && m.status != 1) return m;  // 1: a run or status that reports something unfinished
  return all[all.size() / 2];
}

double mb(long long bytes) { return static_cast<double>(bytes) / 1e6; }

// Bytes of the store's pages per table or index, largest first.
std::vector<std::pair<std::string, long long>> pages_by_table(const fs::path& file) {
  std::vector<std::pair<std::string, long long>> out;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return out;
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC", -1, &q, nullptr) ==
      SQLITE_OK)
    while (sqlite3_step(q) == SQLITE_ROW)
      out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(q, 0)), sqlite3_column_int64(q, 1));
  sqlite3_finalize(q);
  sqlite3_close(db);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mirac = fs::absolute(argc > 1 ? argv[1] : "build/mirac").string();
  const std::string spec = argc > 2 ? argv[2] : "specs/mira.audit";
  const std::string data = argc > 3 ? argv[3] : "../shared/mira-release";
  const fs::path work = argc > 4 ? argv[4] : "/tmp/mirac-bench-store";
  if (!fs::exists(mirac) || !fs::exists(spec) || !fs::exists(data)) {
    std::cerr << "bench_store_mira: needs " << mirac << ", " << spec << " and " << data
              << " (run from the source root, or pass them)\n";
    return 1;
  }
  double load[3] = {0, 0, 0};
  ::getloadavg(load, 3);
  fmt::print("mirac {}, {} with {}; load average {:.2f} {:.2f} {:.2f}\n", mirac, spec, data, load[0], load[1],
             load[2]);
  const fs::path store = work / "run";
  std::error_code ec;
  fs::remove_all(store, ec);
  fs::create_directories(work, ec);
  const std::vector<std::string> run_args = {mirac, "run", spec, "--offline", "--data", data, "--store", store.string()};

  const Measured whole = run(run_args);
  const fs::path file = store / "store.sqlite";
  const long long size = fs::exists(file) ? static_cast<long long>(fs::file_size(file)) : 0;
  fmt::print("\nwhole offline run (exit {}): {:.1f} s wall, {:.1f} s user + {:.1f} s system, peak {:.0f} MB\n",
             whole.status, whole.wall_s, whole.user_s, whole.system_s, static_cast<double>(whole.peak_kib) / 1024.0);
  fmt::print("  written to disk {:.0f} MB ({:.1f} x the store; {:.0f} MB of it cancelled before reaching the disk)\n",
             mb(whole.write_bytes), size ? static_cast<double>(whole.write_bytes) / static_cast<double>(size) : 0.0,
             mb(whole.cancelled_write_bytes));
  fmt::print("  store {:.1f} MB\n", mb(size));
  for (const auto& [name, bytes] : pages_by_table(file))
    if (bytes >= 100000) fmt::print("    {:32} {:7.1f} MB\n", name, mb(bytes));

  const Measured rerun = median_of(3, run_args);
  fmt::print("\nwarm rerun (median of 3, exit {}): {:.2f} s wall, {:.2f} s CPU\n", rerun.status, rerun.wall_s,
             rerun.user_s + rerun.system_s);
  const Measured status =
      median_of(5, {mirac, "status", spec, "--offline", "--data", data, "--store", store.string()});
  fmt::print("mirac status (median of 5, exit {}): {:.3f} s wall, {:.3f} s CPU\n", status.status, status.wall_s,
             status.user_s + status.system_s);
  const Measured plan = median_of(5, {mirac, "plan", spec, "--data", data});
  fmt::print("mirac plan (median of 5, exit {}): {:.3f} s wall, {:.3f} s CPU\n", plan.status, plan.wall_s,
             plan.user_s + plan.system_s);
  return 0;
}
