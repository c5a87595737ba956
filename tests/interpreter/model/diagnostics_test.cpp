// diagnostics_test.cpp: the one format every problem is printed in.
#include <doctest/doctest.h>

#include <sstream>

#include "interpreter/model/diagnostics.hpp"

TEST_CASE("diagnostics are sorted, carets follow wide characters and tabs, and are counted") {
  mirac::SourceManager s;
  auto f = s.add("x.audit", "factor a { 中文 x }\n\tdesign b\n");
  mirac::Diagnostics d;
  d.error(s.range(f, 23, 31), "second");  // "design b", after a tab on line 2
  std::size_t x = std::string("factor a { 中文 ").size();
  d.error(s.range(f, x, x + 1), "first");
  d.note("a note");
  std::ostringstream out;
  d.print(out, s);
  CHECK(out.str() ==
        "x.audit:1:15: error: first\n"
        "factor a { 中文 x }\n"
        "                ^\n"
        "note: a note\n"
        "x.audit:2:2: error: second\n"
        "\tdesign b\n"
        "\t^~~~~~~~\n"
        "2 errors generated.\n");
}

TEST_CASE("did you mean: close names only") {
  CHECK(mirac::closest_name("langauge", {"language", "hls"}) == "language");
  CHECK(mirac::closest_name("xyz", {"language", "hls"}).empty());
  CHECK(mirac::with_suggestion("unknown factor 'rgister'", "rgister", {"register"}) ==
        "unknown factor 'rgister'; did you mean 'register'?");
}

TEST_CASE("columns count code points") {
  mirac::SourceManager s;
  auto f = s.add("y", "中文abc");
  CHECK(s.position(f, 6).column == 3);
  CHECK(mirac::display_width("中文abc") == 7);
}
