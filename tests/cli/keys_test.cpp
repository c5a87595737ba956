// keys_test.cpp: a key never leaves the environment. The fake provider echoes the key it
// receives (request-id header and answer text, on a 200 and on a 401); the canary must be
// nowhere in the store, the output or an export. A spec that holds a key, under any
// credential-like name or as a key-shaped value, is refused without printing the key.
#include <doctest/doctest.h>

#include <string>

#include "fake_server.hpp"
#include "mirac_binary.hpp"

namespace {

using mirac::test::invoke;
using mirac::test::kTestApiKey;
using mirac::test::TempDir;

std::string echo_spec() {
  return "audit keys { title \"keys\" }\nuse stdlib.providers\nseeds {\n"
         "  seed a { question = \"Repeat it [[fake echo=key]]\" }\n"
         "  seed b { question = \"And again [[fake echo=key]]\" }\n}\n"
         "prompt {\n  id \"{seed.id}\"\n  text seed.question\n}\n"
         "model gpt = openai(\"gpt-test\") { max_tokens 16 }\n";
}

// Every file under `dir` (the SQLite store, its WAL, results) holds no `needle`.
void check_absent_from(const std::filesystem::path& dir, const std::string& needle) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    INFO(entry.path().string());
    CHECK(mirac::test::read_text(entry.path()).find(needle) == std::string::npos);
  }
}

}  // namespace

TEST_CASE("a key the server echoes in a header or an answer is stored, printed and exported nowhere") {
  TempDir tmp("keys_echo");
  const std::string spec = tmp.write("keys.audit", echo_spec()), store = tmp.path("store");
  mirac::fake::FakeServerOptions options;
  options.openai_key = kTestApiKey;
  mirac::fake::FakeServer server(options);
  std::string error;
  REQUIRE(server.start(error));
  auto run = invoke({"run", spec, "--store", store}, server.base_url());
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  CHECK(server.stats().answered == 2);
  auto exported = invoke({"export", spec, "responses", "--store", store}, server.base_url());
  CHECK(exported.code == 0);
  CHECK(exported.out.find("[redacted]") != std::string::npos);  // the echo was there, and is masked
  auto to_file = invoke({"export", spec, "responses", "--store", store, "-o", tmp.path("answers.csv"), "--format", "csv"},
                        server.base_url());
  CHECK(to_file.code == 0);
  auto status = invoke({"status", spec, "--store", store, "--json"}, server.base_url());
  for (const auto* text : {&run.out, &run.err, &exported.out, &exported.err, &to_file.err, &status.out, &status.err})
    CHECK(text->find(kTestApiKey) == std::string::npos);
  check_absent_from(tmp.dir, kTestApiKey);
  server.stop();

  // A server that refuses the key (401) and echoes it in its request-id header.
  mirac::fake::FakeServerOptions strict;
  strict.openai_key = "sk-test-some-other-key";
  mirac::fake::FakeServer refusing(strict);
  REQUIRE(refusing.start(error));
  auto refused = invoke({"run", spec, "--store", tmp.path("refused")}, refusing.base_url());
  CHECK(refused.code == 4);
  CHECK(refusing.stats().by_status[401] >= 1);
  CHECK(refused.out.find(kTestApiKey) == std::string::npos);
  CHECK(refused.err.find(kTestApiKey) == std::string::npos);
  check_absent_from(tmp.dir, kTestApiKey);
  refusing.stop();
}

TEST_CASE("credential-like setting names and key-shaped values are refused, and the key is not printed") {
  TempDir tmp("keys_spec");
  const std::string key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123";
  auto spec_with = [&](const std::string& settings) {
    return "audit keys { title \"keys\" }\nuse stdlib.providers\nseeds {\n  seed a { question = \"Hi?\" }\n}\n"
           "prompt {\n  id \"{seed.id}\"\n  text seed.question\n}\n"
           "model gpt = openai(\"gpt-test\") {\n  max_tokens 16\n  " + settings + "\n}\n";
  };
  for (const std::string name : {"apiKey", "API_KEY", "Authorization", "access_token", "client_secret", "Password"}) {
    auto r = invoke({"check", tmp.write("name.audit", spec_with("extra { " + name + " \"not-a-key\" }"))});
    INFO(name << ": " << r.err);
    CHECK(r.code == 1);
    CHECK(r.err.find("'" + name + "' would hold a credential") != std::string::npos);
  }
  // max_tokens and key_env are not credentials: the spec above without extras is fine.
  CHECK(invoke({"check", tmp.write("fine.audit", spec_with("temperature 0"))}).code == 0);

  auto value = invoke({"check", tmp.write("value.audit", spec_with("extra { user \"" + key + "\" }"))});
  INFO(value.err);
  CHECK(value.code == 1);
  CHECK(value.err.find("the value of 'user' looks like an API key") != std::string::npos);
  CHECK(value.err.find("sk-*****") != std::string::npos);  // the quoted line, masked
  CHECK(value.err.find(key) == std::string::npos);
  CHECK(value.err.find("AbCdEfGh") == std::string::npos);

  auto named = invoke({"check", tmp.write("named.audit", spec_with("api_key \"" + key + "\""))});
  CHECK(named.code == 1);
  CHECK(named.err.find(key) == std::string::npos);
}

TEST_CASE("a key pasted into key_env is named as such and never printed") {
  TempDir tmp("keys_env");
  const std::string key = "sk-proj-ZyXwVuTsRqPoNmLkJiHgFeDcBa9876";
  const std::string base = "audit keys { title \"keys\" }\nseeds {\n  seed a { question = \"Hi?\" }\n}\n"
                           "prompt {\n  id \"{seed.id}\"\n  text seed.question\n}\n";
  auto shaped = invoke({"check", tmp.write("shaped.audit", base + "provider lab {\n  protocol openai_chat\n  base_url "
                                                                  "\"http://127.0.0.1:9/v1\"\n  key_env \"" + key +
                                                                  "\"\n}\nmodel m = lab(\"x\")\n")});
  INFO(shaped.err);
  CHECK(shaped.code == 1);
  CHECK(shaped.err.find("key_env must name the environment variable that holds the key") != std::string::npos);
  CHECK(shaped.err.find(key) == std::string::npos);
  // Not shaped like a known key, but no variable name either.
  const std::string odd = "Zq8.x7-Wp2+Lm4/Kd9";
  auto other = invoke({"check", tmp.write("odd.audit", base + "provider lab {\n  protocol openai_chat\n  base_url "
                                                              "\"http://127.0.0.1:9/v1\"\n  key_env \"" + odd +
                                                              "\"\n}\nmodel m = lab(\"x\")\n")});
  INFO(other.err);
  CHECK(other.code == 1);
  CHECK(other.err.find("key_env must name an environment variable") != std::string::npos);
  CHECK(other.err.find("may be a key, so it is not shown") != std::string::npos);
}
