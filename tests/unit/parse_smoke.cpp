#include <doctest/doctest.h>

#include <sstream>

#include "interpreter/parse.hpp"

TEST_CASE("parse smoke") {
  mirac::SourceManager sm;
  auto id = sm.add("t.audit", R"(audit x { title "T" }
factor language { zh "Chinese" en "English" }
factor hls { high low }
design language * hls
contrast C = D3[zh, low] - D3[language=en, high] by model
flag F = pair(hls: low vs high) when a.D3 - b.D3 >= 2 or not (a.D1 == 5)
model gpt = openai("gpt-5.4") { temperature 0 extra { x "y" } }
factor bad { a b
flag G = D3 >= 3 and Q2 >= 4
)");
  mirac::Diagnostics d;
  auto m = mirac::parse_module(id, sm, d);
  std::ostringstream out;
  d.print(out, sm);
  MESSAGE(out.str());
  CHECK(m.decls.size() == 7);
  CHECK(d.error_count() == 1);
}
