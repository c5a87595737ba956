// run_store_writes.cpp: how a run keeps what it paid for. Answers are committed together
// before the loop waits on the network again; a store that refuses is retried, then the
// answers go to the journal beside it, which the next run imports before sending anything.
#include "runtime/scheduler/run.hpp"

#include "runtime/scheduler/answer_record.hpp"

#include "runtime/providers/secrets.hpp"

#include <fmt/format.h>

namespace mirac::scheduling {

bool Run::record_attempt(AttemptRecord a) {
  for (std::string* field : {&a.message, &a.provider_request_id, &a.response_body, &a.cause})
    *field = redact(std::move(*field));
  return store_.record_attempt(a);
}

void Run::keep(AnswerRecord answer, AttemptRecord attempt) {
  // Redacted before it is kept: the store and the journal both receive it from here.
  redact_answer(answer, attempt, [this](std::string s) { return redact(std::move(s)); });
  unsaved_.push_back(JournalEntry{std::move(answer), std::move(attempt)});
}

void Run::count_committed(const JournalEntry& e) {
  if (e.answer.status == "done") {
    ++sum_.stored;
    ++prog_.done;
  } else {
    ++sum_.failed;
    ++sum_.failed_by_cause[e.answer.cause];
    ++prog_.failed;
  }
}

bool Run::flush() {
  if (unsaved_.empty()) return true;
  // One transaction (one disk sync) for every answer that arrived together, and for those
  // an earlier write failed on. All or nothing, so the counts below are exactly what the
  // store holds: a batch that fails stays in unsaved_ whole and is tried again.
  bool ok = store_.begin_batch();
  for (const auto& e : unsaved_) ok = ok && store_.record_answer(e.answer, e.attempt);
  if (ok) ok = store_.commit_batch();
  else store_.rollback_batch();
  if (!ok) {
    store_failed(store_.last_error());
    return false;
  }
  for (const auto& e : unsaved_) count_committed(e);
  unsaved_.clear();
  return true;
}

void Run::spill_unsaved() {
  // The store still refuses: the journal beside it keeps what was paid for, and the next
  // run imports it before sending anything.
  if (unsaved_.empty()) return;
  const auto file = journal_path(store_.path().parent_path());
  std::string error;
  if (append_journal(file, unsaved_, error)) {
    sum_.journaled = unsaved_.size();
    std::string m = fmt::format(
        "{} answer(s) received could not be written to the store; kept in {} (the next run stores them first)",
        unsaved_.size(), file.string());
    sum_.messages.push_back(m);
    log(m);
  } else {
    sum_.lost = unsaved_.size();
    std::string m = fmt::format("{} answer(s) received could be written neither to the store nor to {}: {}",
                                unsaved_.size(), file.string(), error);
    sum_.messages.push_back(m);
    log(m);
  }
  unsaved_.clear();
}

void Run::store_failed(const std::string& what) {
  // Without a working store, answers would be paid for and lost: stop sending at once.
  if (sum_.fatal_error.empty()) {
    sum_.fatal_error = "cannot write to the store, stopped sending: " + what;
    log(sum_.fatal_error);
  }
  stopping_ = true;
  cancel_deadline_ = std::min(cancel_deadline_, ctx_.clock.now() + opt_.cancel_grace_s);
}

}  // namespace mirac::scheduling
