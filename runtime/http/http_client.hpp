// http_client.hpp: the asynchronous HTTP interface the scheduler sends through. Abstract so
// tests can fake it; CurlMultiClient (curl_multi_client.hpp) is the real one.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mirac {

/// Header as (name, value). Response header names are lower-cased by the client.
using HttpHeader = std::pair<std::string, std::string>;

struct HttpRequest {
  std::string url;
  std::vector<HttpHeader> headers;  ///< may hold the API key: never log or store them
  std::string body;                 ///< sent as the POST body; ignored by a GET
  double timeout_s = 600;           ///< whole transfer, like the SDKs' default
  double connect_timeout_s = 10;
  double first_byte_timeout_s = 0;  ///< no byte received for this long fails it; 0: off
  /// The planned request's hash (ModelCall::hash). Never sent: an in-process transport (the
  /// offline provider) may answer by it.
  std::string request_hash = {};
  /// Which of its prompt's answers the request asks for (ModelCall::answer). Never sent: the
  /// offline provider draws a different answer for each, as a sampling model would.
  int answer = 0;
  /// Larger bodies fail as `other`; 0: the client's own cap. A batch's results file is
  /// far larger than any one answer.
  std::size_t max_body_bytes = 0;
  /// "POST" (every chat request) or "GET" (a batch's state and its results).
  std::string method = "POST";
  /// Sends it on a new connection. For a POST that must reach the server at most once per
  /// decision of mirac's (a batch's creation, a file's upload): libcurl sends a request
  /// again by itself, unlogged, when a reused connection dies before any byte of the
  /// answer, although the server may have carried it out.
  bool fresh_connection = false;
};

/// Why a transfer produced no HTTP response. `none` means an HTTP status arrived.
enum class TransportError {
  none,
  connect,    ///< could not resolve or connect
  timeout,    ///< the per-request timeout expired
  reset,      ///< connection closed or reset mid-transfer, or a truncated body
  tls,        ///< TLS handshake or certificate failure
  bad_url,    ///< malformed URL or unsupported scheme: retrying cannot help
  aborted,    ///< cancelled by us (abort_all)
  other,
};

const char* to_string(TransportError e);

struct HttpResponse {
  long status = 0;                   ///< 0 when error != none
  std::vector<HttpHeader> headers;   ///< names lower-cased, values trimmed
  std::string body;
  TransportError error = TransportError::none;
  std::string error_message;         ///< client's description; never contains headers
  double total_time_s = 0;           ///< as measured by the client

  /// First header with this (lower-case) name, or nullptr.
  const std::string* header(const std::string& lower_name) const;
};

struct HttpCompletion {
  std::uint64_t tag = 0;  ///< the tag given to submit()
  HttpResponse response;
};

/// Many transfers in flight on one thread: submit() queues, poll() drives them.
class HttpClient {
 public:
  virtual ~HttpClient() = default;
  /// Starts a transfer; returns at once. `tag` identifies it in poll() results.
  virtual void submit(std::uint64_t tag, HttpRequest request) = 0;
  /// Drives transfers for up to `max_wait_s` (less if one completes) and returns the
  /// finished ones. Returns at once when nothing is in flight.
  virtual std::vector<HttpCompletion> poll(double max_wait_s) = 0;
  /// Number of transfers submitted and not yet returned by poll().
  virtual std::size_t in_flight() const = 0;
  /// Stops every transfer; each is returned by the next poll() with error `aborted`.
  virtual void abort_all() = 0;
};

}  // namespace mirac
