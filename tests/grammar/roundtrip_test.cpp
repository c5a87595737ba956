// roundtrip_test.cpp: `mirac fmt` is idempotent and keeps the AST and the comments, on the
// hand-written corpus and on every .audit file of the source tree.
#include <doctest/doctest.h>

#include <algorithm>

#include "helpers.hpp"
#include "interpreter/format/expr.hpp"

namespace fs = std::filesystem;
using mirac::test::parse_text;

namespace {

std::string comments_of(const mirac::ast::Module& m) {
  std::string out;
  for (const auto& c : m.comments) out += c.text + "\n";
  return out;
}

// Formats `text` twice; returns false (and checks nothing) when `text` has syntax errors.
bool check_roundtrip(const std::string& path, const std::string& text) {
  auto first = parse_text(text, path);
  if (first->diags.has_errors()) return false;
  std::string once = mirac::format_module(first->module, first->sources);
  auto second = parse_text(once, path + " (formatted)");
  INFO(path << "\n--- formatted ---\n" << once);
  REQUIRE_MESSAGE(second->errors.empty(), second->errors);
  CHECK(mirac::dump_ast(second->module) == mirac::dump_ast(first->module));
  CHECK(comments_of(second->module) == comments_of(first->module));
  CHECK(mirac::format_module(second->module, second->sources) == once);
  return true;
}

}  // namespace

TEST_CASE("fmt keeps a comment written after code at the end of a line of code") {
  // Moved to a line of its own, `scale 1..5 // five points` would read as a comment on
  // the line after it.
  const std::string text =
      "audit a { // the header\n"
      "  title \"t\"   // spaces before it shrink to one\n"
      "  // alone on its line\n"
      "  data \"d\" /* a block */ // a second comment goes on a line of its own\n"
      "}\n"
      "model m = openai(\"x\") // stays with m, and m with n\n"
      "model n = openai(\"y\")\n"
      "flag F = D1 >= 4 or // inside an expression: at the end of its line\n"
      "  D2 >= 4\n"
      "/* over\n   two lines */ contrast C = D3[zh] - D3[en] // the last\n";
  const std::string want =
      "audit a { // the header\n"
      "  title \"t\" // spaces before it shrink to one\n"
      "  // alone on its line\n"
      "  data \"d\" /* a block */\n"
      "  // a second comment goes on a line of its own\n"
      "}\n"
      "\n"
      "model m = openai(\"x\") // stays with m, and m with n\n"
      "model n = openai(\"y\")\n"
      "\n"
      "flag F = D1 >= 4 or D2 >= 4 // inside an expression: at the end of its line\n"
      "\n"
      "/* over\n   two lines */\n"
      "contrast C = D3[zh] - D3[en] // the last\n";
  auto parsed = parse_text(text);
  REQUIRE_MESSAGE(parsed->errors.empty(), parsed->errors);
  CHECK(mirac::format_module(parsed->module, parsed->sources) == want);
  CHECK(check_roundtrip("trailing.audit", text));
}

TEST_CASE("fmt round-trips the all-constructs corpus") {
  fs::path corpus = mirac::test::source_dir() / "tests/grammar/corpus/all_constructs.audit";
  std::string text = mirac::test::read_file(corpus);
  REQUIRE(!text.empty());
  auto parsed = parse_text(text, corpus.string());
  REQUIRE_MESSAGE(parsed->errors.empty(), parsed->errors);
  CHECK(check_roundtrip(corpus.string(), text));
}

TEST_CASE("fmt round-trips every .audit file of the source tree") {
  fs::path root = mirac::test::source_dir();
  int checked = 0;
  for (const char* area : {"specs", "stdlib", "examples", "tests"}) {
    if (!fs::exists(root / area)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(root / area))
      if (e.is_regular_file() && e.path().extension() == ".audit") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    // A file with syntax errors (a golden syntax case) is not checked; every other is, the
    // golden cases of check errors too.
    for (const auto& f : files)
      if (check_roundtrip(f.string(), mirac::test::read_file(f))) ++checked;
  }
  MESSAGE(checked << " files round-tripped");
  CHECK(checked >= 100);
}

TEST_CASE("the shipped specs, stdlib modules and examples are in canonical layout") {
  // What users read and copy is what `mirac fmt` writes (`mirac fmt --check` for each).
  fs::path root = mirac::test::source_dir();
  int checked = 0;
  for (const char* area : {"specs", "stdlib", "examples"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / area)) {
      if (!e.is_regular_file() || e.path().extension() != ".audit") continue;
      const std::string text = mirac::test::read_file(e.path());
      auto parsed = parse_text(text, e.path().string());
      REQUIRE_MESSAGE(parsed->errors.empty(), parsed->errors);
      INFO(e.path().string() << ": not in canonical layout (run mirac fmt -i on it)");
      CHECK(mirac::format_module(parsed->module, parsed->sources) == text);
      ++checked;
    }
  }
  CHECK(checked >= 5);
}

TEST_CASE("fmt measures a line in columns on screen: a CJK character is two, a combining mark none") {
  CHECK(mirac::format_detail::display_width("abc") == 3);
  CHECK(mirac::format_detail::display_width("日本語") == 6);
  CHECK(mirac::format_detail::display_width("e\xcc\x81") == 1);  // e + combining acute
  CHECK(mirac::format_detail::display_width("\xff") == 1);       // not UTF-8: one column
  // `factor f { a "..." b "x" }` is 23 columns around the Japanese text: with 38 characters
  // (99 columns, 137 bytes) it fits in 100 and stays on one line; with 39 it is split.
  auto layout = [](int characters) {
    std::string text;
    for (int i = 0; i < characters; ++i) text += "語";
    auto parsed = parse_text("factor f { a \"" + text + "\" b \"x\" }\n");
    REQUIRE_MESSAGE(parsed->errors.empty(), parsed->errors);
    return mirac::format_module(parsed->module, parsed->sources);
  };
  CHECK(layout(38).find('\n') == layout(38).size() - 1);
  CHECK(layout(39).find('\n') < layout(39).size() - 1);
}
