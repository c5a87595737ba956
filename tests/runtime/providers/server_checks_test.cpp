// server_checks_test.cpp: the token limit sent in the field each server reads, and the
// marks of answers a server did not treat as asked: more output than the limit sent, or
// a prompt reported at far fewer tokens than any tokenizer gives it.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "runtime/providers/provider.hpp"
#include "runtime/providers/server_checks.hpp"

using namespace mirac;
using Json = nlohmann::json;

namespace {

std::string words(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "word ";
  return s;
}

ParsedAnswer usage(long long in, long long out) {
  ParsedAnswer a;
  a.input_tokens = in;
  a.output_tokens = out;
  return a;
}

}  // namespace

TEST_CASE("the token limit goes in the provider's token_limit_field") {
  ModelCall c = test::make_call("h", "q", "openai");
  CHECK(build_body(c).contains("max_completion_tokens"));
  c.token_limit_field = "max_tokens";  // the `local` preset: llama.cpp and Ollama read only this
  Json b = build_body(c);
  CHECK(b["max_tokens"] == 64);
  CHECK_FALSE(b.contains("max_completion_tokens"));
  ModelCall vllm = test::make_call("h", "q", "vllm");
  vllm.token_limit_field = "max_completion_tokens";
  CHECK(build_body(vllm)["max_completion_tokens"] == 64);
}

TEST_CASE("the limit sent: max_tokens, Anthropic's required default, or none") {
  ModelCall c = test::make_call("h", "q");
  CHECK(token_limit_sent(c) == 64);
  c.params.erase("max_tokens");
  CHECK_FALSE(token_limit_sent(c).has_value());
  c.protocol = WireProtocol::anthropic_messages;
  CHECK(token_limit_sent(c) == 4096);
}

TEST_CASE("fewest prompt tokens: a token per word, CJK at four characters a token, system prompt included") {
  ModelCall c = test::make_call("h", "Is it safe to take ibuprofen, with 2 glasses of wine?");
  CHECK(fewest_prompt_tokens(c) == 11);
  c.user = "布洛芬和酒一起吃安全吗";  // 11 ideographs
  CHECK(fewest_prompt_tokens(c) == 2);
  c.system = std::make_shared<const std::string>("You are careful.");
  CHECK(fewest_prompt_tokens(c) == 5);
}

TEST_CASE("fewest prompt tokens over a run: a shared system prompt counted once gives the same counts") {
  auto system = std::make_shared<const std::string>("You are careful. 请仔细回答每一个问题");  // 3 words, 10 ideographs
  PromptTokenFloor floor;
  for (const std::string user : {"Is ibuprofen safe?", "布洛芬和酒一起吃安全吗", "", "one two"}) {
    ModelCall c = test::make_call("h", user);
    c.system = system;
    CAPTURE(user);
    CHECK(floor(c) == fewest_prompt_tokens(c));
  }
  ModelCall other = test::make_call("h", "Is ibuprofen safe?");
  other.system = std::make_shared<const std::string>("Another system prompt, of seven words.");
  CHECK(floor(other) == fewest_prompt_tokens(other));
  ModelCall none = test::make_call("h", "no system prompt here");
  CHECK(floor(none) == 4);
}

TEST_CASE("server warnings: output past the limit, a prompt reported far shorter than it is") {
  ModelCall c = test::make_call("h", words(200));
  CHECK(server_warnings(c, usage(210, 64)).empty());  // at the limit, and a whole prompt
  CHECK(server_warnings(c, usage(210, 65)) == "limit_ignored");
  CHECK(server_warnings(c, usage(75, 12)) == "prompt_shortened");  // a context shift
  CHECK(server_warnings(c, usage(149, 4065)) == "limit_ignored prompt_shortened");
  CHECK(server_warnings(c, usage(0, 12)).empty());  // a server that reports no usage is not judged
  ModelCall short_prompt = test::make_call("h", words(40));
  CHECK(server_warnings(short_prompt, usage(5, 12)).empty());  // too short to tell
  c.params.erase("max_tokens");
  CHECK(server_warnings(c, usage(210, 100000)).empty());  // no limit was sent
}

TEST_CASE("has_warning matches whole codes only") {
  CHECK(has_warning("limit_ignored prompt_shortened", kPromptShortened));
  CHECK(has_warning("limit_ignored", kLimitIgnored));
  CHECK_FALSE(has_warning("", kLimitIgnored));
  CHECK_FALSE(has_warning("limit_ignored_not", kLimitIgnored));
}
