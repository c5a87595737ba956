// secrets_test.cpp: what counts as a credential name, a key-shaped value, and how keys are
// masked and redacted (runtime/providers/secrets.hpp), and the missing-key message for a
// key pasted into key_env.
#include <doctest/doctest.h>

#include "runtime/providers/environment.hpp"
#include "runtime/providers/secrets.hpp"

using namespace mirac;

TEST_CASE("credential-like names, whatever their case and separators; limits and key_env are not") {
  for (const char* name : {"key", "api_key", "apiKey", "APIKEY", "x-api-key", "token", "access_token", "authToken",
                           "secret", "client_secret", "password", "Authorization", "auth", "credentials"})
    CHECK_MESSAGE(is_credential_name(name), name);
  for (const char* name : {"max_tokens", "max_completion_tokens", "key_env", "top_k", "prompt_cache_key", "base_url",
                           "authority", "temperature"})
    CHECK_MESSAGE(!is_credential_name(name), name);
}

TEST_CASE("provider keys are recognised by shape, masked in place and redacted by value") {
  CHECK(looks_like_key("sk-ant-api03-abcdefghijklmnopqrstuvwxyz"));
  CHECK(looks_like_key("Bearer sk-proj-abcdefghijklmnop1234"));
  CHECK(looks_like_key("gsk_abcdefghijklmnopqrstuv"));
  CHECK(looks_like_key("AIzaSyAbCdEfGhIjKlMnOpQrSt"));
  CHECK(!looks_like_key("sk-short"));
  CHECK(!looks_like_key("task-abcdefghijklmnopqrstuvwxyz"));  // not at a word start
  CHECK(!looks_like_key("OPENAI_API_KEY"));
  const std::string line = "  api_key \"sk-abcdefghijklmnopqrstu\"";
  const std::string masked = mask_key_shapes(line);
  CHECK(masked == "  api_key \"sk-*********************\"");
  CHECK(masked.size() == line.size());
  CHECK(redact_keys("id req_secret-value-1 and secret-value-1", {"secret-value-1", "ab"}) ==
        "id req_[redacted] and [redacted]");
}

TEST_CASE("the missing-key message names a key pasted into key_env without printing it") {
  CHECK(shown_key_env("OPENAI_API_KEY") == "OPENAI_API_KEY");
  const std::string pasted = "sk-proj-abcdefghijklmnopqrstuvwx";
  const std::string message = describe_missing_keys({MissingKey{pasted, {"openai"}, 3}});
  CHECK(message.find(pasted) == std::string::npos);
  CHECK(message.find("looks like a key") != std::string::npos);
  CHECK(describe_missing_keys({MissingKey{"bad key!", {"lab"}, 1}}).find("bad key!") == std::string::npos);
}
