// audit_tokens.cpp: the tokens of .audit files as the real PEGTL grammar sees them, as JSON,
// so that tests/editors/grammar_test.mjs can hold the TextMate grammar of editors/vscode/ to
// the parser rather than to a second hand-written idea of the language.
//
//   audit_tokens FILE...  ->  [{"file": F, "parsed": true, "tokens": [{"kind", "text",
//                              "begin", "end"}, ...]}, {"file": G, "parsed": false, "error": M}]
//
// Kinds: "keyword" (every TAO_PEGTL_KEYWORD the parse used, reserved words included),
// "comment", "string" (both quote forms, quotes included), "number", and "name" (a name
// read by an expression). begin and end are byte offsets into the file.
//
// The grammar backtracks, so a keyword matched inside an alternative that later fails (or
// inside a look-ahead such as the `not_at<bol, declaration_keyword>` that guards names) is
// not a token: every rule's start remembers how many tokens there were, and its failure
// drops the ones recorded since.
#include <cstddef>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "grammar/errors.hpp"
#include "grammar/grammar.hpp"

// Keyword rules are instances of ascii::keyword<'f','r','o','m'> or structs derived from
// one (kw_and, true_lit); overload resolution finds the base either way. (Declared only, for
// decltype, outside the anonymous namespace: there -Wunused-function rejects a declaration
// that is never defined.)
namespace rule_traits {
namespace pegtl = tao::pegtl;
template <char... Cs>
std::true_type keyword_base(const pegtl::ascii::keyword<Cs...>*);
std::false_type keyword_base(...);
template <typename Rule>
constexpr bool is_keyword = decltype(keyword_base(static_cast<const Rule*>(nullptr)))::value;

template <typename... Rules>
std::true_type at_base(const pegtl::internal::at<Rules...>*);
std::false_type at_base(...);
template <typename Rule>
constexpr bool is_lookahead = decltype(at_base(static_cast<const Rule*>(nullptr)))::value;
}  // namespace rule_traits

namespace {

namespace g = mirac::grammar;
namespace pegtl = tao::pegtl;

struct Token {
  const char* kind;
  std::size_t begin;
  std::size_t end;
};

struct Recorder {
  const char* text_begin = nullptr;
  std::vector<Token> tokens;
  struct Mark {
    std::size_t tokens;
    const char* at;
  };
  std::vector<Mark> marks;
};

template <typename Rule>
constexpr const char* token_kind() {
  if constexpr (rule_traits::is_keyword<Rule>) {
    return "keyword";
  } else if constexpr (std::is_same_v<Rule, g::line_comment> || std::is_same_v<Rule, g::block_comment>) {
    return "comment";
  } else if constexpr (std::is_base_of_v<g::string_lit, Rule>) {
    return "string";
  } else if constexpr (std::is_base_of_v<g::number, Rule>) {
    return "number";
  } else if constexpr (std::is_same_v<Rule, g::name>) {
    return "name";
  } else {
    return nullptr;
  }
}

template <typename Rule>
struct recording : pegtl::normal<Rule> {
  template <typename Input>
  static void start(const Input& in, Recorder& r) {
    r.marks.push_back({r.tokens.size(), in.current()});
  }
  template <typename Input>
  static void success(const Input& in, Recorder& r) {
    Recorder::Mark mark = r.marks.back();
    r.marks.pop_back();
    // What a look-ahead matched is not consumed, so it is no token.
    if constexpr (rule_traits::is_lookahead<Rule>) {
      r.tokens.resize(mark.tokens);
    } else if constexpr (constexpr const char* kind = token_kind<Rule>(); kind != nullptr) {
      r.tokens.push_back({kind, static_cast<std::size_t>(mark.at - r.text_begin),
                          static_cast<std::size_t>(in.current() - r.text_begin)});
    }
  }
  template <typename Input>
  static void failure(const Input&, Recorder& r) {
    r.tokens.resize(r.marks.back().tokens);
    r.marks.pop_back();
  }
};

template <typename Rule>
using control = pegtl::must_if<g::error_table, recording>::control<Rule>;

using whole_file = pegtl::seq<g::ws, pegtl::until<pegtl::eof, g::one_declaration>>;

nlohmann::json tokens_of(const std::string& path) {
  nlohmann::json result = {{"file", path}};
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    result["parsed"] = false;
    result["error"] = "cannot read the file";
    return result;
  }
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::size_t skip = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;  // a byte order mark is ignored
  Recorder recorder;
  recorder.text_begin = text.data();
  pegtl::memory_input in(text.data() + skip, text.data() + text.size(), path);
  try {
    pegtl::parse<whole_file, pegtl::nothing, control>(in, recorder);
  } catch (const pegtl::parse_error& e) {
    result["parsed"] = false;
    result["error"] = e.what();
    return result;
  }
  nlohmann::json tokens = nlohmann::json::array();
  for (const Token& t : recorder.tokens) {
    tokens.push_back({{"kind", t.kind}, {"text", text.substr(t.begin, t.end - t.begin)}, {"begin", t.begin}, {"end", t.end}});
  }
  result["parsed"] = true;
  result["tokens"] = std::move(tokens);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  nlohmann::json files = nlohmann::json::array();
  for (int i = 1; i < argc; ++i) files.push_back(tokens_of(argv[i]));
  // Strings may hold any bytes; replace what is not UTF-8 rather than fail on it.
  std::cout << files.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  return 0;
}
