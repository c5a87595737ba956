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

#include "bench/measure_process.hpp"

namespace {

namespace fs = std::filesystem;
using bench::Measured;
using bench::median_of;
using bench::run;

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
