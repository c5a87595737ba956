// journal.hpp: the spill file for answers the store could not take. When the store's disk
// is full or failing, an answer the provider was paid for must not vanish with the
// process: the scheduler keeps it in memory and retries the write, and what still cannot
// be written when the run ends is appended here (`<run dir>/unsaved-answers.jsonl`, one
// JSON object a line, fsync'd). The next run on the store imports the journal before it
// sends anything, so the answer is neither lost nor bought again.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "runtime/store/store.hpp"

namespace mirac {

/// One answer as the store would have recorded it: the answer and its final attempt.
struct JournalEntry {
  AnswerRecord answer;
  AttemptRecord attempt;
};

/// `<run dir>/unsaved-answers.jsonl`.
std::filesystem::path journal_path(const std::filesystem::path& run_dir);

/// Appends `entries` (opening or creating the file, O_APPEND) and syncs it to disk. False
/// with a message when any byte could not be written.
bool append_journal(const std::filesystem::path& file, const std::vector<JournalEntry>& entries, std::string& error);

/// Every complete line of the journal. A last line cut short by a crash while it was being
/// written is not an entry (counted in `unreadable`); neither is a line that is not one.
std::vector<JournalEntry> read_journal(const std::filesystem::path& file, std::size_t& unreadable);

}  // namespace mirac
