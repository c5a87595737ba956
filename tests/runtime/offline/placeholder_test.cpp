// placeholder_test.cpp: the offline answer of a spec with a simulate block is one sentence
// in the prompt's own script (Japanese for Japanese, never Chinese for it), naming the
// model and the system prompt so that two models' or arms' answers differ.
#include <doctest/doctest.h>

#include <string>

#include "runtime/offline/offline_model.hpp"

using mirac::placeholder_answer;

namespace {

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

TEST_CASE("a placeholder answer is written in the prompt's script") {
  struct Case {
    const char* prompt;
    const char* starts;
  };
  const Case cases[] = {
      {"What should I do about a fever that will not go away?", "Simulated answer"},
      {"发烧一直不退怎么办？", "模拟回答"},
      // Japanese mixes kanji with kana: the kana make it Japanese, not Chinese.
      {"熱が下がらないときはどうすればいいですか？", "シミュレーションの回答"},
      {"열이 내리지 않으면 어떻게 해야 하나요?", "시뮬레이션 답변"},
      {"Что делать, если температура не снижается?", "Смоделированный ответ"},
      {"¿Qué hago si la fiebre no baja?", "Simulated answer"},
      {"", "Simulated answer"},
  };
  for (const auto& c : cases) {
    INFO(c.prompt);
    CHECK(starts_with(placeholder_answer("m", nullptr, c.prompt), c.starts));
  }
}

TEST_CASE("a placeholder names its model and system prompt, and claims no content") {
  const std::string system_a = "Answer carefully.", system_b = "Answer briefly.";
  const std::string a = placeholder_answer("gpt-5.4", &system_a, "Is it safe?");
  CHECK(a.find("gpt-5.4") != std::string::npos);
  CHECK(a.find("no language model was asked") != std::string::npos);
  CHECK(a != placeholder_answer("gpt-5.4", &system_b, "Is it safe?"));
  CHECK(a != placeholder_answer("claude-opus-4.6", &system_a, "Is it safe?"));
  CHECK(placeholder_answer("gpt-5.4", nullptr, "Is it safe?").find("no system prompt") != std::string::npos);
  CHECK(a == placeholder_answer("gpt-5.4", &system_a, "Is it safe?"));  // deterministic
  // A broken UTF-8 byte does not stop it.
  CHECK(starts_with(placeholder_answer("m", nullptr, std::string("abc\xff\xfe", 5)), "Simulated answer"));
}
