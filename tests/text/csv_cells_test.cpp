// csv_cells_test.cpp: runtime/text/csv_cells, the cells of every CSV mirac writes for people:
// text a spreadsheet would run as a formula gets a ' in front and is quoted, numbers stay
// numbers, and mirac's readers get back exactly the text that was written.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "runtime/text/csv_cells.hpp"

namespace {

// The payloads of OWASP's CSV injection page, and texts next to them.
const std::vector<std::string> kFormulas = {
    "=HYPERLINK(\"http://x\",\"y\")", "=cmd|' /C calc'!A0", "@SUM(A1)", "+1", "-1+2", "\tleading tab",
    "\rleading CR", "-0.5", "'=already quoted", "''@twice", "=", "-"};
const std::vector<std::string> kInert = {"", "plain", "'", "''", "'plain", "a=b", " =space first", "3", "N/A",
                                         "line\nbreak", "comma, here", "\"quoted\""};

}  // namespace

TEST_CASE("csv_field: RFC 4180 quoting only") {
  CHECK(mirac::csv_field("plain") == "plain");
  CHECK(mirac::csv_field("a,b") == "\"a,b\"");
  CHECK(mirac::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(mirac::csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(mirac::csv_field("cr\rhere") == "\"cr\rhere\"");
  CHECK(mirac::csv_field("=1+1") == "=1+1");  // no formula guard: for cells that are not text
}

TEST_CASE("csv_text: a formula-like text gets a ' in front and quotes; others only RFC 4180 quoting") {
  CHECK(mirac::csv_text("=HYPERLINK(\"http://x\",\"y\")") == "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
  CHECK(mirac::csv_text("=cmd|' /C calc'!A0") == "\"'=cmd|' /C calc'!A0\"");
  CHECK(mirac::csv_text("@SUM(A1)") == "\"'@SUM(A1)\"");
  CHECK(mirac::csv_text("+1") == "\"'+1\"");
  CHECK(mirac::csv_text("-1+2") == "\"'-1+2\"");
  CHECK(mirac::csv_text("\tx") == "\"'\tx\"");
  CHECK(mirac::csv_text("\rx") == "\"'\rx\"");
  CHECK(mirac::csv_text("-0.5") == "\"'-0.5\"");  // a string in the data is text, whatever it looks like
  CHECK(mirac::csv_text("'=x") == "\"''=x\"");  // so that reading takes one ' off and gives '=x
  CHECK(mirac::csv_text("'plain") == "'plain");
  CHECK(mirac::csv_text("a=b") == "a=b");
  CHECK(mirac::csv_text("plain, with comma") == "\"plain, with comma\"");
  for (const auto& f : kFormulas) CHECK(mirac::csv_formula_like(f));
  for (const auto& t : kInert) CHECK_FALSE(mirac::csv_formula_like(t));
}

TEST_CASE("csv_text with keep: every cell as it is, only RFC 4180 quoting") {
  for (const auto& f : kFormulas) CHECK(mirac::csv_text(f, mirac::CsvFormulas::keep) == mirac::csv_field(f));
}

TEST_CASE("csv_number_or_text: numbers written as text stay numbers, other text is guarded") {
  for (const char* n : {"-0.5", "-0.25", "+3", "3", "0", "1e-05", "-1.5E+10", ".5", "5.", "2.2250738585072014e-308"})
    CHECK(mirac::csv_number_or_text(n) == n);
  CHECK(mirac::csv_number_or_text("-1+2") == "\"'-1+2\"");
  CHECK(mirac::csv_number_or_text("-") == "\"'-\"");
  CHECK(mirac::csv_number_or_text("-e5") == "\"'-e5\"");
  CHECK(mirac::csv_number_or_text("1e") == "1e");
  CHECK(mirac::csv_number_or_text("-inf") == "\"'-inf\"");
  CHECK(mirac::csv_number_or_text("model=mini") == "model=mini");
}

TEST_CASE("csv_text_read undoes csv_text for every text, and leaves other cells alone") {
  std::vector<std::string> texts = kFormulas;
  texts.insert(texts.end(), kInert.begin(), kInert.end());
  for (const auto& t : texts) {
    CAPTURE(t);
    // What a CSV reader gives for the field csv_text wrote: the text inside the quotes.
    std::string written = mirac::csv_text(t);
    std::string cell = written;
    if (cell.size() >= 2 && cell.front() == '"') {
      cell = cell.substr(1, cell.size() - 2);
      for (auto at = cell.find("\"\""); at != std::string::npos; at = cell.find("\"\"", at + 1)) cell.erase(at, 1);
    }
    CHECK(mirac::csv_text_read(cell) == t);
  }
  CHECK(mirac::csv_text_read("-0.5") == "-0.5");  // a number as written by csv_number_or_text
  CHECK(mirac::csv_text_read("'plain") == "'plain");
}
