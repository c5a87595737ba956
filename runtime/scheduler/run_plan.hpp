// run_plan.hpp: what the CLI calls for `mirac run`: opens the store in the run directory,
// wires the real HTTP client (or the options' transport), clock, jitter source and
// environment, and runs the scheduler. Also the text the CLI prints for progress,
// summaries and status.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "runtime/scheduler/scheduler.hpp"

namespace mirac {

struct RunHooks {
  std::function<void(const Progress&)> on_progress;  ///< every options.progress_interval_s
  std::function<void(const std::string&)> log;       ///< notices (provider stops, notes)
  /// A phase's next round begins: "judge mira_judge", "judge mira_judge repair 1". Called by
  /// the phases that send in rounds, before each one; the progress lines that follow are its.
  std::function<void(const std::string&)> on_phase;
};

/// Runs `calls` against `<run_dir>/store.sqlite`. A store that cannot be opened, missing
/// keys or unpriced models under a budget come back as `fatal_error` with nothing sent.
/// `jitter_seed` seeds the backoff jitter (record it with the run).
RunSummary run_plan(const std::vector<ModelCall>& calls, const std::filesystem::path& run_dir,
                    const SchedulerOptions& options, const std::atomic<bool>& cancel,
                    const RunHooks& hooks = {}, std::uint64_t jitter_seed = 0);
/// The same on a store the caller opened and keeps: `mirac run` holds one store (and its
/// run lock) from its first request to its last write, across every phase.
RunSummary run_plan(const std::vector<ModelCall>& calls, Store& store, const SchedulerOptions& options,
                    const std::atomic<bool>& cancel, const RunHooks& hooks = {}, std::uint64_t jitter_seed = 0);
/// The same on calls held elsewhere (a plan's requests), which must outlive the call.
RunSummary run_plan(const CallRefs& calls, Store& store, const SchedulerOptions& options,
                    const std::atomic<bool>& cancel, const RunHooks& hooks = {}, std::uint64_t jitter_seed = 0);

/// "1234/4320 answered (28.6%) | 12.3/s | ETA 4m10s | $1.23 | 2 failed | errors: rate_limited 3"
std::string format_progress(const Progress& p);
/// One terminal line of at most `columns - 1` characters (so it never wraps and `\r`
/// redraws it in place): `phase`, done/total and share, ETA, spend, then as room allows
/// the rate, failures, pauses, errors by cause and a bar. What does not fit is left out,
/// least important first.
std::string format_progress_line(const Progress& p, const std::string& phase, std::size_t columns);
/// The end-of-run report, several lines.
std::string format_summary(const RunSummary& s);
/// "done 4000, failed 12 (rate_limited 10, invalid_request 2), pending 308"
std::string format_status(const StatusReport& s);
/// Seconds as "4m10s", "1h02m", "12s".
std::string format_duration(double seconds);

}  // namespace mirac
