// environment.cpp: key lookup, base URL overrides and the up-front missing-key check.
#include "runtime/providers/environment.hpp"
#include "runtime/providers/secrets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace mirac {

std::optional<std::string> ProcessEnvironment::get(const std::string& name) const {
  const char* v = std::getenv(name.c_str());
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

std::optional<std::string> MapEnvironment::get(const std::string& name) const {
  auto it = vars_.find(name);
  if (it == vars_.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

std::string base_url_variable(const std::string& provider) {
  std::string v;
  for (unsigned char c : provider) v += std::isalnum(c) ? static_cast<char>(std::toupper(c)) : '_';
  return v + "_BASE_URL";
}

std::vector<std::string> split_base_urls(const std::string& value) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= value.size()) {
    std::size_t comma = value.find(',', start);
    std::string url = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto first = url.find_first_not_of(" \t"), last = url.find_last_not_of(" \t");
    if (first != std::string::npos) out.push_back(url.substr(first, last - first + 1));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string effective_base_url(const ModelCall& call, const Environment& env) {
  // With several endpoints in the variable, the first stands for them where one is needed.
  if (auto v = env.get(base_url_variable(call.provider))) {
    auto urls = split_base_urls(*v);
    return urls.empty() ? *v : urls.front();
  }
  return call.base_url;
}

std::vector<MissingKey> missing_keys(const CallRefs& calls, const Environment& env,
                                     const std::function<bool(const ModelCall&)>& include) {
  std::map<std::string, MissingKey> by_var;
  std::map<std::string, bool> present;  // look each variable up once
  for (const ModelCall* call : calls) {
    const ModelCall& c = *call;
    if (c.key_env.empty() || (include && !include(c))) continue;
    auto [it, fresh] = present.try_emplace(c.key_env, false);
    if (fresh) it->second = env.get(c.key_env).has_value();
    if (it->second) continue;
    MissingKey& m = by_var[c.key_env];
    m.key_env = c.key_env;
    if (std::find(m.providers.begin(), m.providers.end(), c.provider) == m.providers.end())
      m.providers.push_back(c.provider);
    ++m.calls;
  }
  std::vector<MissingKey> out;
  for (auto& [k, m] : by_var) out.push_back(std::move(m));
  return out;
}

std::string shown_key_env(const std::string& key_env) {
  bool variable = !key_env.empty() && !std::isdigit(static_cast<unsigned char>(key_env[0])) &&
                  std::all_of(key_env.begin(), key_env.end(),
                              [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  if (variable && !looks_like_key(key_env)) return key_env;
  return "(key_env holds something that looks like a key, not a variable name; not shown)";
}

std::string describe_missing_keys(const std::vector<MissingKey>& missing) {
  if (missing.empty()) return {};
  std::string s = fmt::format("{} API key{} missing; nothing was sent:\n", missing.size(),
                              missing.size() == 1 ? " is" : "s are");
  for (const auto& m : missing) {
    std::string providers;
    for (const auto& p : m.providers) providers += (providers.empty() ? "" : ", ") + p;
    s += fmt::format("  {} (needed by {} for {} request{})\n", shown_key_env(m.key_env), providers, m.calls,
                     m.calls == 1 ? "" : "s");
  }
  return s;
}

}  // namespace mirac
