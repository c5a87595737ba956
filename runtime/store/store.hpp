// store.hpp: the durable, content-addressed answer store (<run dir>/store.sqlite, WAL).
// A hash with a stored successful answer is never sent again; each answer is committed
// as it arrives, so a crash loses at most the requests in flight.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/store/hash_set.hpp"

namespace mirac {

/// One attempt at sending a request (the `attempts` table).
struct AttemptRecord {
  std::string hash;
  int attempt = 0;            ///< 1-based
  double started_at = 0;      ///< Unix seconds
  double ended_at = 0;
  long http_status = 0;       ///< 0 for transport errors
  std::string outcome;        ///< ok | retry | fatal_request | fatal_provider | aborted
  std::string cause;          ///< ok, rate_limited, timeout, insufficient_quota, ...
  std::string message;
  std::string provider_request_id;
  double retry_delay_s = 0;   ///< delay chosen before the next attempt (retries only)
  std::string response_body;  ///< raw body of failures (capped), for diagnosis
};

/// One request's final state (the `answers` table).
struct AnswerRecord {
  std::string hash;
  std::string status;  ///< done | failed
  std::string provider, model;
  std::string request_body;   ///< the JSON sent; never contains the key
  /// The hash of the answer whose text the request quotes (a judge's request), if any: the
  /// store keeps the request with a reference to that text instead of the text again.
  std::string quotes;
  std::string response_body;  ///< raw body of the final attempt
  long http_status = 0;
  std::string text, finish_reason;
  bool truncated = false;
  std::string returned_model, provider_request_id, system_fingerprint;
  long long input_tokens = 0, output_tokens = 0;
  double latency_s = 0;
  double started_at = 0, ended_at = 0;  ///< Unix seconds, of the final attempt
  double cost_usd = 0;
  std::string cause;    ///< failed: why; done: "ok"
  std::string message;
  int attempts = 0;
  /// What the server did not do (runtime/providers/server_checks.hpp), space-separated
  /// codes: `limit_ignored`, `prompt_shortened`. Empty for most answers.
  std::string warnings;
};

/// Status of a list of hashes.
struct StatusReport {
  std::size_t done = 0;
  std::size_t pending = 0;                     ///< neither done nor failed
  std::map<std::string, std::size_t> failed;  ///< by cause
  std::size_t failed_total() const;
};

class Store {
 public:
  /// Opens or creates `<dir>/store.sqlite` (creating `dir`). On failure returns null and
  /// sets `error` to a message naming the file.
  static std::unique_ptr<Store> open(const std::filesystem::path& dir, std::string& error);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::filesystem::path& path() const { return path_; }

  /// Takes the run lock (`<dir>/run.lock`, an flock the kernel drops if the process dies)
  /// so two runs on one store cannot both send (and pay for) the same requests. Idempotent:
  /// the lock belongs to this Store object and is held until it is destroyed, so a caller
  /// that keeps one Store across several phases (`mirac run`) holds it across all of them.
  /// False with a message naming the holder's pid when another process holds it.
  bool lock_for_run(std::string& error);

  /// Proves the store can take a write now (commits and deletes a probe row of a few
  /// answers' size), so a run on a full or read-only disk stops before it buys anything.
  bool check_writable(std::string& error);
  /// Stores the answers an earlier run spilled to the journal (journal.hpp) and removes
  /// the journal once they are committed. True when there was none; `imported` counts them.
  bool import_journal(std::size_t& imported, std::string& error);
  /// Caps the database at `pages` pages (PRAGMA max_page_count), as a quota would: writes
  /// past it fail with SQLITE_FULL. Tests use it to fill the store without filling a disk.
  bool cap_pages(long long pages);

  /// One read transaction over many reads (an export's look-ups one by one): SQLite then
  /// takes its file lock once, where each statement outside a transaction takes and drops
  /// it (a system call or three per look-up). Nothing when a transaction is open already.
  /// Writers are not held up (the store's journal is a write-ahead log), but the log is not
  /// folded back into the file while the read lasts: keep it to one command's reading.
  class ReadTransaction {
   public:
    explicit ReadTransaction(Store& store);
    ~ReadTransaction();
    ReadTransaction(const ReadTransaction&) = delete;
    ReadTransaction& operator=(const ReadTransaction&) = delete;

