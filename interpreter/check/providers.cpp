// providers.cpp: `provider NAME { settings }`. The settings are read once into a typed
// ProviderSettings (each known setting with its type, and where it was written), and every
// check below reads that struct, not the JSON by key. The JSON itself stays in the Provider:
// the scheduler and the request builder read it (engine/send, interpreter/plan).
#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "interpreter/check/context.hpp"

namespace mirac {

namespace {

// One known setting: whether it was written, its value when it has the setting's type
// (given but no value: a value of another type), and where it was written.
template <typename T>
struct Setting {
  bool given = false;
  std::optional<T> value;
  SourceRange at;
  bool wrong_type() const { return given && !value; }
};

struct ProviderSettings {
  Setting<std::string> protocol, key_env, token_limit_field;
  Setting<std::string> base_url;                  // one URL
  Setting<std::vector<std::string>> base_urls;    // a list of URLs, each a non-empty string
  Setting<bool> structured_output;
  // Seconds.
  Setting<double> connect_timeout, first_byte_timeout, timeout, max_retry_after, max_pause, batch_poll;
  Setting<long long> max_attempts, batch_size, concurrency;
  Setting<double> rpm, tpm;  // requests and tokens per minute
  Setting<double> batch_price;  // the share of the list price a batch request costs
};

// Where `key` was written in the block (its value, else its name); the last one wins, as in
// the JSON.
SourceRange where_written(const ast::Block& block, const std::string& key, SourceRange fallback) {
  for (const auto& p : block.props)
    if (p.key.name == key) fallback = p.value ? p.value->range : p.key.range;
  return fallback;
}

template <typename T>
void read(Setting<T>& into, const nlohmann::json& s, const ast::Block& block, const char* key) {
  auto it = s.find(key);
  if (it == s.end()) return;
  into.given = true;
  into.at = where_written(block, key, block.range);
  if constexpr (std::is_same_v<T, std::string>) {
    if (it->is_string()) into.value = it->template get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (it->is_boolean()) into.value = it->template get<bool>();
  } else if constexpr (std::is_same_v<T, long long>) {
    if (it->is_number_integer()) into.value = it->template get<long long>();
  } else if constexpr (std::is_same_v<T, double>) {
    if (it->is_number()) into.value = it->template get<double>();
  }
}

ProviderSettings read_provider_settings(const nlohmann::json& s, const ast::Block& block) {
  ProviderSettings out;
  read(out.protocol, s, block, "protocol");
  read(out.key_env, s, block, "key_env");
  read(out.token_limit_field, s, block, "token_limit_field");
  read(out.base_url, s, block, "base_url");
  if (auto it = s.find("base_url"); it != s.end() && it->is_array()) {
    out.base_urls.given = true;
    out.base_urls.at = out.base_url.at;
    out.base_url = {};
    std::vector<std::string> urls;
    for (const auto& u : *it)
      if (u.is_string() && !u.get<std::string>().empty()) urls.push_back(u.get<std::string>());
    if (!urls.empty() && urls.size() == it->size()) out.base_urls.value = std::move(urls);
  }
  read(out.structured_output, s, block, "structured_output");
  read(out.connect_timeout, s, block, "connect_timeout");
  read(out.first_byte_timeout, s, block, "first_byte_timeout");
  read(out.timeout, s, block, "timeout");
  read(out.max_retry_after, s, block, "max_retry_after");
  read(out.max_pause, s, block, "max_pause");
  read(out.batch_poll, s, block, "batch_poll");
  read(out.max_attempts, s, block, "max_attempts");
  read(out.batch_size, s, block, "batch_size");
  read(out.concurrency, s, block, "concurrency");
  read(out.rpm, s, block, "rpm");
  read(out.tpm, s, block, "tpm");
  read(out.batch_price, s, block, "batch_price");
  return out;
}

bool is_variable_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

const std::set<std::string> kProtocols = {"openai_chat", "anthropic_messages"};

// Where requests go: the protocol, the URL or URLs, and the variable that holds the key.
void check_address(Provider& provider, const ProviderSettings& s, const ast::Ident& name, Diagnostics& diags) {
  if (s.protocol.given) provider.protocol = s.protocol.value.value_or("");
  if (!kProtocols.count(provider.protocol)) {
    diags.error(name.range, fmt::format("provider '{}' has an unknown protocol '{}'; expected openai_chat or "
                                        "anthropic_messages", name.name, provider.protocol));
  }
  if (s.base_url.value) {
    provider.base_url = *s.base_url.value;
  } else if (s.base_urls.given) {
    if (!s.base_urls.value)
      diags.error(name.range, fmt::format("provider '{}': base_url is a URL or a list of URLs, each a non-empty "
                                          "string", name.name));
    else provider.endpoints = *s.base_urls.value, provider.base_url = provider.endpoints.front();
  } else {
    diags.error(name.range, fmt::format("provider '{}' needs a base_url", name.name));
  }
  if (s.key_env.value) provider.key_env = *s.key_env.value;
}

// How requests are written: the reply schema and the field of the token limit.
void check_request_form(const Provider& provider, const ProviderSettings& s, const ast::Ident& name,
                        Diagnostics& diags) {
  if (s.structured_output.wrong_type())
    diags.error(name.range, fmt::format("provider '{}': structured_output is true (the server enforces a JSON "
                                        "schema sent as response_format) or false",
                                        name.name));
  if (!s.token_limit_field.given) return;
  bool anthropic = provider.protocol == "anthropic_messages";
  const auto& f = s.token_limit_field.value;
  bool valid = f && (*f == "max_tokens" || (!anthropic && *f == "max_completion_tokens"));
  if (!valid)
    diags.error(name.range, anthropic ? fmt::format("provider '{}': the Messages API reads the token limit from "
                                                    "max_tokens only; leave token_limit_field out", name.name)
                                      : fmt::format("provider '{}': token_limit_field is \"max_tokens\" (llama.cpp, "
                                                    "Ollama, vLLM and most compatible servers) or "
                                                    "\"max_completion_tokens\" (OpenAI)", name.name));
}

// Pacing, timeouts, retries and batches. The run would fall back to the default for any
// value out of range: say so instead.
void check_limits(const ProviderSettings& s, const ast::Ident& name, Diagnostics& diags) {
  auto seconds = [&](const Setting<double>& v, const char* key) {
    if (v.given && !(v.value && *v.value > 0))
      diags.error(name.range, fmt::format("provider '{}': {} must be a positive number of seconds", name.name, key));
  };
  auto whole = [&](const Setting<long long>& v, const char* key) {
    if (v.given && !(v.value && *v.value > 0))
      diags.error(name.range, fmt::format("provider '{}': {} must be a positive whole number", name.name, key));
  };
  seconds(s.connect_timeout, "connect_timeout");
  seconds(s.first_byte_timeout, "first_byte_timeout");
  seconds(s.timeout, "timeout");
  seconds(s.max_retry_after, "max_retry_after");
  seconds(s.max_pause, "max_pause");
  whole(s.max_attempts, "max_attempts");
  seconds(s.batch_poll, "batch_poll");
  whole(s.batch_size, "batch_size");
  // OpenAI's and Anthropic's batch price is 0.5.
  const auto& price = s.batch_price;
  if (price.given && !(price.value && *price.value > 0 && *price.value <= 1))
    diags.error(name.range, fmt::format("provider '{}': batch_price is the share of the list price a batch "
                                        "request costs, a number above 0 and at most 1 (0.5 for half price)",
                                        name.name));
  // These are checked at the setting: the scheduler would otherwise take a fraction or a
  // negative number for a limit, or a string for none.
  if (s.concurrency.given && !(s.concurrency.value && *s.concurrency.value > 0)) {
    diags.error(s.concurrency.at, fmt::format("provider '{}': concurrency must be a positive whole number (the "
                                              "requests in flight at once)", name.name));
    diags.note("for example: concurrency 8");
  }
  for (auto [v, key] : {std::pair{&s.rpm, "rpm"}, std::pair{&s.tpm, "tpm"}}) {
    if (!v->given || (v->value && *v->value > 0)) continue;
    diags.error(v->at, fmt::format("provider '{}': {} must be a positive number (the {} per minute the provider "
                                   "allows)", name.name, key, std::string_view(key) == "rpm" ? "requests" : "tokens"));
    diags.note(fmt::format("for example: {} {}", key, std::string_view(key) == "rpm" ? "60" : "100000"));
  }
}

}  // namespace

void check_providers(CheckContext& cx) {
  NameTable provider_names("provider", cx.diags);
  for (auto [d, p] : all_of<ast::ProviderDecl>(cx.decls)) {
    if (!provider_names.add(p->name)) continue;
    Provider provider{p->name.name, "openai_chat", "", "", block_json(p->settings, cx.diags), {}, p->name.range};
    const ProviderSettings s = read_provider_settings(provider.settings, p->settings);
    check_address(provider, s, p->name, cx.diags);
    check_request_form(provider, s, p->name, cx.diags);
    if (!provider.key_env.empty() && !is_variable_name(provider.key_env)) {
      // Most likely the key itself, pasted here by mistake: say so without showing it.
      cx.diags.error(p->name.range, fmt::format("provider '{}': key_env must name an environment variable (letters, "
                                                "digits and _, like OPENAI_API_KEY); its value is not one and may be a "
                                                "key, so it is not shown", p->name.name));
      provider.key_env.clear();
    }
    check_limits(s, p->name, cx.diags);
    cx.spec.providers[provider.name] = std::move(provider);
  }
}

}  // namespace mirac
