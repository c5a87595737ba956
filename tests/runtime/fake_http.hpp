// fake_http.hpp: an in-memory HttpClient on a ManualClock, for deterministic scheduler
// tests. A handler decides each response; poll() advances fake time to the next completion.
#pragma once

#include <functional>
#include <map>

#include "helpers.hpp"
#include "runtime/http/http_client.hpp"

namespace mirac::test {

class FakeHttp final : public HttpClient {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&, int nth)>;
  FakeHttp(ManualClock& clock, Handler handler, double latency_s = 0.1)
      : clock_(clock), handler_(std::move(handler)), latency_(latency_s) {}

  void submit(std::uint64_t tag, HttpRequest request) override {
    sends.push_back({clock_.now(), request});
    const int nth = static_cast<int>(sends.size());
    auto own = latency_of_nth.find(nth);
    pending_.emplace(clock_.now() + (own != latency_of_nth.end() ? own->second : latency_),
                     HttpCompletion{tag, handler_(request, nth)});
    max_in_flight = std::max(max_in_flight, pending_.size());
  }
  std::vector<HttpCompletion> poll(double max_wait_s) override {
    std::vector<HttpCompletion> out = std::move(ready_);
    ready_.clear();
    if (pending_.empty() || !out.empty()) return out;
    // A scheduler that polls without waiting while nothing can complete would spin on a
    // real client; here it would loop forever, so after many such polls time moves on
    // and the test sees the count instead of hanging.
    if (max_wait_s <= 0 && ++idle_polls > 1000) max_wait_s = pending_.begin()->first - clock_.now();
    double until = clock_.now() + max_wait_s;
    if (pending_.begin()->first > until) {
      clock_.advance(max_wait_s);
      return out;
    }
    clock_.advance(std::max(0.0, pending_.begin()->first - clock_.now()));
    while (!pending_.empty() && pending_.begin()->first <= clock_.now()) {
      out.push_back(std::move(pending_.begin()->second));
      pending_.erase(pending_.begin());
    }
    return out;
  }
  std::size_t in_flight() const override { return pending_.size() + ready_.size(); }
  void abort_all() override {
    for (auto& [t, c] : pending_) {
      c.response = HttpResponse{};
      c.response.error = TransportError::aborted;
      aborted.push_back(c);
      ready_.push_back(c);
    }
    pending_.clear();
  }

  struct Sent {
    double at;
    HttpRequest request;
  };
  std::vector<Sent> sends;
  std::vector<HttpCompletion> aborted;
  std::size_t max_in_flight = 0;
  std::size_t idle_polls = 0;  ///< polls with no wait while transfers were pending
  std::map<int, double> latency_of_nth;  ///< latency of the nth send (1-based), else the default

 private:
  ManualClock& clock_;
  Handler handler_;
  double latency_;
  std::multimap<double, HttpCompletion> pending_;
  std::vector<HttpCompletion> ready_;  // aborted, returned by the next poll()
};

inline HttpResponse ok_openai(const std::string& text = "fine", long long in = 10, long long out = 20) {
  HttpResponse r;
  r.status = 200;
  r.headers = {{"x-request-id", "req_1"}};
  r.body = nlohmann::json{{"model", "gpt-4.1-mini-2025"},
                          {"choices", {{{"message", {{"content", text}}}, {"finish_reason", "stop"}}}},
                          {"usage", {{"prompt_tokens", in}, {"completion_tokens", out}}}}
               .dump();
  return r;
}

inline HttpResponse status_response(long status, std::string body, std::vector<HttpHeader> headers = {}) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.headers = std::move(headers);
  return r;
}

}  // namespace mirac::test