   private:
    Store& store_;
    bool began_ = false;
  };

  /// Hashes with a stored successful answer (loaded once per run to skip them).
  HashSet done_hashes();
  /// Those of `among` with a stored successful answer: a lookup each when they are few
  /// against the store (a judge phase's block of requests), else done_hashes()'s one scan,
  /// so that sending a store's worth of requests in blocks does not scan it once a block.
  HashSet done_hashes(const std::vector<std::string_view>& among);
  /// What a scan of every stored answer gives of each (scan_states). The views last for the
  /// call of the visitor only.
  struct ScannedAnswer {
    std::string_view hash;
    bool done = false;
    std::string_view cause;  ///< a failed answer's; empty for a done one
    double cost_usd = 0;
    bool truncated = false;    ///< Marks
    std::string_view warnings;  ///< Marks
  };
  /// Every stored answer's state, cost and marks, in one scan: for counting over a whole
  /// plan without copying 86,400 hashes into a set first, and without a scan for each of
  /// total_spend() and marked_answers() (`mirac status` needs all three).
  void scan_states(const std::function<void(const ScannedAnswer&)>& visit);
  bool is_done(const std::string& hash);

  /// Records a retried or aborted attempt on its own. False (with last_error()) on failure.
  bool record_attempt(const AttemptRecord& attempt);
  /// Records the final attempt and the answer in one transaction. A done answer is never
  /// overwritten; a failed one is replaced by a later success or failure.
  bool record_answer(const AnswerRecord& answer, const AttemptRecord& final_attempt);
  /// Stores answers produced elsewhere (`mirac import`), all in one transaction and without
  /// attempt rows. A hash that already has a done answer keeps it (counted in `skipped`);
  /// a failed one is replaced. False (with last_error(), nothing stored) on failure.
  bool import_answers(const std::vector<AnswerRecord>& answers, std::size_t& stored, std::size_t& skipped);

  /// Groups the writes until commit_batch() into one transaction: one disk sync for all
  /// the answers that arrived together, instead of one each. The scheduler commits each
  /// batch before it waits on the network again.
  bool begin_batch();
  bool commit_batch();  ///< on failure the whole batch is rolled back
  /// Drops every write since begin_batch() (after one of them failed).
  void rollback_batch();

  std::optional<AnswerRecord> answer(const std::string& hash);
  /// What judging reads of an answer (status, text, cause), without the request and
  /// response bodies that make answer() costly over tens of thousands of hashes.
  struct Brief {
    std::string status, text, cause;
    bool truncated = false;  ///< the reply was cut at its token limit
    std::string warnings;    ///< AnswerRecord::warnings
  };
  /// One answer's status, text and marks, read when asked (inside a ReadTransaction when
  /// there are many: a look-up each then costs about what one scan of the store did).
  /// Null: not stored.
  std::shared_ptr<const Brief> brief(const std::string& hash);
  /// A done answer that was cut at its token limit or carries the server's warnings.
  struct Marks {
    bool truncated = false;
    std::string warnings;
  };
  /// Every such answer, by hash, in one query (they are few): what status and reports count.
  std::unordered_map<std::string, Marks> marked_answers();
  /// As what and when a done answer came back: what results.json's manifest reports.
  struct Stamp {
    std::string returned_model;          ///< the model string the provider returned
    double started_at = 0, ended_at = 0;  ///< Unix seconds, of the final attempt
  };
  /// Every done answer's hash and stamp, in one query (without the bodies answer() reads).
  /// The hash's view lasts for the call of the visitor only.
  void scan_stamps(const std::function<void(std::string_view hash, const Stamp&)>& visit);
  std::vector<AttemptRecord> attempts(const std::string& hash);
  StatusReport status(const std::vector<std::string>& hashes);
  /// Sum of cost_usd over every stored answer (all runs sharing the store).
  double total_spend();

  const std::string& last_error() const { return last_error_; }

 private:
  Store() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::filesystem::path path_;
  std::string last_error_;
  bool in_batch_ = false;
  int lock_fd_ = -1;
};

}  // namespace mirac
