// batch_store.hpp: the batches a run submitted, kept in the run store next to the answers
// (tables `batches`, `batch_requests`, `batch_systems`). A batch and every request in it
// are committed before anything is sent, and each step after (file uploaded, batch
// created, ended, collected) is committed as it happens: a run killed at any point finds
// its batches here and polls them, never paying for a request twice.
// Spec-free like the rest of the store: a batch holds its requests themselves, so its
// results can be stored even by a run whose plan no longer has them.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/model_call.hpp"

struct sqlite3;

namespace mirac {

class StoreConnection;

/// Where a batch is in its life, as the store records it.
namespace batch_state {
inline constexpr const char* preparing = "preparing";  ///< recorded; maybe uploaded or created, not known
inline constexpr const char* uploaded = "uploaded";    ///< OpenAI: input file uploaded (input_file_id)
inline constexpr const char* submitted = "submitted";  ///< created at the provider (remote_id): polled
inline constexpr const char* collected = "collected";  ///< ended, and every result stored
}  // namespace batch_state

struct BatchRecord {
  std::string local_id;  ///< "mb-<hex>": unique per store, sent as metadata (OpenAI)
  std::string provider, model;
  WireProtocol protocol = WireProtocol::openai_chat;
  std::string base_url, key_env;
  std::string state = batch_state::preparing;
  std::string remote_id, input_file_id;
  std::string remote_status;  ///< the provider's last word: in_progress, completed, ended, expired...
  std::size_t requests = 0, finished = 0;
  double created_at = 0, updated_at = 0;  ///< Unix seconds
  std::string message;  ///< what went wrong, if anything
};

struct BatchRequest {
  std::string custom_id;
  int attempt = 1;  ///< the request's attempt number across every batch and retry
  ModelCall call;
  std::string outcome;  ///< empty until collected: done, failed, resend
};

class BatchStore {
 public:
  /// Opens `<dir>/store.sqlite` (creating the tables when absent). Null with `error`.
  static std::unique_ptr<BatchStore> open(const std::filesystem::path& dir, std::string& error);
  /// Opens an existing store to read, creating nothing (`mirac status`): a store without
  /// the batch tables reads as one without batches.
  static std::unique_ptr<BatchStore> open_to_read(const std::filesystem::path& dir, std::string& error);
  ~BatchStore();
  BatchStore(const BatchStore&) = delete;
  BatchStore& operator=(const BatchStore&) = delete;

  /// Records a new batch and its requests in one transaction.
  bool create(const BatchRecord& batch, const std::vector<BatchRequest>& requests, std::string& error);
  /// Writes the batch's state, remote ids, status, counts and message.
  bool update(const BatchRecord& batch, std::string& error);
  /// Records the outcome of collected requests (and forgets their request, now in the
  /// answers), then marks the batch collected; one transaction.
  bool collect(const BatchRecord& batch, const std::vector<std::pair<std::string, std::string>>& outcomes,
               std::string& error);

  /// Every batch, oldest first; `open_only`: those not yet collected.
  std::vector<BatchRecord> batches(bool open_only);
  /// A batch's requests, with their calls (the call is empty once collected).
  std::vector<BatchRequest> requests(const std::string& local_id);
  /// Hashes held by batches not yet collected: not to be sent again while they run.
  std::unordered_set<std::string> hashes_in_open_batches();
  /// The highest attempt number each hash has had in any batch.
  std::unordered_map<std::string, int> attempts_by_hash();
  /// Whether a provider's batch id is already one of ours (adopting it twice would store it twice).
  bool knows_remote_id(const std::string& remote_id);

 private:
  BatchStore() = default;
  sqlite3* db() const;
  std::unique_ptr<StoreConnection> connection_;
};

}  // namespace mirac
