// report_title_test.cpp: `{cells}` in a report title or section heading is the number of
// user-side cells of the design (docs/report.md, "Titles that count"), so that a title
// stays true in a variant with more levels; any other placeholder is an error of check.
#include <doctest/doctest.h>

#include <cstdlib>

#include "mirac_binary.hpp"

namespace {

std::string otc_spec() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  return (std::filesystem::path(root) / "examples/otc/otc.audit").string();
}

}  // namespace

TEST_CASE("{cells} in a title is the number of user-side cells; another placeholder is an error") {
  mirac::test::TempDir tmp("report_title");
  const std::string spec = tmp.write("titles.audit", "audit otc_titles extends \"" + otc_spec() + "\" { title \"Titles\" }\n\n"
                                     "extend report otc {\n"
                                     "  section \"The {cells} cells\"\n"
                                     "  figure cells = bars(D3) {\n"
                                     "    by cell, model\n"
                                     "    title \"D3 across the {cells} user-side cells\"\n"
                                     "  }\n"
                                     "}\n");
  const std::string store = tmp.path("run");
  auto run = mirac::test::invoke({"run", spec, "--offline", "--store", store, "--resamples", "20"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const std::string report = mirac::test::read_text(std::filesystem::path(store) / "results/report.md");
  CHECK(report.find("## The 4 cells") != std::string::npos);  // literacy x tone
  CHECK(report.find("D3 across the 4 user-side cells") != std::string::npos);
  CHECK(report.find("{cells}") == std::string::npos);

  const std::string wrong = tmp.write("wrong.audit", "audit otc_wrong extends \"" + otc_spec() + "\" { title \"Wrong\" }\n\n"
                                      "extend report otc {\n"
                                      "  figure cells = bars(D3) { by cell title \"D3 across the {cell} cells\" }\n"
                                      "}\n");
  auto check = mirac::test::invoke({"check", wrong});
  CHECK(check.code == 1);
  CHECK(check.err.find("wrong.audit:4:58: error: placeholder '{cell}' in a title names nothing a report fills in\n") !=
        std::string::npos);
  CHECK(check.err.find("note: a title may say {cells}, the number of user-side cells") != std::string::npos);
}
