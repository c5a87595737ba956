// provider.hpp: wire codecs for the two protocols. Build the exact request from a
// ModelCall, and turn an HTTP response into an answer or a classified error.
// Formats follow /work/shared/reference/provider-protocols.md §1 (OpenAI Chat) and §4
// (Anthropic Messages).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/http/http_client.hpp"
#include "runtime/model_call.hpp"

namespace mirac {

/// A request ready to send. `headers` hold the API key; `body` never does.
struct ProviderRequest {
  std::string url;
  std::vector<HttpHeader> headers;
  std::string body;
  /// Adjustments made to fit the API (e.g. a temperature a model rejects was left out).
  std::vector<std::string> notes;
};

/// Builds the JSON body only (what the store records). Notes are appended to `notes`.
nlohmann::json build_body(const ModelCall& call, std::vector<std::string>* notes = nullptr);

/// The field an OpenAI-protocol body carries the token limit in (ModelCall::token_limit_field).
std::string openai_token_limit_field(const ModelCall& call);

/// The output-token limit the request sends: params.max_tokens, or the default mirac sends
/// where the API requires one (Anthropic). None when no limit is sent.
std::optional<long long> token_limit_sent(const ModelCall& call);

/// Endpoint URL for a base URL: `<base>/chat/completions` or `<base>[/v1]/messages`.
std::string endpoint_url(WireProtocol protocol, const std::string& base_url);

/// Content-Type, auth and version headers. `api_key` may be empty: no auth header then.
std::vector<HttpHeader> request_headers(WireProtocol protocol, const std::string& api_key);

/// Full request. `api_key` may be empty (keyless local servers): no auth header then.
ProviderRequest build_request(const ModelCall& call, const std::string& base_url,
                              const std::string& api_key);

/// What to do after a response.
enum class Verdict {
  ok,              ///< an answer arrived
  retry,           ///< transient: retry with backoff
  fatal_request,   ///< this request cannot succeed as is (400, 404, ...)
  fatal_provider,  ///< stop sending to this provider (quota, billing, auth)
};

const char* to_string(Verdict v);

/// Rate-limit state reported by the server; absent headers stay empty.
struct RateLimitInfo {
  std::optional<double> limit_requests, remaining_requests, reset_requests_s;
  std::optional<double> limit_tokens, remaining_tokens, reset_tokens_s;
};

struct ParsedAnswer {
  std::string text;
  std::string finish_reason;     ///< as sent: stop, length, end_turn, max_tokens, ...
  bool truncated = false;        ///< cut by the token limit
  bool refusal = false;
  std::string returned_model;
  std::string request_id;        ///< x-request-id or request-id header
  std::string system_fingerprint;
  long long input_tokens = 0;
  long long output_tokens = 0;
};

struct Interpretation {
  Verdict verdict = Verdict::retry;
  std::string cause;    ///< short stable code: rate_limited, insufficient_quota, http_500, ...
  std::string message;  ///< human-readable detail (server's error message when present)
  std::optional<double> retry_after_s;  ///< server-requested delay, if any header was valid
  ParsedAnswer answer;                  ///< filled when verdict == ok (ids also otherwise)
  RateLimitInfo limits;
};

/// Interprets a response of `protocol`. `wall_now_s` (Unix seconds) converts Anthropic's
/// absolute reset timestamps and HTTP-date retry-after values into delays.
Interpretation interpret(WireProtocol protocol, const HttpResponse& response, double wall_now_s);

/// retry-after-ms, then retry-after as seconds, then as an HTTP-date (SDK order, §6).
std::optional<double> parse_retry_after(const HttpResponse& response, double wall_now_s);

/// Go-style duration as in x-ratelimit-reset-*: "1s", "6m0s", "20ms", "2m59.56s".
std::optional<double> parse_duration(const std::string& text);

/// RFC 3339 UTC timestamp ("2025-08-21T12:40:59Z") to Unix seconds.
std::optional<double> parse_rfc3339(const std::string& text);

RateLimitInfo parse_rate_limits(const HttpResponse& response, double wall_now_s);

}  // namespace mirac
