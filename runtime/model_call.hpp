// model_call.hpp: one request the plan asks the runtime to send. The contract between the
// compiler (interpreter/plan) and the runtime (scheduler, providers, store).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace mirac {

/// A text that many requests send, held once: a prompt goes to every model, arm and answer
/// of a plan, and a copy per request was a third of a ten-model plan's memory. Reads like
/// the string it holds; assigning or appending makes a text of its own.
class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string text) : text_(std::make_shared<const std::string>(std::move(text))) {}  // NOLINT: implicit
  SharedText(const char* text) : SharedText(std::string(text)) {}                                // NOLINT: implicit
  /// Shares `text` (null: empty).
  explicit SharedText(std::shared_ptr<const std::string> text) : text_(std::move(text)) {}

  const std::string& str() const { return text_ ? *text_ : empty_text(); }
  operator const std::string&() const { return str(); }  // NOLINT: implicit, reads as a string
  operator std::string_view() const { return str(); }    // NOLINT
  std::size_t size() const { return str().size(); }
  bool empty() const { return str().empty(); }
  std::size_t find(std::string_view what, std::size_t from = 0) const { return str().find(what, from); }
  std::size_t rfind(std::string_view what, std::size_t from = std::string::npos) const { return str().rfind(what, from); }
  void clear() { text_.reset(); }
  SharedText& operator+=(std::string_view more) {
    std::string joined = str();
    joined += more;
    return *this = SharedText(std::move(joined));
  }
  friend bool operator==(const SharedText& a, std::string_view b) { return a.str() == b; }
  friend std::string operator+(std::string a, const SharedText& b) { return a += b.str(); }

 private:
  static const std::string& empty_text() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> text_;
};

/// Generation parameters that many requests share: a plan's requests of one model, arm and
/// answer carry the same object, and a copy each (a map of a few nodes) was a fifth of a
/// ten-model plan's memory. Reads like the JSON object it holds; changing it (edit(), a
/// non-const `[]`, erase) gives this holder an object of its own first.
class SharedParams {
 public:
  SharedParams() = default;
  SharedParams(nlohmann::json params) : json_(std::make_shared<nlohmann::json>(std::move(params))) {}  // NOLINT: implicit
  SharedParams(nlohmann::json::initializer_list_t init) : SharedParams(nlohmann::json(init)) {}        // NOLINT: implicit

  const nlohmann::json& json() const { return json_ ? *json_ : empty_object(); }
  operator const nlohmann::json&() const { return json(); }  // NOLINT: implicit, reads as the object
  bool contains(std::string_view key) const { return json().contains(key); }
  const nlohmann::json& at(const std::string& key) const { return json().at(key); }
  const nlohmann::json& operator[](const std::string& key) const { return json().at(key); }
  nlohmann::json& operator[](const std::string& key) { return edit()[key]; }
  std::size_t erase(const std::string& key) { return edit().erase(key); }
  /// The object, to change: copied first when another holder shares it.
  nlohmann::json& edit() {
    if (!json_) json_ = std::make_shared<nlohmann::json>(nlohmann::json::object());
    else if (json_.use_count() > 1) json_ = std::make_shared<nlohmann::json>(*json_);
    return *json_;
  }
  friend bool operator==(const SharedParams& a, const nlohmann::json& b) { return a.json() == b; }

 private:
  static const nlohmann::json& empty_object() {
    static const nlohmann::json empty = nlohmann::json::object();
    return empty;
  }
  std::shared_ptr<nlohmann::json> json_;
};

/// Which wire format a provider speaks.
enum class WireProtocol { openai_chat, anthropic_messages };

/// Everything needed to send one chat request, and nothing secret: the API key is read
/// from the environment variable `key_env` at send time and never stored.
struct ModelCall {
  std::string hash;      ///< hex SHA-256 of the canonical request (see interpreter/plan)
  std::string provider;  ///< preset name: openai, anthropic, deepseek, dashscope, groq, gemini, local
  WireProtocol protocol = WireProtocol::openai_chat;
  SharedText base_url;   ///< e.g. https://api.openai.com/v1 (overridable by <PROVIDER>_BASE_URL); shared like `user`
  std::string key_env;   ///< e.g. OPENAI_API_KEY; empty for keyless local servers
  std::string model;     ///< model string sent to the API, e.g. gpt-5.4
  /// The body field that carries params.max_tokens on the OpenAI protocol: the provider's
  /// `token_limit_field`. OpenAI reads `max_completion_tokens`; llama.cpp's server, Ollama
  /// and most compatible servers read only `max_tokens`. Empty: `max_completion_tokens` for
  /// the provider named `openai`, else `max_tokens`. A wire detail like the base URL, so
  /// it is not part of the request's hash.
  std::string token_limit_field;
  /// The arm's system prompt, if any. Shared: one arm's prompt (often kilobytes) serves
  /// thousands of requests, and a copy each would dominate a plan's memory.
  std::shared_ptr<const std::string> system;
  SharedText user;                    ///< the prompt text (a plan's requests share their prompt's)
  /// Which of the prompt's answers this request asks for, 0 .. K-1 (the spec's `answers K`).
  /// From 1 on it is part of the canonical request, so the K requests are distinct, each
  /// stored and judged; answer 0's request is the one a spec without `answers` makes. It is
  /// not sent: with a `seed` setting the plan sends seed + answer instead.
  int answer = 0;
  /// Generation parameters from the spec: temperature, max_tokens, seed, top_p, and
  /// `extra` (an object merged into the request body verbatim).
  SharedParams params;
  /// Sent through the provider's batch API (`batch true` on its model or judge): half the
  /// price, within 24 hours. How it travels, not what it asks: not part of the hash.
  bool batch = false;
  /// The hash of the answer whose text `user` quotes (a judge's request), if any. Not part
  /// of the request or its hash: the store keeps the request with a reference to that text
  /// rather than the text again (AnswerRecord::quotes).
  std::string quotes;
};

/// Calls held elsewhere (a plan's requests), by address: the runtime reads them where they
/// are, instead of a copy of every call for the whole send phase.
using CallRefs = std::vector<const ModelCall*>;

/// The addresses of `calls`' elements.
inline CallRefs call_refs(const std::vector<ModelCall>& calls) {
  CallRefs out;
  out.reserve(calls.size());
  for (const ModelCall& c : calls) out.push_back(&c);
  return out;
}

}  // namespace mirac
