// data_test.cpp: the CSV, JSONL and JSON readers, on files written by the test.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "interpreter/model/data.hpp"

namespace fs = std::filesystem;

namespace {

struct TempFile {
  fs::path path;
  TempFile(const std::string& name, const std::string& text) {
    path = fs::temp_directory_path() / ("mirac_data_test_" + name);
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempFile() { fs::remove(path); }
};

std::string printed(const mirac::Diagnostics& d, const mirac::SourceManager& s) {
  std::ostringstream out;
  d.print(out, s);
  return out.str();
}

}  // namespace

TEST_CASE("csv: quotes, embedded commas and newlines, CRLF, BOM, no final newline") {
  TempFile f("a.csv", "\xEF\xBB\xBFid,text\r\n1,\"a, \"\"quoted\"\"\nline\"\r\n2,中文");
  mirac::SourceManager s;
  mirac::Diagnostics d;
  auto t = mirac::read_table(f.path, "a.csv", "csv", {}, s, d);
  REQUIRE(t);
  CHECK(!d.has_errors());
  CHECK(t->columns == std::vector<std::string>{"id", "text"});
  REQUIRE(t->rows.size() == 2);
  CHECK(t->rows[0].fields["text"] == "a, \"quoted\"\nline");
  CHECK(t->rows[1].fields["text"] == "中文");
  CHECK(t->rows[1].line == 4);
}

TEST_CASE("csv: a row with the wrong number of fields names the row") {
  TempFile f("b.csv", "id,text\n1,a\n2,b,c\n");
  mirac::SourceManager s;
  mirac::Diagnostics d;
  auto t = mirac::read_table(f.path, "b.csv", "csv", {}, s, d);
  CHECK(printed(d, s) == "b.csv:3:1: error: row 2 has 3 fields but the header has 2\n2,b,c\n^~~~~\n"
                           "note: a field holding a comma must be in double quotes (\"a, b\"), and a quote inside one "
                           "is doubled (\"say \"\"hi\"\"\")\n1 error generated.\n");
}

TEST_CASE("jsonl: invalid JSON points into the line") {
  TempFile f("c.jsonl", "{\"a\": 1}\n{\"a\": }\n");
  mirac::SourceManager s;
  mirac::Diagnostics d;
  auto t = mirac::read_table(f.path, "c.jsonl", "jsonl", {}, s, d);
  CHECK(!t);
  std::string out = printed(d, s);
  CHECK(out.rfind("c.jsonl:2:7: error: invalid JSON", 0) == 0);
}

TEST_CASE("field_range finds a JSON value and a CSV cell") {
  TempFile f("d.jsonl", "{\"seed\": \"7\", \"level\": \"mid\"}\n");
  mirac::SourceManager s;
  mirac::Diagnostics d;
  auto t = mirac::read_table(f.path, "d.jsonl", "jsonl", {}, s, d);
  REQUIRE(t);
  auto r = mirac::field_range(s, t->rows[0], "level");
  CHECK(r.begin.column == 24);  // the opening quote of "mid"
  CHECK(r.end.column == 29);
}

TEST_CASE("a missing file is reported at the use site") {
  mirac::SourceManager s;
  mirac::Diagnostics d;
  auto t = mirac::read_table("/nonexistent/x.csv", "x.csv", "csv", {}, s, d);
  CHECK(!t);
  CHECK(d.error_count() == 1);
  CHECK(d.all()[0].message == "cannot read data file '/nonexistent/x.csv': no such file");
}
