// report_test.cpp: the text the CLI prints for progress, summaries and status.
#include <doctest/doctest.h>

#include <fstream>

#include "helpers.hpp"
#include "runtime/scheduler/run_plan.hpp"

using namespace mirac;

namespace {

// A run a quarter of the way through, with failures and errors to show.
Progress midway() {
  Progress p;
  p.total = 4320;
  p.done = 1234;
  p.rate_per_s = 12.34;
  p.eta_s = 250;
  p.spend_usd = 1.234;
  p.failed = 2;
  p.errors_by_cause = {{"rate_limited", 3}, {"timeout", 1}};
  return p;
}

}  // namespace

TEST_CASE("progress, summary and status text") {
  Progress p = midway();
  CHECK(format_progress(p) ==
        "1234/4320 answered (28.6%) | 12.3/s | ETA 4m10s | $1.23 | 2 failed | errors: rate_limited 3, timeout 1");
  CHECK(format_duration(3725) == "1h02m");
  CHECK(format_duration(12) == "12s");

  RunSummary s;
  s.total = 10;
  s.skipped = 4;
  s.sent = 6;
  s.attempts = 8;
  s.stored = 5;
  s.failed = 1;
  s.failed_by_cause = {{"invalid_request", 1}};
  s.spend_usd = 0.5;
  s.messages = {"provider 'openai' stopped (insufficient_quota): ..."};
  CHECK(format_summary(s) ==
        "10 requests: 4 already answered, 6 sent (8 attempts), 5 answered now, 1 failed\n"
        "failed by cause: invalid_request 1\n"
        "spend this run: $0.5000\n"
        "provider 'openai' stopped (insufficient_quota): ...\n");

  StatusReport st;
  st.done = 4000;
  st.pending = 308;
  st.failed = {{"invalid_request", 2}, {"rate_limited", 10}};
  CHECK(format_status(st) == "done 4000, failed 12 (invalid_request 2, rate_limited 10), pending 308");
}

TEST_CASE("run_plan: an unusable run directory is a clear error, nothing sent") {
  test::TempDir dir;
  { std::ofstream f(dir.path / "file"); }
  std::atomic<bool> cancel{false};
  auto s = run_plan({test::make_call("h", "q")}, dir.path / "file" / "run", {}, cancel);
  CHECK(s.fatal_error.find("cannot create run directory") != std::string::npos);
  CHECK(s.sent == 0);
  CHECK(format_summary(s).rfind("error: cannot create run directory", 0) == 0);
}

TEST_CASE("the terminal progress line fits its width, names the phase, and drops the least important first") {
  Progress p = midway();
  p.paused_s = {{"openai", 95}};
  for (std::size_t columns : {40, 60, 80, 120, 200}) {
    CAPTURE(columns);
    const std::string line = format_progress_line(p, "judge mira_judge repair 1", columns);
    CHECK(line.size() <= columns - 1);
    CHECK(line.rfind(columns >= 50 ? "judge mira_judge repair 1 " : "judge mira_judge", 0) == 0);
    CHECK(line.find("1234/4320 28.6%") != std::string::npos);
  }
  // At 80 columns: the count, ETA and spend always; the errors only when they fit.
  const std::string eighty = format_progress_line(p, "answers", 80);
  CHECK(eighty.find("ETA 4m10s | $1.23") != std::string::npos);
  CHECK(format_progress_line(p, "answers", 200).find("errors: rate_limited 3, timeout 1") != std::string::npos);
  CHECK(format_progress_line(p, "answers", 200).find("openai paused 1m35s") != std::string::npos);
  // Room left over holds a bar, after the phase.
  CHECK(format_progress_line(p, "answers", 200).rfind("answers [########", 0) == 0);
  CHECK(format_progress_line(p, "answers", 30).find('[') == std::string::npos);
}
