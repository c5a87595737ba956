// request_builder.cpp: ModelCall -> exact request body, URL and headers for each protocol.
#include <fmt/format.h>

#include "runtime/providers/provider.hpp"
#include "runtime/json/json_string.hpp"

namespace mirac {
namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string param_string(const nlohmann::json& params, const char* key) {
  // reasoning_effort may come as a plain param or inside extra.
  for (const nlohmann::json* obj : {&params, params.contains("extra") ? &params["extra"] : nullptr}) {
    if (obj && obj->is_object() && obj->contains(key) && (*obj)[key].is_string())
      return (*obj)[key].get<std::string>();
  }
  return {};
}

/// OpenAI reasoning models (o-series, gpt-5 family) reject any non-default temperature and
/// top_p with a 400 (doc §1 "Newer models"). gpt-5-chat* is a non-reasoning model, and
/// gpt-5.1/5.2 accept sampling only with reasoning_effort "none".
bool openai_rejects_sampling(const std::string& model, const nlohmann::json& params) {
  if (starts_with(model, "gpt-5-chat")) return false;
  if (starts_with(model, "gpt-5.1") || starts_with(model, "gpt-5.2"))
    return param_string(params, "reasoning_effort") != "none";
  return starts_with(model, "gpt-5") || starts_with(model, "o1") || starts_with(model, "o3") ||
         starts_with(model, "o4");
}

/// Claude Opus 4.7 and later removed sampling parameters: temperature gives a 400 (doc §4).
bool anthropic_rejects_temperature(const std::string& model) {
  return starts_with(model, "claude-opus-4-7") || starts_with(model, "claude-opus-4-8") ||
         starts_with(model, "claude-opus-5");
}

void note(std::vector<std::string>* notes, std::string text) {
  if (notes) notes->push_back(std::move(text));
}

constexpr const char* kKnownParams[] = {"temperature", "max_tokens", "seed", "top_p", "extra"};

void note_unknown_params(const nlohmann::json& params, std::vector<std::string>* notes) {
  for (const auto& [k, v] : params.items()) {
    bool known = false;
    for (const char* p : kKnownParams) known = known || k == p;
    if (!known) note(notes, fmt::format("parameter '{}' is not sent (put it in extra)", k));
  }
}

void merge_extra(nlohmann::json& body, const nlohmann::json& params) {
  if (!params.contains("extra")) return;
  const auto& extra = params["extra"];
  if (!extra.is_object()) return;
  for (const auto& [k, v] : extra.items()) body[k] = v;  // extra wins: it is verbatim
}

nlohmann::json openai_body(const ModelCall& call, std::vector<std::string>* notes) {
  const auto& p = call.params;
  nlohmann::json body = nlohmann::json::object();
  body["model"] = call.model;
  nlohmann::json messages = nlohmann::json::array();
  if (call.system) messages.push_back({{"role", "system"}, {"content", *call.system}});
  messages.push_back({{"role", "user"}, {"content", call.user.str()}});
  body["messages"] = std::move(messages);
  bool no_sampling = openai_rejects_sampling(call.model, p);
  for (const char* key : {"temperature", "top_p"}) {
    if (!p.contains(key)) continue;
    if (no_sampling)
      note(notes, fmt::format("{} omitted: {} accepts only the default (temperature=default(1))",
                              key, call.model));
    else
      body[key] = p[key];
  }
  if (p.contains("max_tokens")) body[openai_token_limit_field(call)] = p["max_tokens"];
  if (p.contains("seed")) body["seed"] = p["seed"];
  merge_extra(body, p);
  return body;
}

constexpr int kAnthropicDefaultMaxTokens = 4096;

nlohmann::json anthropic_body(const ModelCall& call, std::vector<std::string>* notes) {
  const auto& p = call.params;
  nlohmann::json body = nlohmann::json::object();
  body["model"] = call.model;
  if (p.contains("max_tokens")) {
    body["max_tokens"] = p["max_tokens"];
  } else {
    body["max_tokens"] = kAnthropicDefaultMaxTokens;  // required by the API
    note(notes, fmt::format("max_tokens not given: sent {}", kAnthropicDefaultMaxTokens));
  }
  if (call.system) body["system"] = *call.system;  // top level: not a message role
  body["messages"] = nlohmann::json::array({{{"role", "user"}, {"content", call.user.str()}}});
  bool has_temperature = p.contains("temperature");
  if (has_temperature) {
    if (anthropic_rejects_temperature(call.model)) {
      note(notes, fmt::format("temperature omitted: {} does not accept sampling parameters",
                              call.model));
      has_temperature = false;
    } else {
      body["temperature"] = p["temperature"];
    }
  }
  if (p.contains("top_p")) {
    // Newer Claude models answer 400 when both are given; temperature is the one specs vary.
    if (has_temperature)
      note(notes, "top_p omitted: Claude models reject temperature and top_p together");
    else
      body["top_p"] = p["top_p"];
  }
  if (p.contains("seed")) note(notes, "seed omitted: the Messages API has no seed");
  merge_extra(body, p);
  return body;
}

std::string strip_trailing_slashes(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string openai_token_limit_field(const ModelCall& call) {
  if (!call.token_limit_field.empty()) return call.token_limit_field;
  // OpenAI deprecated max_tokens and its reasoning models reject it; max_completion_tokens
  // works on every OpenAI model. Compatible servers (DeepSeek, DashScope, vLLM, llama.cpp,
  // Ollama) document max_tokens.
  return call.provider == "openai" ? "max_completion_tokens" : "max_tokens";
}

std::optional<long long> token_limit_sent(const ModelCall& call) {
  const auto& p = call.params;
  if (p.contains("max_tokens") && p["max_tokens"].is_number_integer()) return p["max_tokens"].get<long long>();
  if (call.protocol == WireProtocol::anthropic_messages) return kAnthropicDefaultMaxTokens;
  return std::nullopt;
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::ok: return "ok";
    case Verdict::retry: return "retry";
    case Verdict::fatal_request: return "fatal_request";
    case Verdict::fatal_provider: return "fatal_provider";
  }
  return "retry";
}

nlohmann::json build_body(const ModelCall& call, std::vector<std::string>* notes) {
  note_unknown_params(call.params, notes);
  return call.protocol == WireProtocol::openai_chat ? openai_body(call, notes)
                                                    : anthropic_body(call, notes);
}

std::string endpoint_url(WireProtocol protocol, const std::string& base_url) {
  std::string base = strip_trailing_slashes(base_url);
  if (protocol == WireProtocol::openai_chat) return base + "/chat/completions";
  // The Anthropic SDK's base URL has no /v1 (https://api.anthropic.com); accept both forms.
  return ends_with(base, "/v1") ? base + "/messages" : base + "/v1/messages";
}

std::vector<HttpHeader> request_headers(WireProtocol protocol, const std::string& api_key) {
  std::vector<HttpHeader> h;
  h.emplace_back("Content-Type", "application/json");
  if (protocol == WireProtocol::openai_chat) {
    if (!api_key.empty()) h.emplace_back("Authorization", "Bearer " + api_key);
  } else {
    if (!api_key.empty()) h.emplace_back("x-api-key", api_key);
    h.emplace_back("anthropic-version", "2023-06-01");
  }
  return h;
}

ProviderRequest build_request(const ModelCall& call, const std::string& base_url,
                              const std::string& api_key) {
  ProviderRequest r;
  r.url = endpoint_url(call.protocol, base_url);
  r.body = dump_json(build_body(call, &r.notes));
  r.headers = request_headers(call.protocol, api_key);
  return r;
}

}  // namespace mirac
