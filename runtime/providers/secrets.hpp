// secrets.hpp: what an API key looks like, so that one is never stored, printed or accepted
// where it does not belong. Keys come from the environment only (key_env); these tests catch
// one pasted into a spec, into key_env, or echoed back by a server.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mirac {

/// A setting name that would hold a credential (key, token, secret, password,
/// authorization, api_key, apiKey, x-api-key, ...), compared case-insensitively and
/// ignoring '_' and '-'. Names of limits (max_tokens) and key_env are not credentials.
bool is_credential_name(std::string_view name);

/// Text that has the shape of a provider's key: a known prefix (sk-, sk-ant-, gsk_, xai-,
/// AIza, hf_, pplx-, r8_, nvapi-, ...) followed by at least 16 key characters.
bool looks_like_key(std::string_view text);

/// `text` with every key-shaped run masked to its prefix and '*' (the same length, so a
/// caret under the line still lines up).
std::string mask_key_shapes(std::string text);

/// `text` with every occurrence of each of `keys` (values shorter than 4 characters
/// ignored: they would match anywhere) replaced by "[redacted]".
std::string redact_keys(std::string text, const std::vector<std::string>& keys);

}  // namespace mirac
