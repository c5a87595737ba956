// coverage_test.cpp: the all-constructs corpus really uses every rule of the grammar. The
// rule names come from grammar/grammar.hpp itself, so a new rule without a corpus example
// fails here.
#include <doctest/doctest.h>

#include <map>
#include <regex>
#include <set>

#include <tao/pegtl/demangle.hpp>

#include "grammar/grammar.hpp"
#include "helpers.hpp"

namespace g = mirac::grammar;
namespace pegtl = tao::pegtl;

namespace {

// Records every rule that matched somewhere.
template <typename Rule>
struct record : pegtl::normal<Rule> {
  template <typename ParseInput>
  static void success(const ParseInput&, std::set<std::string>& seen) {
    seen.insert(std::string(pegtl::demangle<Rule>()));
  }
};

using file_rule = pegtl::seq<g::ws, pegtl::until<pegtl::eof, g::one_declaration>>;

struct Rules {
  std::vector<std::string> names;
  std::set<std::string> exempt;  ///< guards (inside not_at<>) and error markers (raise<>)
  std::map<std::string, std::string> renames;  ///< `struct and_op : kw_and {};` and_op -> kw_and
};

// A rule that only serves as the base of a renaming rule (`struct expr : or_expr {}`) is
// matched through the derived rule, which PEGTL reports under its own name.
Rules grammar_rules() {
  std::string text = mirac::test::read_file(mirac::test::source_dir() / "grammar/grammar.hpp");
  Rules rules;
  std::regex decl(R"(\nstruct (\w+) : (\w+)?)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), decl); it != std::sregex_iterator(); ++it) {
    rules.names.push_back((*it)[1]);
    std::string rest = it->suffix().str();
    if ((*it)[2].matched && rest.rfind(" {};", 0) == 0) rules.renames[(*it)[1]] = (*it)[2];
  }
  // A valid file never needs a guard to match, nor an error rule: they exist to fail.
  std::regex guard(R"((not_at|raise)<([\w, ]+)>)");
  std::regex word(R"(\w+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), guard); it != std::sregex_iterator(); ++it) {
    std::string inside = (*it)[2];
    for (auto w = std::sregex_iterator(inside.begin(), inside.end(), word); w != std::sregex_iterator(); ++w)
      rules.exempt.insert(w->str());
  }
  return rules;
}

}  // namespace

TEST_CASE("the all-constructs corpus uses every grammar rule") {
  auto path = mirac::test::source_dir() / "tests/grammar/corpus/all_constructs.audit";
  std::string text = mirac::test::read_file(path);
  std::set<std::string> seen;
  pegtl::memory_input in(text, path.string());
  REQUIRE(pegtl::parse<file_rule, pegtl::nothing, record>(in, seen));
  Rules rules = grammar_rules();
  CHECK(rules.names.size() > 150);
  std::set<std::string> covered;
  for (const auto& s : seen) covered.insert(s.substr(s.rfind(':') + 1));
  for (const auto& [derived, base] : rules.renames)
    if (covered.count(derived)) covered.insert(base);
  for (const auto& rule : rules.names) {
    if (rules.exempt.count(rule)) continue;
    INFO("rule without an example in the corpus: " << rule);
    CHECK(covered.count(rule) == 1);
  }
}
