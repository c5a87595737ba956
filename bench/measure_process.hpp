// measure_process.hpp: what the benchmarks that time the mirac binary share: a command run
// as a user runs it (its own process, output thrown away) and measured from outside, its
// wall and CPU time, peak memory and the bytes it wrote (/proc/<pid>/io, read before the
// process is reaped); and the median of several runs.
#pragma once

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace bench {

struct Measured {
  int status = -1;
  double wall_s = 0, user_s = 0, system_s = 0;
  long peak_kib = 0;
  long long write_bytes = 0, cancelled_write_bytes = 0;
};

inline long long io_field(const std::string& io, const std::string& name) {
  const auto at = io.find(name + ": ");
  return at == std::string::npos ? -1 : std::atoll(io.c_str() + at + name.size() + 2);
}

// Runs `args` with its output thrown away, and measures it; what it wrote is read from
// /proc before the process is reaped.
inline Measured run(const std::vector<std::string>& args) {
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
inline Measured median_of(int times, const std::vector<std::string>& args) {
  std::vector<Measured> all;
  for (int i = 0; i < times; ++i) all.push_back(run(args));
  std::sort(all.begin(), all.end(), [](const Measured& a, const Measured& b) { return a.wall_s < b.wall_s; });
  for (const auto& m : all)
    if (m.status != 0 && m.status != 1) return m;  // 1: a run or status that reports something unfinished
  return all[all.size() / 2];
}

}  // namespace bench
