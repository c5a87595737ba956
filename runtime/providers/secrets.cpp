#include "runtime/providers/secrets.hpp"

#include <array>
#include <cctype>

namespace mirac {

namespace {

// Prefixes providers give their keys; a run of key characters after one is a key.
constexpr std::array<std::string_view, 14> kKeyPrefixes = {
    "sk-ant-", "sk-proj-", "sk-or-", "sk-", "gsk_", "xai-", "AIza", "hf_", "pplx-", "r8_", "nvapi-", "ghp_",
    "github_pat_", "tgp_v1_"};
constexpr std::size_t kMinKeyBody = 16;

bool key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

// The length of the key starting at `i` (0 when none does): a prefix at a word start and
// enough key characters after it.
std::size_t key_at(std::string_view text, std::size_t i) {
  if (i > 0 && key_char(text[i - 1])) return 0;
  for (std::string_view prefix : kKeyPrefixes) {
    if (text.substr(i, prefix.size()) != prefix) continue;
    std::size_t end = i + prefix.size();
    while (end < text.size() && key_char(text[end])) ++end;
    if (end - i - prefix.size() >= kMinKeyBody) return end - i;
  }
  return 0;
}

std::string normalized(std::string_view name) {
  std::string out;
  for (char c : name)
    if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

bool is_credential_name(std::string_view name) {
  const std::string n = normalized(name);
  // OpenAI's prompt_cache_key routes requests to a cache; it names no credential.
  if (n == "promptcachekey" || n == "cachekey") return false;
  if (n == "auth" || n == "pwd" || n == "passwd" || n == "cookie") return true;
  for (std::string_view tail : {"key", "token", "secret", "password", "authorization", "credential", "credentials",
                                "bearer", "passphrase"})
    if (ends_with(n, tail)) return true;
  return false;
}

bool looks_like_key(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (key_at(text, i) > 0) return true;
  return false;
}

std::string mask_key_shapes(std::string text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::size_t len = key_at(text, i);
    if (len == 0) continue;
    // The first characters say which provider's key it is; the rest is hidden.
    for (std::size_t k = i + 3; k < i + len; ++k) text[k] = '*';
    i += len;
  }
  return text;
}

std::string redact_keys(std::string text, const std::vector<std::string>& keys) {
  for (const auto& key : keys) {
    if (key.size() < 4) continue;
    for (std::size_t pos = 0; (pos = text.find(key, pos)) != std::string::npos; pos += 10)
      text.replace(pos, key.size(), "[redacted]");
  }
  return text;
}

}  // namespace mirac
