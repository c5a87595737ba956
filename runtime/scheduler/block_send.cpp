#include "runtime/scheduler/block_send.hpp"

#include <algorithm>
#include <filesystem>

#include "runtime/store/journal.hpp"

namespace mirac {

void add_summary(RunSummary& into, const RunSummary& more) {
  into.total += more.total;
  into.skipped += more.skipped;
  into.sent += more.sent;
  into.attempts += more.attempts;
  into.stored += more.stored;
  into.failed += more.failed;
  into.journaled += more.journaled;
  into.lost += more.lost;
  into.batched += more.batched;
  into.batches_collected += more.batches_collected;
  into.batches_open += more.batches_open;
  for (const auto& [cause, n] : more.failed_by_cause) into.failed_by_cause[cause] += n;
  for (const auto& [why, n] : more.not_sent) into.not_sent[why] += n;
  into.spend_usd += more.spend_usd;
  into.estimated_spend_usd += more.estimated_spend_usd;
  into.cancelled = into.cancelled || more.cancelled;
  into.budget_exhausted = into.budget_exhausted || more.budget_exhausted;
  into.messages.insert(into.messages.end(), more.messages.begin(), more.messages.end());
  if (into.fatal_error.empty()) into.fatal_error = more.fatal_error;
}

namespace {

// `more`'s counts of calls and spend added to `into`'s.
void add_progress(Progress& into, const Progress& more) {
  into.total += more.total;
  into.done += more.done;
  into.skipped += more.skipped;
  into.failed += more.failed;
  into.retries += more.retries;
  into.spend_usd += more.spend_usd;
  for (const auto& [cause, n] : more.errors_by_cause) into.errors_by_cause[cause] += n;
}

}  // namespace

BlockSend::BlockSend(Store& store, const SchedulerOptions& options, const std::atomic<bool>& cancel,
                     const RunHooks& hooks, std::string phase, std::size_t block_calls, Clock* clock)
    : store_(store), options_(options), cancel_(cancel), hooks_(hooks), phase_(std::move(phase)),
      block_calls_(std::max<std::size_t>(block_calls, 1)), clock_(clock ? *clock : system_clock_) {
  // An earlier run's journal is stored by the first block's scheduler; answers in it may be
  // for calls of later blocks, which must then look in the store after all.
  if (options_.calls_not_answered && std::filesystem::exists(journal_path(store.path().parent_path())))
    options_.calls_not_answered = false;
}

void BlockSend::add(ModelCall call) {
  ++added_;
  if (stopped_) {
    summary_.not_sent[stop_reason_] += 1;
    return;
  }
  // A provider that stopped in an earlier block (its quota spent, say) is not asked again.
  // Most phases have no such reason to check, so the name is only made when one is there.
  if (!summary_.not_sent.empty()) {
    const std::string stopped_here = "provider_stopped:" + call.provider;
    if (auto it = summary_.not_sent.find(stopped_here); it != summary_.not_sent.end()) {
      it->second += 1;
      return;
    }
  }
  batched_ = batched_ || sends_in_batch(call, options_);
  block_.push_back(std::move(call));
  if (!batched_ && block_.size() >= block_calls_) send_block();
}

void BlockSend::skip(std::size_t n) {
  added_ += n;
  summary_.total += n;
  summary_.skipped += n;
  before_.total += n;
  before_.done += n;
  before_.skipped += n;
}

void BlockSend::report(const Progress& block, bool last) {
  if (!hooks_.on_progress) return;
  Progress p = block;
  add_progress(p, before_);
  p.total = std::max(expected_, p.total);
  p.elapsed_s = clock_.now() - started_;
  const double answered = static_cast<double>(p.done - std::min(p.done, p.skipped));
  p.rate_per_s = p.elapsed_s > 0 ? answered / p.elapsed_s : 0;
  const std::size_t left = p.total - std::min(p.total, p.done + p.failed);
  p.eta_s = p.rate_per_s > 0 ? static_cast<double>(left) / p.rate_per_s : -1;
  for (const auto& [provider, seconds] : p.paused_s)
    if (p.eta_s >= 0) p.eta_s = std::max(p.eta_s, seconds);
  p.final = block.final && last;
  last_ = p;
  hooks_.on_progress(p);
}

void BlockSend::send_block() {
  if (block_.empty()) return;
  if (!any_sent_) {
    if (hooks_.on_phase) hooks_.on_phase(phase_);
    started_ = clock_.now();
    any_sent_ = true;
  }
  std::vector<ModelCall> calls = std::move(block_);
  block_ = {};
  const bool last = finishing_;
  RunHooks hooks = hooks_;
  Progress final_progress;
  hooks.on_progress = [this, last, &final_progress](const Progress& p) {
    if (p.final) final_progress = p;
    report(p, last);
  };
  RunSummary sent = run_plan(calls, store_, options_, cancel_, hooks);
  calls = {};
  if (options_.budget_usd) *options_.budget_usd = std::max(0.0, *options_.budget_usd - sent.spend_usd);
  add_progress(before_, final_progress);
  add_summary(summary_, sent);
  if (sent.cancelled || sent.budget_exhausted || !sent.fatal_error.empty()) {
    stopped_ = true;
    stop_reason_ = sent.cancelled ? "cancelled" : sent.budget_exhausted ? "budget" : "store_error";
  }
}

RunSummary BlockSend::finish() {
  finishing_ = true;
  send_block();
  // The last block sent nothing (it was empty): the line the phase drew still needs its end.
  if (last_ && !last_->final && hooks_.on_progress) {
    last_->final = true;
    hooks_.on_progress(*last_);
  }
  // Nothing was left to send, only answers found stored: the phase still says so, as a
  // scheduler that skipped them all would.
  if (!any_sent_ && before_.total > 0 && hooks_.on_progress) {
    if (hooks_.on_phase) hooks_.on_phase(phase_);
    Progress p = before_;
    p.final = true;
    hooks_.on_progress(p);
  }
  return std::move(summary_);
}

}  // namespace mirac
