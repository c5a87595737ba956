// json_string_test.cpp: append_json_string writes what nlohmann::json's dump() writes, on
// every kind of input (request hashes depend on it byte for byte), and fails as it fails.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/json/json_string.hpp"

namespace {

// nlohmann's serialisation, or "throws" when it refuses the text.
std::string by_nlohmann(const std::string& text) {
  try {
    return nlohmann::json(text).dump();
  } catch (const nlohmann::json::exception&) {
    return "throws";
  }
}

std::string by_mirac(const std::string& text) {
  std::string out = "prefix:";
  try {
    mirac::append_json_string(out, text);
  } catch (const nlohmann::json::exception&) {
    return "throws";
  }
  REQUIRE(out.rfind("prefix:", 0) == 0);  // appends, keeps what was there
  return out.substr(7);
}

}  // namespace

TEST_CASE("json strings: the escapes and UTF-8 forms nlohmann writes") {
  for (const std::string& text :
       {std::string(), std::string("plain"), std::string("\"quoted\" \\ back/slash"), std::string("\b\f\n\r\t"),
        std::string("\x01\x1f\x7f", 3), std::string("nul \0 inside", 12), std::string("每天两次 ibuprofen 400 mg"),
        std::string("😀 U+1F600"), std::string("\xF4\x8F\xBF\xBF"), std::string("\xED\x9F\xBF"),
        std::string("\xE0\xA0\x80")}) {
    CAPTURE(text);
    CHECK(by_mirac(text) == by_nlohmann(text));
  }
  // Refused alike: a lone continuation byte, an overlong form, a surrogate, past U+10FFFF,
  // a sequence cut short.
  for (const std::string& text : {std::string("a\x80"), std::string("\xC0\xAF"), std::string("\xED\xA0\x80"),
                                 std::string("\xF4\x90\x80\x80"), std::string("\xE4\xBD"), std::string("\xFF")}) {
    CAPTURE(text);
    CHECK(by_nlohmann(text) == "throws");
    CHECK(by_mirac(text) == "throws");
  }
}

TEST_CASE("json strings: agree with nlohmann on 20,000 random texts") {
  std::mt19937 rng(20261202);
  // Bytes weighted toward what decides the escaping: controls, quotes, lead and
  // continuation bytes of every length.
  const std::string alphabet = std::string("aZ09 \"\\/\b\f\n\r\t\x01\x1f\x7f", 16) +
                               "\xC2\xDF\xE0\xE4\xED\xEF\xF0\xF4\xF5\x80\x8F\x90\x9F\xA0\xBF\xC0\xFF";
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1), length(0, 24);
  std::size_t refused = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    for (std::size_t n = length(rng); n > 0; --n) text += alphabet[pick(rng)];
    const std::string want = by_nlohmann(text);
    refused += want == "throws";
    CAPTURE(text);
    REQUIRE(by_mirac(text) == want);
  }
  // Both kinds of input were tried.
  CHECK(refused > 1000);
  CHECK(refused < 19000);
}

TEST_CASE("json strings: pieces escaped one by one give the whole text escaped") {
  std::mt19937 rng(20261203);
  const std::string alphabet = std::string("aZ \"\\\n\t\x01", 8) + "每天两次😀";
  std::uniform_int_distribution<std::size_t> pick(0, 7), length(0, 12);
  // Whole characters only: a piece holds well-formed UTF-8, as every message part does.
  const std::vector<std::string> wide = {"每", "天", "😀"};
  for (int i = 0; i < 2000; ++i) {
    std::vector<std::string> pieces(3);
    for (auto& piece : pieces)
      for (std::size_t n = length(rng); n > 0; --n) {
        const std::size_t k = pick(rng);
        piece += k < 6 ? std::string(1, alphabet[k]) : wide[k - 6 + (n % 2)];
      }
    std::string whole, piecewise = "\"";
    mirac::append_json_string(whole, pieces[0] + pieces[1] + pieces[2]);
    for (const auto& piece : pieces) mirac::append_json_escaped(piecewise, piece);
    piecewise += '"';
    CAPTURE(pieces[0] + pieces[1] + pieces[2]);
    REQUIRE(piecewise == whole);
  }
}

TEST_CASE("json values: dump_json writes what dump() writes, request bodies and random documents alike") {
  nlohmann::json body = {{"model", "gpt-5.4"},
                         {"messages", {{{"role", "system"}, {"content", "Be \"careful\".\n每天两次 😀"}},
                                       {{"role", "user"}, {"content", std::string("ctl \x01\x1f end")}}}},
                         {"temperature", 0.7},
                         {"max_tokens", 1024},
                         {"seed", -3},
                         {"n", 18446744073709551615ull},
                         {"top_p", 1e-300},
                         {"stream", false},
                         {"stop", nullptr},
                         {"extra", {{"nested", {1, 2.5, "three", {{"k", true}}}}, {"empty", nlohmann::json::object()}}},
                         {"list", nlohmann::json::array()}};
  CHECK(mirac::dump_json(body) == body.dump());
  std::mt19937 rng(20261204);
  const std::vector<std::string> units = {"a", "Z", " ", "\"", "\\", "\n", std::string("\x01"), "每", "😀"};
  std::function<nlohmann::json(int)> random_value = [&](int depth) -> nlohmann::json {
    switch (rng() % (depth > 3 ? 5 : 7)) {
      case 0: return nullptr;
      case 1: return rng() % 2 == 0;
      case 2: return static_cast<int>(rng()) - 1000000;
      case 3: return std::ldexp(static_cast<double>(rng()), static_cast<int>(rng() % 80) - 40);
      case 4: {
        std::string text;
        for (std::size_t n = rng() % 10; n > 0; --n) text += units[rng() % units.size()];
        return text;
      }
      case 5: {
        nlohmann::json a = nlohmann::json::array();
        for (std::size_t n = rng() % 4; n > 0; --n) a.push_back(random_value(depth + 1));
        return a;
      }
      default: {
        nlohmann::json o = nlohmann::json::object();
        for (std::size_t n = rng() % 4; n > 0; --n) o["k" + std::to_string(rng() % 100) + "\"é"] = random_value(depth + 1);
        return o;
      }
    }
  };
  for (int i = 0; i < 2000; ++i) {
    const nlohmann::json doc = random_value(0);
    REQUIRE(mirac::dump_json(doc) == doc.dump());
  }
  // Invalid UTF-8 is refused as dump() refuses it.
  const nlohmann::json bad = {{"content", std::string("\xff")}};
  CHECK_THROWS_AS(bad.dump(), nlohmann::json::type_error);
  CHECK_THROWS_AS(mirac::dump_json(bad), nlohmann::json::type_error);
}
