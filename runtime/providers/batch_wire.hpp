// batch_wire.hpp: the wire formats of the two batch APIs, at half the price of the same
// calls sent one by one: OpenAI Batch (a JSONL file uploaded to /files, a batch created on
// /batches, its output and error files downloaded) and Anthropic Message Batches (the
// requests inline, the results as JSONL). Formats follow
// /work/shared/reference/provider-protocols.md §3 and §4 "Message Batches API".
// Pure functions: requests to send and responses to read, no I/O.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/http/http_client.hpp"
#include "runtime/model_call.hpp"

namespace mirac {

/// Where a provider's batch API lives and how to reach it.
struct BatchEndpoint {
  WireProtocol protocol = WireProtocol::openai_chat;
  std::string base_url;  ///< as for the provider's chat requests
  std::string api_key;   ///< may be empty (keyless local servers)
};

/// One request of a batch: its id inside the batch and the exact JSON body it carries.
struct BatchItem {
  std::string custom_id;
  std::string body;  ///< build_body(call).dump(), the same bytes a request alone would send
};

/// The metadata key an OpenAI batch is created with, naming the store's own batch id: a
/// run killed between creating a batch and recording its id finds it again by this key.
inline constexpr const char* kBatchMetadataKey = "mirac_batch";

/// The id a request carries inside its batch: the store's batch id, the request's place
/// in it and the start of the request's hash, as `<local_id>_<index>_<hash>`, at most 64
/// characters of [A-Za-z0-9_-] (Anthropic's rule). A batch's results thereby prove whose
/// they are, and each line which request it answers.
std::string batch_custom_id(const std::string& local_id, std::size_t index, const std::string& request_hash);
/// The store's batch id a custom id names; "" for the older form ("r0"), which names none.
std::string batch_of_custom_id(const std::string& custom_id);
/// Whether a custom id agrees with the hash of the request stored under it (the older
/// form carries no hash: true).
bool custom_id_matches_hash(const std::string& custom_id, const std::string& request_hash);

/// OpenAI: the JSONL input file, one request per line, all for `/v1/chat/completions`.
std::string openai_batch_jsonl(const std::vector<BatchItem>& items);
/// OpenAI: POST <base>/files, multipart/form-data with purpose=batch and the JSONL file.
HttpRequest openai_upload_request(const BatchEndpoint& at, const std::string& jsonl, const std::string& local_id);
/// OpenAI: the File object's id, or none (with `error`) when the body is not one.
std::optional<std::string> openai_file_id(const std::string& body, std::string& error);
/// OpenAI: POST <base>/batches for the uploaded file, tagged with the store's batch id.
HttpRequest openai_create_request(const BatchEndpoint& at, const std::string& file_id, const std::string& local_id);
/// Anthropic: POST <base>/v1/messages/batches with every request inline.
HttpRequest anthropic_create_request(const BatchEndpoint& at, const std::vector<BatchItem>& items);

/// POST a request to cancel a batch (a duplicate that must not run).
HttpRequest batch_cancel_request(const BatchEndpoint& at, const std::string& remote_id);
/// GET the batch's state.
HttpRequest batch_poll_request(const BatchEndpoint& at, const std::string& remote_id);
/// GET one page of the account's batches, newest first (`after`: the last id of the page before).
HttpRequest batch_list_request(const BatchEndpoint& at, const std::string& after);
/// GET a results file: an OpenAI file's content, or an Anthropic batch's results.
HttpRequest batch_download_request(const BatchEndpoint& at, const std::string& url);

/// A batch as the provider reports it.
struct RemoteBatch {
  std::string id;
  std::string status;  ///< as sent: validating, in_progress, finalizing, completed, ended, ...
  bool ended = false;  ///< nothing more will happen: results (if any) can be read
  /// Validation failed (OpenAI `failed`): no request was run, none was billed.
  bool rejected = false;
  std::size_t total = 0, finished = 0;  ///< requests, and those with a result so far
  double created_at = 0;                ///< Unix seconds
  std::string metadata_id;              ///< OpenAI: metadata[kBatchMetadataKey], if any
  /// Where the results are: OpenAI's output and error files' content, Anthropic's results URL.
  std::vector<std::string> result_urls;
  std::string message;  ///< why it was rejected, when it was
};

/// Parses one batch object (a create or poll response).
std::optional<RemoteBatch> parse_remote_batch(WireProtocol protocol, const std::string& base_url,
                                              const std::string& body, std::string& error);
/// One page of a list response, and the id to continue after (empty: no more pages).
std::vector<RemoteBatch> parse_batch_list(WireProtocol protocol, const std::string& base_url,
                                          const std::string& body, std::string& next_after);

/// One line of a batch's results.
struct BatchResult {
  std::string custom_id;
  enum class Kind {
    response,   ///< the request ran: `response` holds what a request alone would have received
    expired,    ///< the batch's window closed before it ran: not billed, send it again
    cancelled,  ///< the batch was cancelled before it ran: not billed, send it again
    error,      ///< it could not run for another reason (`message`): not billed
  } kind = Kind::error;
  HttpResponse response;
  std::string message;
};

/// Parses a results file (JSONL). Lines that cannot be read are reported in `bad_lines`.
std::vector<BatchResult> parse_batch_results(WireProtocol protocol, const std::string& jsonl,
                                             std::size_t& bad_lines);

}  // namespace mirac
