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

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/http/http_client.hpp"

namespace mirac {

/// Base URLs with this prefix are answered in-process.
inline constexpr const char* kOfflineScheme = "offline:";

/// One request to the offline provider, as its reply functions see it.
struct OfflineRequest {
  const std::string& request_hash;  ///< the planned request's hash (HttpRequest::request_hash)
  int answer = 0;                   ///< which of its prompt's answers (HttpRequest::answer)
  const std::string& model;         ///< the model string
  const std::string* system;        ///< the system prompt; null when there is none
  const std::string& user;          ///< the user message
};

/// What the offline provider replies to one request instead of its heuristics: the text of
/// the reply (an answer, or a judge's JSON), or nullopt for the heuristics. The engine
/// supplies it when the spec declares what simulated scores should be (a `simulate`
/// block); the runtime knows nothing of that.
using OfflineReplies = std::function<std::optional<std::string>(const OfflineRequest& request)>;

/// The HTTP response the offline provider gives to an OpenAI Chat Completions request.
HttpResponse offline_respond(const HttpRequest& request, const OfflineReplies& replies = {});

/// An answer that claims nothing: one sentence in the prompt's own script (Chinese,
/// Japanese, Korean, Cyrillic, Arabic, ..., else English) saying that no model was asked,
/// then the model and a digest of the system prompt, so that two models' or arms' answers to
/// one prompt differ and are judged apart.
/// Answer k > 0 of a prompt says which it is, so that a prompt's answers are judged apart.
std::string placeholder_answer(const std::string& model, const std::string* system, const std::string& user,
                               int answer = 0);

/// The simulated answer for one prompt (exposed for tests). Answer k > 0 of a prompt is
/// drawn from a stream of its own, as a model sampling again would answer.
std::string offline_answer(const std::string& model, const std::string* system, const std::string& user,
                           int answer = 0);
/// The heuristic judge's reply (a JSON object as text) for one judge request.
std::string offline_judgment(const std::string& system, const std::string& user);

/// Routes `offline:` URLs to offline_respond() and everything else to `network`.
class OfflineRoutingClient : public HttpClient {
 public:
  explicit OfflineRoutingClient(HttpClient& network, OfflineReplies replies = {})
      : network_(network), replies_(std::move(replies)) {}
  void submit(std::uint64_t tag, HttpRequest request) override;
  std::vector<HttpCompletion> poll(double max_wait_s) override;
  std::size_t in_flight() const override { return ready_.size() + network_.in_flight(); }
  void abort_all() override;

 private:
  HttpClient& network_;
  OfflineReplies replies_;
  std::vector<HttpCompletion> ready_;
};

}  // namespace mirac
