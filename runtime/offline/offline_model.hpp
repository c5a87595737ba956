// offline_model.hpp: the `offline` provider, answered inside mirac with no network and no
// key, so that a spec can be run end to end anywhere (the README's first command does).
// It is NOT a language model and its numbers measure nothing about any real model:
//  - a model whose name contains "judge" reads the judge request mirac builds (the rubric
//    in the system prompt, the answer and the checklist in the user message) and scores
//    the answer from countable features: disclaimer and referral sentences, sentences with
//    numbers, next-step sentences, and word overlap with the checklist;
//  - any other model writes a deterministic answer from the prompt: how much substance and
//    how much hedging it carries depends on the model name, the prompt's length and
//    script, and whether a system prompt is present, so that contrasts have something to
//    show.
// Replies use the OpenAI Chat Completions format, so the provider codec, store and
// scheduler treat them exactly like a real provider's.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/http/http_client.hpp"

namespace mirac {

/// Base URLs with this prefix are answered in-process.
inline constexpr const char* kOfflineScheme = "offline:";

/// The HTTP response the offline provider gives to an OpenAI Chat Completions request.
HttpResponse offline_respond(const HttpRequest& request);

/// The simulated answer for one prompt (exposed for tests).
std::string offline_answer(const std::string& model, const std::string* system, const std::string& user);
/// The heuristic judge's reply (a JSON object as text) for one judge request.
std::string offline_judgment(const std::string& system, const std::string& user);

/// Routes `offline:` URLs to offline_respond() and everything else to `network`.
class OfflineRoutingClient : public HttpClient {
 public:
  explicit OfflineRoutingClient(HttpClient& network) : network_(network) {}
  void submit(std::uint64_t tag, HttpRequest request) override;
  std::vector<HttpCompletion> poll(double max_wait_s) override;
  std::size_t in_flight() const override { return ready_.size() + network_.in_flight(); }
  void abort_all() override;

 private:
  HttpClient& network_;
  std::vector<HttpCompletion> ready_;
};

}  // namespace mirac
