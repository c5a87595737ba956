// curl_multi_client.cpp: libcurl multi implementation of HttpClient.
#include "runtime/http/curl_multi_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cmath>
#include <cctype>
#include <mutex>

namespace mirac {

const char* to_string(TransportError e) {
  switch (e) {
    case TransportError::none: return "none";
    case TransportError::connect: return "connect";
    case TransportError::timeout: return "timeout";
    case TransportError::reset: return "connection_reset";
    case TransportError::tls: return "tls";
    case TransportError::bad_url: return "bad_url";
    case TransportError::aborted: return "aborted";
    case TransportError::other: return "transport";
  }
  return "transport";
}

const std::string* HttpResponse::header(const std::string& lower_name) const {
  for (const auto& [k, v] : headers)
    if (k == lower_name) return &v;
  return nullptr;
}

struct CurlMultiClient::Transfer {
  std::uint64_t tag = 0;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  std::string body;  // must outlive the transfer: CURLOPT_POSTFIELDS does not copy
  HttpResponse response;
  std::size_t max_body = 0;
  bool too_large = false;

  ~Transfer() {
    if (headers) curl_slist_free_all(headers);
    if (easy) curl_easy_cleanup(easy);
  }
};

namespace {

// curl_global_init is not thread-safe on older libcurl and must run once per process;
// a function-local once flag is the narrowest way to guarantee that.
void global_init_once() {
  static std::once_flag flag;
  std::call_once(flag, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<CurlMultiClient::Transfer*>(user);
  size_t len = size * n;
  if (t->response.body.size() + len > t->max_body) {
    t->too_large = true;
    return 0;  // makes curl fail the transfer with CURLE_WRITE_ERROR
  }
  t->response.body.append(data, len);
  return len;
}

std::string trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<CurlMultiClient::Transfer*>(user);
  std::string line(data, size * n);
  // A new status line (after "100 Continue" or a redirect) starts a new header block.
  if (line.rfind("HTTP/", 0) == 0) {
    t->response.headers.clear();
    return size * n;
  }
  auto colon = line.find(':');
  if (colon == std::string::npos) return size * n;
  std::string name = line.substr(0, colon);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  t->response.headers.emplace_back(trim(name), trim(line.substr(colon + 1)));
  return size * n;
}

TransportError classify(CURLcode code) {
  switch (code) {
    case CURLE_OK: return TransportError::none;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT: return TransportError::connect;
    case CURLE_OPERATION_TIMEDOUT: return TransportError::timeout;
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_WEIRD_SERVER_REPLY: return TransportError::reset;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE: return TransportError::tls;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL: return TransportError::bad_url;
    default: return TransportError::other;
  }
}

}  // namespace

CurlMultiClient::CurlMultiClient(CurlOptions options) : options_(options) {
  global_init_once();
  multi_ = curl_multi_init();
  curl_multi_setopt(static_cast<CURLM*>(multi_), CURLMOPT_MAX_TOTAL_CONNECTIONS,
                    options_.max_total_connections);
  curl_multi_setopt(static_cast<CURLM*>(multi_), CURLMOPT_MAXCONNECTS,
                    options_.max_total_connections);
}

CurlMultiClient::~CurlMultiClient() {
  auto* m = static_cast<CURLM*>(multi_);
  for (auto& [easy, t] : transfers_) curl_multi_remove_handle(m, static_cast<CURL*>(easy));
  transfers_.clear();
  curl_multi_cleanup(m);
}

void CurlMultiClient::submit(std::uint64_t tag, HttpRequest request) {
  auto t = std::make_unique<Transfer>();
  t->tag = tag;
  t->max_body = request.max_body_bytes > 0 ? request.max_body_bytes : options_.max_body_bytes;
  const std::string method = request.method;
  t->body = std::move(request.body);
  t->easy = curl_easy_init();
  if (!t->easy) {
    HttpCompletion c{tag, {}};
    c.response.error = TransportError::other;
    c.response.error_message = "curl_easy_init failed";
    aborted_.push_back(std::move(c));
    return;
  }
  for (const auto& [k, v] : request.headers)
    t->headers = curl_slist_append(t->headers, (k + ": " + v).c_str());
  // Without this, curl waits for "100 Continue" on large bodies: a needless round trip.
  t->headers = curl_slist_append(t->headers, "Expect:");
  CURL* e = t->easy;
  curl_easy_setopt(e, CURLOPT_URL, request.url.c_str());
  if (method == "GET") {
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->body.data());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t->body.size()));
  }
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, t.get());
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_s * 1000));
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(request.connect_timeout_s * 1000));
  if (request.first_byte_timeout_s > 0) {
    // A server that accepted the request and then says nothing is caught well before the
    // total timeout: under 1 byte/s for this many seconds fails as a timeout.
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, static_cast<long>(std::ceil(request.first_byte_timeout_s)));
  }
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);  // signals are unsafe with many threads/handles
  curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  // A new connection is never re-sent by libcurl (it re-sends only on reused ones).
  curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, request.fresh_connection ? 1L : 0L);
  curl_easy_setopt(e, CURLOPT_PRIVATE, t.get());
  if (!options_.no_proxy.empty()) curl_easy_setopt(e, CURLOPT_NOPROXY, options_.no_proxy.c_str());
  curl_easy_setopt(e, CURLOPT_VERBOSE, 0L);  // verbose output would print the auth header
  CURLMcode rc = curl_multi_add_handle(static_cast<CURLM*>(multi_), e);
  if (rc != CURLM_OK) {
    HttpCompletion c{tag, {}};
    c.response.error = TransportError::other;
    c.response.error_message = curl_multi_strerror(rc);
    aborted_.push_back(std::move(c));
    return;
  }
  transfers_.emplace(e, std::move(t));
}

