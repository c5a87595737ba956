// run_plan.cpp: production wiring of the scheduler, and its user-facing text.
#include "runtime/scheduler/run_plan.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "runtime/http/curl_multi_client.hpp"
#include "runtime/offline/offline_model.hpp"

namespace mirac {

RunSummary run_plan(const std::vector<ModelCall>& calls, const std::filesystem::path& run_dir,
                    const SchedulerOptions& options, const std::atomic<bool>& cancel,
                    const RunHooks& hooks, std::uint64_t jitter_seed) {
  std::string error;
  auto store = Store::open(run_dir, error);
  if (!store) {
    RunSummary s;
    s.fatal_error = error;
    return s;
  }
  return run_plan(calls, *store, options, cancel, hooks, jitter_seed);
}

RunSummary run_plan(const std::vector<ModelCall>& calls, Store& store, const SchedulerOptions& options,
                    const std::atomic<bool>& cancel, const RunHooks& hooks, std::uint64_t jitter_seed) {
  return run_plan(call_refs(calls), store, options, cancel, hooks, jitter_seed);
}

RunSummary run_plan(const CallRefs& calls, Store& store, const SchedulerOptions& options,
                    const std::atomic<bool>& cancel, const RunHooks& hooks, std::uint64_t jitter_seed) {
  ProcessEnvironment process_environment;
  const Environment& env = options.environment ? *options.environment : process_environment;
  std::optional<CurlMultiClient> curl_client;  // only when the caller brought no transport
  if (!options.transport) {
    CurlOptions curl;
    // CURLOPT_NOPROXY replaces the NO_PROXY variable, so keep the user's list as well.
    for (const char* var : {"NO_PROXY", "no_proxy"})
      if (auto v = env.get(var)) curl.no_proxy += "," + *v;
    curl_client.emplace(curl);
  }
  HttpClient& network = options.transport ? *options.transport : *curl_client;
  OfflineRoutingClient http(network, options.offline_replies);  // the built-in `offline` provider never touches the network
  SystemClock clock;
  SeededRandom random(jitter_seed);
  SchedulerContext ctx{clock, random, env, cancel, hooks.on_progress, hooks.log};
  return execute(calls, store, http, options, ctx);
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  long s = std::lround(seconds);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

namespace {

std::string by_cause(const std::map<std::string, std::size_t>& m) {
  std::string out;
  for (const auto& [cause, n] : m) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", cause, n);
  return out;
}

/// "batches 2 running, 1 waiting (1200 requests)", or "" when no batch is open.
std::string open_batches(const Progress& p) {
  if (p.batches.empty()) return "";
  std::string out = "batches";
  for (const auto& [state, n] : p.batches) out += fmt::format("{} {} {}", out == "batches" ? "" : ",", n, state);
  return out + fmt::format(" ({} requests)", p.batch_requests);
}

}  // namespace

std::string format_progress(const Progress& p) {
  double pct = p.total ? 100.0 * static_cast<double>(p.done) / static_cast<double>(p.total) : 100.0;
  std::string s = fmt::format("{}/{} answered ({:.1f}%) | {:.1f}/s | ETA {} | ${:.2f}", p.done,
                              p.total, pct, p.rate_per_s, p.eta_s < 0 ? "?" : format_duration(p.eta_s),
                              p.spend_usd);
  if (p.failed) s += fmt::format(" | {} failed", p.failed);
  if (!p.batches.empty()) s += " | " + open_batches(p);
  if (!p.errors_by_cause.empty()) s += " | errors: " + by_cause(p.errors_by_cause);
  for (const auto& [provider, left] : p.paused_s)
    s += fmt::format(" | {} paused by the server, resumes in {}", provider, format_duration(left));
  return s;
}

std::string format_progress_line(const Progress& p, const std::string& phase, std::size_t columns) {
  const std::size_t room = columns > 1 ? columns - 1 : 0;
  const double share = p.total ? static_cast<double>(p.done) / static_cast<double>(p.total) : 1.0;
  std::string count = fmt::format("{}/{} {:.1f}%", p.done, p.total, 100 * share);
  // The phase gives way to the count on a narrow terminal.
  const std::size_t head_room = std::min<std::size_t>(28, room > count.size() + 1 ? room - count.size() - 1 : 0);
  std::string head = phase.size() > head_room ? phase.substr(0, head_room > 0 ? head_room - 1 : 0) + (head_room > 0 ? "~" : "") : phase;
  std::string line = head + (head.empty() ? "" : " ") + count;
  // The rest in order of importance; each goes in only if it fits.
  std::vector<std::string> parts = {"ETA " + (p.eta_s < 0 ? std::string("?") : format_duration(p.eta_s)),
                                    fmt::format("${:.2f}", p.spend_usd), fmt::format("{:.1f}/s", p.rate_per_s)};
  // While the provider works through its batches, they are what the line is about.
  if (!p.batches.empty()) parts.insert(parts.begin() + 2, open_batches(p));
  if (p.failed) parts.push_back(fmt::format("{} failed", p.failed));
  for (const auto& [provider, left] : p.paused_s)
    parts.push_back(fmt::format("{} paused {}", provider, format_duration(left)));
  if (!p.errors_by_cause.empty()) parts.push_back("errors: " + by_cause(p.errors_by_cause));
  std::string tail;
  for (const auto& part : parts)
    if (line.size() + tail.size() + 3 + part.size() <= room) tail += " | " + part;
  line += tail;
  // A bar in what is left, when there is room for a useful one.
  const std::size_t left = room > line.size() ? room - line.size() : 0;
  if (left >= 13) {
    const std::size_t width = std::min<std::size_t>(30, left - 3);
    const auto filled = std::min(width, static_cast<std::size_t>(static_cast<double>(width) * share));
    const std::string bar = "[" + std::string(filled, '#') + std::string(width - filled, '.') + "] ";
    line.insert(head.empty() ? 0 : head.size() + 1, bar);
  }
  return line.size() > room ? line.substr(0, room) : line;
}

std::string format_summary(const RunSummary& s) {
  if (!s.fatal_error.empty() && s.sent == 0 && s.total == 0) return "error: " + s.fatal_error + "\n";
  std::string out = fmt::format(
      "{} requests: {} already answered, {} sent ({} attempts), {} answered now, {} failed\n", s.total,
      s.skipped, s.sent, s.attempts, s.stored, s.failed);
  if (!s.failed_by_cause.empty()) out += "failed by cause: " + by_cause(s.failed_by_cause) + "\n";
  if (!s.not_sent.empty()) out += "not sent: " + by_cause(s.not_sent) + "\n";
  if (s.batched || s.batches_collected || s.batches_open)
    out += fmt::format("batches: {} request(s) submitted in new batches, {} batch(es) collected, {} still open at the provider\n",
                       s.batched, s.batches_collected, s.batches_open);
  out += fmt::format("spend this run: ${:.4f}", s.spend_usd);
  if (s.estimated_spend_usd > 0) out += fmt::format(" (plan estimate at most ${:.4f})", s.estimated_spend_usd);
  out += "\n";
  if (s.cancelled) out += "cancelled: run again to send the rest\n";
  for (const auto& m : s.messages) out += m + "\n";
  if (!s.fatal_error.empty()) out += "error: " + s.fatal_error + "\n";
  return out;
}

std::string format_status(const StatusReport& s) {
  std::string out = fmt::format("done {}, failed {}", s.done, s.failed_total());
  if (!s.failed.empty()) out += " (" + by_cause(s.failed) + ")";
  return out + fmt::format(", pending {}", s.pending);
}

}  // namespace mirac
