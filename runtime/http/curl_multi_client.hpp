// curl_multi_client.hpp: HttpClient over the libcurl multi interface. One thread drives
// every transfer (no thread per request); connections are reused across transfers.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "runtime/http/http_client.hpp"

namespace mirac {

struct CurlOptions {
  long max_total_connections = 256;  ///< cap on open connections (CURLMOPT_MAX_TOTAL_CONNECTIONS)
  std::size_t max_body_bytes = 64u << 20;  ///< larger responses fail as `other`
  /// Hosts never sent through an http(s)_proxy from the environment. Loopback is always
  /// direct so local servers (vLLM, Ollama, tests) work behind a corporate proxy.
  std::string no_proxy = "localhost,127.0.0.1,::1";
};

class CurlMultiClient final : public HttpClient {
 public:
  explicit CurlMultiClient(CurlOptions options = {});
  ~CurlMultiClient() override;
  CurlMultiClient(const CurlMultiClient&) = delete;
  CurlMultiClient& operator=(const CurlMultiClient&) = delete;

  void submit(std::uint64_t tag, HttpRequest request) override;
  std::vector<HttpCompletion> poll(double max_wait_s) override;
  std::size_t in_flight() const override;
  void abort_all() override;

  struct Transfer;  // defined in the .cpp

 private:
  void collect(std::vector<HttpCompletion>& out);

  CurlOptions options_;
  void* multi_ = nullptr;  // CURLM*, kept opaque so callers need not include curl.h
  std::map<void*, std::unique_ptr<Transfer>> transfers_;  // keyed by CURL*
  std::vector<HttpCompletion> aborted_;                   // returned by the next poll()
};

}  // namespace mirac