void CurlMultiClient::collect(std::vector<HttpCompletion>& out) {
  auto* m = static_cast<CURLM*>(multi_);
  int queued = 0;
  while (CURLMsg* msg = curl_multi_info_read(m, &queued)) {
    if (msg->msg != CURLMSG_DONE) continue;
    CURL* e = msg->easy_handle;
    CURLcode code = msg->data.result;
    auto it = transfers_.find(e);
    if (it == transfers_.end()) continue;
    Transfer& t = *it->second;
    HttpResponse& r = t.response;
    double total = 0;
    curl_easy_getinfo(e, CURLINFO_TOTAL_TIME, &total);
    r.total_time_s = total;
    if (code == CURLE_OK) {
      curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r.status);
    } else {
      r.error = t.too_large ? TransportError::other : classify(code);
      r.error_message = t.too_large ? "response body too large" : curl_easy_strerror(code);
      r.status = 0;
    }
    curl_multi_remove_handle(m, e);
    out.push_back(HttpCompletion{t.tag, std::move(r)});
    transfers_.erase(it);
  }
}

std::vector<HttpCompletion> CurlMultiClient::poll(double max_wait_s) {
  std::vector<HttpCompletion> out = std::move(aborted_);
  aborted_.clear();
  if (transfers_.empty()) return out;
  auto* m = static_cast<CURLM*>(multi_);
  int running = 0;
  curl_multi_perform(m, &running);
  collect(out);
  if (!out.empty()) return out;
  // Round up: waking a fraction of a millisecond early would only spin the caller's loop.
  int timeout_ms = static_cast<int>(std::ceil(std::clamp(max_wait_s, 0.0, 3600.0) * 1000));
  curl_multi_poll(m, nullptr, 0, timeout_ms, nullptr);
  curl_multi_perform(m, &running);
  collect(out);
  return out;
}

std::size_t CurlMultiClient::in_flight() const { return transfers_.size() + aborted_.size(); }

void CurlMultiClient::abort_all() {
  auto* m = static_cast<CURLM*>(multi_);
  for (auto& [easy, t] : transfers_) {
    curl_multi_remove_handle(m, static_cast<CURL*>(easy));
    HttpCompletion c{t->tag, std::move(t->response)};
    c.response.status = 0;
    c.response.error = TransportError::aborted;
    c.response.error_message = "aborted";
    aborted_.push_back(std::move(c));
  }
  transfers_.clear();
}

}  // namespace mirac
